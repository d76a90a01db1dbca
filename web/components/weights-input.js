// Checking attention weights handed to the views that draw them on the fixed [0, 1] scale (model
// view, head view, coloured tokens): anything else would be clamped into a misleading picture, so it
// is an AttnLabError naming the property, thrown by its setter.
import { AttnLabError } from '../lib/errors.js';
import { checkMatrix } from './matrix.js';

// float32 softmax rows may hold 1.0000001; anything further outside [0, 1] is not a weight.
export const SLACK = 1e-5;

// An n×n matrix of weights (queries × keys over the same tokens); with { square: false } any
// queries × keys shape (cross-attention: target words × source words).
export function checkWeights(element, property, m, { square = true } = {}) {
  checkMatrix(element, property, m);
  if (square && m.rows !== m.cols) {
    throw new AttnLabError(`<${element}>.${property} must be square (queries × keys over the same tokens), got ${m.rows}×${m.cols}`);
  }
  const { data, cols } = m;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v >= -SLACK && v <= 1 + SLACK) continue;
    throw new AttnLabError(`<${element}>.${property} holds ${String(v)} at row ${Math.floor(i / cols)}, column ${i % cols}: `
      + 'attention weights are in [0, 1] (draw scores with <attn-heatmap palette="RdBu">)');
  }
  return m;
}

// Matrix[] of one size: a layer's heads. `size` (optional) is the n every matrix must have; with
// { square: false } the heads may be rectangular, all of the first one's shape.
export function checkHeads(element, property, list, size = null, { square = true } = {}) {
  if (!Array.isArray(list) || list.length === 0) {
    throw new AttnLabError(`<${element}>.${property} must be a non-empty list of heads' matrices, got ${describe(list)}`);
  }
  let rows = size, cols = size;
  list.forEach((m, h) => {
    checkWeights(element, `${property}[${h}]`, m, { square });
    rows ??= m.rows;
    cols ??= m.cols;
    if (m.rows !== rows || m.cols !== cols) {
      throw new AttnLabError(`<${element}>.${property}[${h}] is ${m.rows}×${m.cols} but the others are ${rows}×${cols}`);
    }
  });
  return [...list];
}

// Matrix[layer][head], as GPTModel.forward(ids, { attention: true }).attention returns it; with
// { square: false }, every head of every layer the first head's shape (cross-attention).
export function checkModel(element, property, layers, { square = true } = {}) {
  if (!Array.isArray(layers) || layers.length === 0 || !layers.every(Array.isArray)) {
    throw new AttnLabError(`<${element}>.${property} must be Matrix[layer][head], as model.forward(ids, { attention: true }).attention `
      + `returns it; got ${describe(layers)}`);
  }
  const heads = layers[0].length;
  const first = layers[0][0];
  return layers.map((list, l) => {
    if (list.length !== heads) throw new AttnLabError(`<${element}>.${property}[${l}] has ${list.length} head${list.length === 1 ? '' : 's'} but layer 0 has ${heads}`);
    const checked = checkHeads(element, `${property}[${l}]`, list, square ? first?.rows ?? null : null, { square });
    if (!square && (checked[0].rows !== first.rows || checked[0].cols !== first.cols)) {
      throw new AttnLabError(`<${element}>.${property}[${l}] is ${checked[0].rows}×${checked[0].cols} but layer 0 is ${first.rows}×${first.cols}`);
    }
    return checked;
  });
}

// Token labels: null (indices are shown) or one string per token; the count is checked when drawing
// (tokenProblem), since the attention may be set after them.
export function checkTokens(element, list, property = 'tokens') {
  if (list == null) return null;
  if (!Array.isArray(list)) throw new AttnLabError(`<${element}>.${property} must be a list of strings (one per token) or null, got ${describe(list)}`);
  return list.map(String);
}

// `property`: which labels (tokens, keyTokens); `shape`: the attention's rows × cols, as text.
export function tokenProblem(element, tokens, n, { property = 'tokens', shape = `${n}×${n}` } = {}) {
  if (!tokens || tokens.length === n) return null;
  return `<${element}>.${property} has ${tokens.length} label${tokens.length === 1 ? '' : 's'} but the attention is ${shape}`;
}

// An attribute holding a whole-number index below `count` (a head, a layer, a query token), or absent.
// → the problem, described, or null.
export function indexProblem(element, attribute, text, count, what) {
  if (text === null) return null;
  if (!/^\d+$/.test(text)) return `<${element}> ${attribute}="${text}" must be a whole number`;
  if (Number(text) >= count) {
    const noun = count === 1 ? what.replace(/^(\w+)s\b/, '$1') : what;  // "1 layer", "1 head per layer"
    return `<${element}> ${attribute}="${text}" but the attention has ${count} ${noun} (${count === 1 ? 'only 0' : `0 … ${count - 1}`})`;
  }
  return null;
}

export const describe = (value) => (Array.isArray(value) ? `a list of ${value.length}` : value === null ? 'null' : typeof value);
