// The FlashAttention lesson's computations, DOM-free (unit-tested in Node): one head's Q, K and V out of
// attnlab-kjv-llama's cache, the partial output of a query row after a block, when a row's running maximum
// stops moving (the exercise), the largest difference between two outputs, and the memory each way needs.
import { BYTES_PER_NUMBER, CORE_TILE } from './settings.js';

// The key/value head query head `head` reads: grouped-query attention gives each key/value head
// numHeads / numKeyValueHeads query heads in a row (Hugging Face's repeat_kv).
export const keyValueHead = (head, numHeads, numKeyValueHeads) => Math.floor(head / (numHeads / numKeyValueHeads));

// One head's rows of a cached [t, heads, hd] activation as a t×hd Matrix.
export function headRows(tensor, head) {
  const [t, heads, hd] = tensor.shape;
  const data = new Float32Array(t * hd);
  for (let i = 0; i < t; i++) data.set(tensor.data.subarray((i * heads + head) * hd, (i * heads + head + 1) * hd), i * hd);
  return { rows: t, cols: hd, data };
}

// The cache names runWithCache must keep for a layer's Q (turned), K (turned) and V.
export const qkvNames = (layer) => ['hook_rot_q', 'hook_rot_k', 'hook_v'].map((n) => `blocks.${layer}.attn.${n}`);

// → { q, k, v, kvHead }: query head `head` of `layer` and the key/value head it reads, from a cache holding qkvNames(layer).
export function headQKV(cache, layer, head, { numHeads, numKeyValueHeads }) {
  const [rq, rk, v] = qkvNames(layer).map((n) => cache.get(n));
  const kvHead = keyValueHead(head, numHeads, numKeyValueHeads);
  return { q: headRows(rq, head), k: headRows(rk, kvHead), v: headRows(v, kvHead), kvHead };
}

// Row `row` of a block's accumulator divided by its running sum: the output if the keys stopped here.
export function partialOutput(block, row) {
  const d = block.accumulator.cols;
  const acc = block.accumulator.data.subarray(row * d, (row + 1) * d);
  const l = block.sum[row];
  return Float64Array.from(acc, (x) => (l > 0 ? x / l : 0));
}

// The largest |a − b| over two arrays of equal length, and where.
export function largestDifference(a, b) {
  let value = 0, index = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (d > value) value = d, index = i;
  }
  return { value, index };
}

// The 1-based number of the last block that moved row `row`'s running maximum (block 1 always sets it).
export function lastMaxMove(blocks, row) {
  let last = 1;
  for (let b = 1; b < blocks.length; b++) if (blocks[b].max[row] > blocks[b - 1].max[row]) last = b + 1;
  return last;
}

// The exercise: after which block does row `row`'s maximum stop moving? A guess is a block number.
export function checkMaxStops(guess, blocks, row) {
  const answer = lastMaxMove(blocks, row);
  if (!Number.isInteger(guess) || guess < 1 || guess > blocks.length) {
    return { correct: false, answer, message: `Type a block number from 1 to ${blocks.length}.` };
  }
  const moved = blocks[answer - 1];
  const keys = `keys ${moved.keyStart}–${moved.keyStart + moved.keyCount - 1}`;
  if (guess === answer) {
    return { correct: true, answer, message: `Right: block ${answer} (${keys}) holds the row’s largest score, ` +
      `${moved.max[row].toFixed(3)}; every later block leaves m alone, and its rescale factor is exactly 1.` };
  }
  const hint = guess < answer
    ? `Not yet: block ${answer} still moves it (its rescale factor is ${blocks[answer - 1].rescale[row].toFixed(4)}, below 1).`
    : `Earlier: from block ${answer + 1} on, the rescale factor of this row is 1. Step through and watch the m column.`;
  return { correct: false, answer, message: hint };
}

// Bytes one head needs at sequence length n, head size d, float32: the n×n scores a plain softmax keeps;
// FlashAttention's extra: one tile of scores and a running maximum and sum per query row; and what both
// need anyway, Q, K, V and the output (n×d each).
export function memoryRow(n, d, { bytes = BYTES_PER_NUMBER, tile = CORE_TILE } = {}) {
  const scores = n * n * bytes;
  const flash = (Math.min(tile.queries, n) * Math.min(tile.keys, n) + 2 * n) * bytes;
  const inputs = 4 * n * d * bytes;
  return { n, scores, flash, inputs, ratio: scores / flash };
}

// 1,073,741,824 → '1 GiB', in the largest unit it reaches, three significant digits at most.
export function bytesText(bytes) {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0, x = bytes;
  while (x >= 1024 && u < units.length - 1) x /= 1024, u++;
  const digits = x >= 100 || u === 0 ? 0 : x >= 10 ? 1 : 2;
  return `${Number(x.toFixed(digits)).toLocaleString('en')} ${units[u]}`;
}
