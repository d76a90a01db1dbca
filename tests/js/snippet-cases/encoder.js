// Encoder: the page steps through the layer's trace to its output and counts its parameters; computed
// here with the package, on the weights the lesson loads (site/src/lessons/encoder/settings.js encoderWeights).
import { encoderWeights } from '../../../site/src/lessons/encoder/settings.js';
import { sentenceTokens } from '../../../site/src/sentence-tokens.js';

export const states = [{}, { norm: 'rmsnorm', order: 'pre', seed: 3, sentence: 'a dog barks at night' }, { norm: 'layernorm', order: 'pre', seed: 1 }, { norm: 'rmsnorm', order: 'post' }];

export async function expected(lab, state) {
  const tokens = sentenceTokens(lab, state.sentence, 'the cat sat on the mat', { maxTokens: 32 }).tokens;
  const layer = new lab.TransformerEncoderLayer({ dModel: 64, numHeads: 4, dFF: 256, norm: state.norm, normFirst: state.order === 'pre', seed: state.seed });
  layer.loadWeights(encoderWeights(lab, state));
  const trace = layer.trace(lab.embedTokens(tokens, 64, { seed: state.seed, positions: 'sinusoidal' }));
  const parts = layer.parameterCounts();
  layer.dispose();
  return {
    output: trace.at(-1).tensors.output.data,
    'parameters (attention, feed-forward, norms, total)': [parts.selfAttn, parts.feedForward, parts.norms, parts.total],
  };
}
