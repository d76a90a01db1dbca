// Your own model: the page reports the loaded model's shape and parameter count (model.config,
// parameterCount()); the program reads attnlab-kjv, writes it again as float32 and reads that back.
export const states = [{}, { another: 'the program has no settings: the same run' }];

export async function expected(lab, { model }) {
  const { numLayers, numHeads, dModel, contextLength, vocabSize } = model.config;
  const parameters = model.parameterCount();
  return {
    'layers, heads, d_model, context, vocabulary': [numLayers, numHeads, dModel, contextLength, vocabSize],
    parameters: [parameters],
    'memory as float32 (MiB)': [(4 * parameters) / 2 ** 20],
    'largest logit change after writing and reading back': [0],  // float16 → float32 is exact, and so is the round trip
  };
}
