// FlashAttention, block by block: the page runs one head of attnlab-kjv-llama (its hook_rot_q, hook_rot_k and
// hook_v, the key/value head its group shares) through lab.flashAttentionTrace, causal, and shows each block's
// running max, running sum, rescale factor and partial output a / l; then the largest difference from softmax
// attention (scaledDotProductAttention) and the memory table. Computed here with the package.
import { headQKV, largestDifference, memoryRow, partialOutput, qkvNames } from '../../../site/src/lessons/flash-attention/parts.js';
import { DEFAULT_BLOCK, DEFAULT_PROMPT, MAX_TOKENS, MEMORY_LENGTHS } from '../../../site/src/lessons/flash-attention/settings.js';

export const states = [
  { prompt: DEFAULT_PROMPT, layer: 0, head: 0, block: DEFAULT_BLOCK },  // the defaults
  { prompt: 'And Abner saw Aaron. And Abner saw', layer: 3, head: 3, block: 2 },
  { prompt: '', layer: 1, head: 1, block: 16 },  // an empty box: the default prompt
];

export async function expected(lab, { llama, llamaTokenizer: tokenizer }, state) {
  const encoded = Array.from(tokenizer.encode(state.prompt));
  const ids = (encoded.length ? encoded : Array.from(tokenizer.encode(DEFAULT_PROMPT))).slice(-MAX_TOKENS);
  const { cache } = llama.runWithCache(ids, { names: qkvNames(state.layer) });
  const { q, k, v } = headQKV(cache, state.layer, state.head, llama.config);
  const trace = lab.flashAttentionTrace(q, k, v, { blockSize: state.block, causal: true });
  const full = lab.scaledDotProductAttention(q, k, v, { causal: true }).output;
  const out = {};
  const n = ids.length, d = q.cols;
  trace.blocks.forEach((block, b) => {
    out[`block ${b + 1} max`] = block.max;
    out[`block ${b + 1} sum`] = block.sum;
    out[`block ${b + 1} rescale`] = block.rescale;
    out[`block ${b + 1} partial output (first 3 numbers of each row)`] =
      Array.from({ length: n }, (_, i) => Array.from(partialOutput(block, i).subarray(0, 3))).flat();
  });
  const last = trace.blocks.at(-1);
  let largest = 0;
  for (let i = 0; i < n; i++) largest = Math.max(largest, largestDifference(partialOutput(last, i), full.data.subarray(i * d, (i + 1) * d)).value);
  out['largest difference from softmax attention'] = [largest];
  for (const length of MEMORY_LENGTHS) {
    const r = memoryRow(length, d);
    out[`memory in bytes at ${length} tokens, scores, tile m l, q k v output`] = [r.scores, r.flash, r.inputs];
  }
  return out;
}
