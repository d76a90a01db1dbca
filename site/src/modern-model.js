// The model part four's lessons run on: attnlab-kjv-llama, the Llama-architecture sibling of attnlab-kjv
// (lab.loadBuiltinLlama(): grouped key/value heads, RoPE, RMSNorm, SwiGLU, trained on the same King James
// text with the same 4,096-token vocabulary). A lesson's prepare() loads it here; its tokenizer is a
// tokenizer.json (HFTokenizer), so its token labels and prompts are read here rather than by gpt-model.js.
import { el, noteUnder } from './dom.js';
import { TOKEN_MARKS } from './token-label.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

// → { model, tokenizer, name } for a lesson's prepare(); loading(what) names what loads (the page's loading state).
export async function llamaModel(lab, loading = () => {}) {
  loading('attnlab-kjv-llama, attnlab’s small Llama (its module and weights)');
  const { model, tokenizer } = await lab.loadBuiltinLlama();
  return { model, tokenizer, name: 'attnlab-kjv-llama' };
}

export const describeLlama = ({ numLayers, numHeads, numKeyValueHeads, headDim, hiddenSize, maxPositionEmbeddings }) =>
  `${numLayers} layers, ${numHeads} query heads sharing ${numKeyValueHeads} key/value heads of ${headDim} numbers, ` +
  `d_model ${hiddenSize}, context ${maxPositionEmbeddings} tokens`;

// The model, in one line under the lesson's introduction, and how its token labels read.
export function llamaLine({ model }) {
  return el('p', { class: 'model-line' }, `Model: attnlab-kjv-llama, a Llama that attnlab trained on the King James Bible ` +
    `(${describeLlama(model.config)}). Everything below is computed in this page by the attnlab package. `, TOKEN_MARKS);
}

// A token as the pages label it (token-label.js's marks): · a space, ↵ a line break, ⟨c3⟩ a byte of a split character.
export function llamaLabel(tokenizer, id) {
  const bytes = tokenizer.decodeBytes([id], { skipSpecialTokens: false });
  try {
    return strictUtf8.decode(bytes).replaceAll(' ', '·').replaceAll('\n', '↵');
  } catch {
    return `⟨${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ')}⟩`;
  }
}

// The learner's text as the Llama's token ids: at most `limit` (default its context; the last ones kept), never
// empty (`fallback` then); with { box } the lesson says under the box what the model read instead.
export function llamaPromptIds(tokenizer, model, text, fallback, { box, limit = model.config.maxPositionEmbeddings } = {}) {
  let ids = Array.from(tokenizer.encode(text.toWellFormed()));
  const empty = ids.length === 0;
  if (empty) ids = Array.from(tokenizer.encode(fallback));
  const cut = ids.length > limit;
  noteUnder(box, empty ? `No text in the box: the model reads “${fallback}” instead.`
    : cut ? `The lesson reads ${limit} tokens at most: it reads the last ${limit} of these ${ids.length}.` : '');
  return { ids: cut ? ids.slice(ids.length - limit) : ids, cut, empty };
}
