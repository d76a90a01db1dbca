// A tensor handed to a view (issue 31): weights (batch, heads, n_q, n_k) as the package returns them,
// or (batch, n_q, n_k) averaged over heads, or a plain (n_q, n_k). The view draws one (n_q, n_k) slice,
// chosen by its batch and head attributes, and says which slice of which shape it shows.
import { AttnLabError } from '../lib/errors.js';
import { shapeText } from '../lib/tensor.js';
import { checkMatrix } from './matrix.js';

// The names of a tensor's leading dims, by rank: what the batch and head attributes select.
const LEADING = { 2: [], 3: ['batch'], 4: ['batch', 'head'] };

export const isTensorInput = (value) => value !== null && typeof value === 'object' && 'shape' in value;

// { shape, data } with 2 to 4 dims: checked as a Matrix of its rows (NaN refused, ±∞ drawn).
export function checkTensorInput(element, property, t) {
  const { shape, data } = t;
  const ok = Array.isArray(shape) && shape.length >= 2 && shape.length <= 4 && shape.every((n) => Number.isInteger(n) && n > 0);
  if (!ok) {
    throw new AttnLabError(`<${element}>.${property} must be a Matrix or a tensor of 2 to 4 dims — (n_q, n_k), (batch, n_q, n_k) `
      + `or (batch, heads, n_q, n_k) — got shape ${Array.isArray(shape) ? shapeText(shape) : typeof shape}`);
  }
  const cols = shape.at(-1);
  const rows = shape.reduce((count, n) => count * n, 1) / cols;
  checkMatrix(element, property, { rows, cols, data });
  return { shape: [...shape], data };
}

// The slice at { batch, head } → { matrix, where: 'batch 1, head 3 of (2, 8, 10, 10)' }, or { problem }
// when an index is outside its dim.
export function tensorSlice(element, t, indices) {
  const names = LEADING[t.shape.length];
  let offset = 0;
  const said = [];
  for (const [d, name] of names.entries()) {
    const index = indices[name];
    if (index >= t.shape[d]) {
      return { problem: `<${element}> ${name}="${index}" is outside the tensor ${shapeText(t.shape)}: its ${name} dim has `
        + `${t.shape[d] === 1 ? 'only index 0' : `indices 0 to ${t.shape[d] - 1}`}` };
    }
    offset = offset * t.shape[d] + index;
    said.push(`${name} ${index}`);
  }
  const [rows, cols] = t.shape.slice(-2);
  const size = rows * cols;
  const matrix = { rows, cols, data: t.data.subarray ? t.data.subarray(offset * size, (offset + 1) * size) : t.data.slice(offset * size, (offset + 1) * size) };
  return { matrix, where: said.length ? `${said.join(', ')} of ${shapeText(t.shape)}` : '' };
}

// An attribute holding an index: a whole number ≥ 0 (else 0, and reported by indexAttributeProblem).
export const asIndex = (text) => (/^\d+$/.test(text) ? Number(text) : 0);
export function indexAttributeProblem(element, host, names) {
  for (const name of names) {
    const text = host.getAttribute(name);
    if (text !== null && !/^\d+$/.test(text)) return `<${element}> ${name}="${text}" must be a whole number from 0`;
  }
  return null;
}

// One weights tensor (batch, heads, n, n) per layer, as a batched GPT or encoder returns them: all of
// one shape, every batch item's Matrix[layer][head] passing `checkModel` (weights in [0, 1]).
export function checkLayerTensors(element, property, layers, checkModel) {
  const checked = layers.map((t, l) => {
    const { shape, data } = t;
    if (!Array.isArray(shape) || shape.length !== 4 || shape[2] !== shape[3]) {
      throw new AttnLabError(`<${element}>.${property}[${l}] must be a weights tensor (batch, heads, n, n), got shape `
        + `${Array.isArray(shape) ? shapeText(shape) : typeof shape}`);
    }
    return checkTensorInput(element, `${property}[${l}]`, { shape, data });
  });
  const first = shapeText(checked[0].shape);
  checked.forEach((t, l) => {
    if (shapeText(t.shape) !== first) throw new AttnLabError(`<${element}>.${property}[${l}] is ${shapeText(t.shape)} but layer 0 is ${first}`);
  });
  for (let b = 0; b < checked[0].shape[0]; b++) checkModel(element, `${property} (batch item ${b})`, layerTensorsBatch(checked, b));
  return checked;
}

// Batch item b of per-layer (batch, heads, n, n) tensors as Matrix[layer][head].
export function layerTensorsBatch(layers, b) {
  return layers.map((t) => Array.from({ length: t.shape[1] }, (_, h) => tensorSlice('', t, { batch: b, head: h }).matrix));
}
