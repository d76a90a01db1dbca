// The lessons' view of a model whichever its family (DOM-free: tests/js/your-model-llama.test.js runs it in
// Node): a GPTModel with GPT-2's tokenizer, or a LlamaModel (Llama, Qwen2, Mistral, SmolLM2) with a
// tokenizer.json's. modelShape gives both shapes in the GPT's names, keyValueHeadOf which key/value head a
// query head reads, llamaTokenizer puts an HFTokenizer behind the GPT tokenizer's calls, describeConfig says
// the shape in words. gpt-model.js re-exports them for the lessons.

// The Llama family's names, as the page says them (config.json's model_type → words).
export const FAMILY_NAMES = { llama: 'Llama', qwen2: 'Qwen2', mistral: 'Mistral', gpt2: 'GPT-2' };
export const isLlamaFamily = (family) => family === 'llama' || family === 'qwen2' || family === 'mistral';

// A model's shape in the GPT's names, whichever family: { family, numLayers, numHeads, numKeyValueHeads,
// dModel, contextLength, vocabSize }. A GPT's every head has its own keys and values (numKeyValueHeads =
// numHeads); a Llama's query heads share them in groups.
export function modelShape(model) {
  const c = model.config;
  if (model.family === undefined) return { family: 'gpt2', ...c, numKeyValueHeads: c.numHeads };
  return { family: model.family, numLayers: c.numLayers, numHeads: c.numHeads, numKeyValueHeads: c.numKeyValueHeads,
    dModel: c.hiddenSize, contextLength: c.maxPositionEmbeddings, vocabSize: c.vocabSize };
}

// The key/value head query head `head` reads (Hugging Face's repeat_kv: heads h·g … h·g + g − 1 share
// key/value head h, g = numHeads / numKeyValueHeads).
export const keyValueHeadOf = ({ numHeads, numKeyValueHeads }, head) => Math.floor(head / (numHeads / numKeyValueHeads));

// A tokenizer.json's tokenizer (HFTokenizer) behind the GPT tokenizer's calls the lessons use: encode
// without the special tokens (a target token, a word's pieces), encodePrompt with them (what the model
// reads: Llama 3's <|begin_of_text|>), decode and tokenBytes with them spelled out.
export function llamaTokenizer(hf) {
  return {
    vocabSize: hf.vocabSize,
    endOfText: null,
    encode: (text) => hf.encode(text, { addSpecialTokens: false }),
    encodePrompt: (text) => hf.encode(text),
    decode: (ids) => hf.decode(ids, { skipSpecialTokens: false }),
    decodeBytes: (ids) => hf.decodeBytes(ids, { skipSpecialTokens: false }),
    tokenBytes: (id) => hf.decodeBytes([id], { skipSpecialTokens: false }),
    tokenString: (id) => hf.tokenString(id),
    tokenText: (id) => hf.tokenText(id),
    dispose: () => hf.dispose(),
  };
}

export function describeConfig(model) {
  const { family, numLayers, numHeads, numKeyValueHeads, dModel, contextLength, vocabSize } = modelShape(model);
  const heads = numKeyValueHeads === numHeads ? `${numHeads} heads`
    : `${numHeads} query heads sharing ${numKeyValueHeads} key/value ${numKeyValueHeads === 1 ? 'head' : 'heads'}`;
  return `${family === 'gpt2' ? '' : `a ${FAMILY_NAMES[family]}: `}${numLayers} layers × ${heads}, d_model ${dModel}, ` +
    `context ${contextLength} tokens, vocabulary ${vocabSize.toLocaleString('en')}`;
}
