// Tensors in the tutorials' shapes: { shape: number[], data: Float32Array }, row-major, 1 to 5 dims —
// x (batch, seq, d_model) = (2, 4, 8), weights (batch, heads, n_q, n_k). A Matrix { rows, cols, data }
// is accepted wherever a tensor is, as the 2-D tensor (rows, cols). Here: the JS-side checks (types,
// sizes, data length), so that the core gets well-formed tensors; the checks that relate shapes to each
// other (broadcasting, d_k matching) are the core's, whose messages name the shapes the same way.
import {
  attendFromBlocked, checkBoolean, checkFloat32, checkOneOf, checkOptions, checkSeed, checkSize, describe, fail, toFloat32,
} from './checks.js';

export const MAX_TENSOR_RANK = 5;

// "(2, 4, 8)", "(4,)": Python's tuple notation, as torch.Size prints and the core's messages write.
export function shapeText(shape) {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
}

// A tensor argument, not a Matrix: an object with a shape.
export function isTensor(value) {
  return value !== null && typeof value === 'object' && 'shape' in value;
}

export function checkShape(fn, name, shape) {
  if (!Array.isArray(shape)) fail(fn, `${name} must be an array of dim sizes such as [2, 4, 8], got ${describe(shape)}`);
  if (shape.length < 1 || shape.length > MAX_TENSOR_RANK) {
    fail(fn, `${name} ${shapeText(shape)} has ${shape.length} dims; a tensor has 1 to ${MAX_TENSOR_RANK}`);
  }
  shape.forEach((size, d) => checkSize(fn, `${name}[${d}]`, size));
  return [...shape];
}

export const elementCount = (shape) => shape.reduce((count, size) => count * size, 1);

// A tensor (or a Matrix, as its 2-D tensor) checked and converted: { shape, data: Float32Array }.
// Each property is read once, so a getter cannot hand the core other values than the ones checked.
export function checkTensor(fn, name, t) {
  if (t === null || typeof t !== 'object') fail(fn, `${name} must be a tensor { shape, data } or a Matrix, got ${describe(t)}`);
  if (!isTensor(t)) {
    const { rows, cols, data } = t;
    if (rows === undefined && cols === undefined) fail(fn, `${name} must be a tensor { shape, data } or a Matrix { rows, cols, data }, got an object without shape or rows`);
    return checkTensor(fn, name, { shape: [rows, cols], data });
  }
  const { shape: given, data: values } = t;
  const shape = checkShape(fn, `${name}.shape`, given);
  const data = toFloat32(fn, `${name}.data`, values);
  const count = elementCount(shape);
  if (data.length !== count) fail(fn, `${name}.data has ${data.length} values but ${name} is ${shapeText(shape)} (${count} values)`);
  return { shape, data };
}

// A dim index as PyTorch takes it: 0 … rank − 1, or negative counting from the end.
export function checkDim(fn, name, dim) {
  if (typeof dim !== 'number' || !Number.isInteger(dim)) fail(fn, `${name} must be an integer, got ${describe(dim)}`);
  return dim;
}

// A list of integers (a permutation, or a shape that may hold one −1).
export function checkIntegers(fn, name, list) {
  if (!Array.isArray(list)) fail(fn, `${name} must be an array of integers, got ${describe(list)}`);
  list.forEach((n, i) => checkDim(fn, `${name}[${i}]`, n));
  return [...list];
}

// Whether a call takes its tensor form: a tensor among the inputs, or a tensor mask or key-padding mask.
export function usesTensors(inputs, options) {
  if (inputs.some(isTensor)) return true;
  if (options === null || typeof options !== 'object') return false;
  return isTensor(options.mask) || options.keyPaddingMask !== undefined;
}

// The named inputs checked in order ({ q, k, v }); an object passed twice is checked (and converted) once.
export function checkTensors(fn, named) {
  const seen = new Map();
  return Object.entries(named).map(([name, value]) => {
    if (!seen.has(value)) seen.set(value, checkTensor(fn, name, value));
    return seen.get(value);
  });
}

// { mask?, maskKind?, causal?, keyPaddingMask? } as the core takes them, plus what the caller allows:
// scale, dropout, weights and seed for scaledDotProductAttention, averageWeights, weights and seed for
// multi-head attention (weights: false returns { output } alone, computed with the online softmax).
// mask: 1 = may attend (maskKind 'binary', the default), 1 = blocked (maskKind 'block', PyTorch's bool
// attn_mask: turned here into the first kind) or added to the scores (maskKind 'additive', torch's float
// attn_mask, −Infinity blocks); keyPaddingMask (batch, n_k): 1 = PAD, as PyTorch's.
export function tensorOptions(fn, options, allowed) {
  // out is named so that its message below says why the tensor form refuses it.
  const opts = checkOptions(fn, options, ['mask', 'maskKind', 'causal', 'keyPaddingMask', 'out', ...allowed]);
  if (opts.out !== undefined) fail(fn, 'out (Float32Arrays to write into) is for the Matrix form of this call; the tensor form returns new tensors');
  const out = {};
  const kind = checkOneOf(fn, 'maskKind', opts.maskKind ?? 'binary', ['binary', 'block', 'additive']);
  if (opts.mask !== undefined && opts.mask !== null) {
    const mask = checkTensor(fn, 'mask', opts.mask);
    out.mask = kind === 'block' ? { ...mask, data: attendFromBlocked(fn, mask.data) } : mask;
  }
  if (opts.keyPaddingMask !== undefined && opts.keyPaddingMask !== null) {
    out.keyPaddingMask = checkTensor(fn, 'keyPaddingMask', opts.keyPaddingMask);
  }
  if (opts.maskKind !== undefined) out.maskKind = kind === 'block' ? 'binary' : kind;
  if (opts.causal !== undefined) out.causal = checkBoolean(fn, 'causal', opts.causal);
  if (opts.scale !== undefined) out.scale = checkFloat32(fn, 'scale', opts.scale);
  if (opts.dropout !== undefined) out.dropout = checkFloat32(fn, 'dropout', opts.dropout);
  if (opts.averageWeights !== undefined) out.averageWeights = checkBoolean(fn, 'averageWeights', opts.averageWeights);
  if (opts.weights !== undefined) out.weights = checkBoolean(fn, 'weights', opts.weights);
  if (opts.seed !== undefined) out.seed = checkSeed(fn, opts.seed);
  return out;
}
