// Fuzz cases for the tensor calls (issue 31): tensors of 1 to 5 dims, leading dims that broadcast,
// masks and key-padding masks that fit or do not, wrong types. A call that should work is checked
// slice by slice against the Matrix call (itself checked against reference.js in fuzz-cases.js), and
// reshape / permute / transpose against index arithmetic done here.
import { Args, assertFinite, isBoolean, isObject, optional, pickMode } from './fuzz-args.js';
import { container, weird } from './fuzz-inputs.js';

const count = (shape) => shape.reduce((n, d) => n * d, 1);
const sameShape = (a, b) => a.length === b.length && a.every((d, i) => d === b[i]);

// A tensor argument of `shape` with tame numbers: [the value passed, its numbers as float32], or in
// 'bad' mode perhaps a broken one (a wrong type, data of the wrong length, a shape of 0 or 6 dims).
// An optional one (a mask) broken into undefined or null is no mask, which is fine.
function tensorArg(a, r, shape, values = r.numbers(count(shape)), { optional: isOptional = false } = {}) {
  if (a.breaking()) {
    const broken = r.pick([
      () => weird(r),
      () => ({ shape, data: new Float32Array(count(shape) + 1) }),
      () => ({ shape: [], data: new Float32Array(0) }),
      () => ({ shape: [1, 1, 1, 1, 1, 1], data: new Float32Array(1) }),
      () => ({ shape: shape.map((d, i) => (i === 0 ? 0 : d)), data: new Float32Array(0) }),
      () => ({ shape: shape.map((d) => d + 0.5), data: new Float32Array(count(shape)) }),
      () => ({ shape: 'abc', data: new Float32Array(1) }),
    ])();
    if (!(isOptional && (broken === undefined || broken === null))) a.valid = false;
    return [broken, undefined];
  }
  const data = container(r, values);
  return [{ shape, data }, Float32Array.from(data)];
}

// Slice i (row-major over the leading dims) of a tensor whose last two dims are (rows, cols).
function slice(data, i, rows, cols) {
  return { rows, cols, data: data.slice(i * rows * cols, (i + 1) * rows * cols) };
}

// scaledDotProductAttention on (B, H, n, d) tensors: K and V per head or one (n_k, d) for all, a
// (1, 1, n_q, n_k) mask, a (B, n_k) key-padding mask; sometimes one that does not fit.
function attentionTensorCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 6);
  const [B, H, nq, nk, dk, dv] = [r.dim(3), r.dim(3), r.dim(), r.dim(), r.dim(6), r.dim(6)];
  const misfit = mode === 'bad' && r.chance(0.5) ? r.pick(['k', 'v', 'mask', 'padding']) : undefined;
  const shared = r.chance(0.3);  // one K and V for every (batch, head)
  const lead = shared ? [] : [B, H];
  const [q, qIn] = tensorArg(a, r, [B, H, nq, dk]);
  const [k, kIn] = tensorArg(a, r, [...lead, nk, misfit === 'k' ? dk + 1 : dk]);
  const [v, vIn] = tensorArg(a, r, [...lead, misfit === 'v' ? nk + 1 : nk, dv]);
  const options = {};
  let maskIn;
  let padIn;
  if (r.chance(0.5) || misfit === 'mask') {
    const cols = misfit === 'mask' ? nk + 1 : nk;
    [options.mask, maskIn] = tensorArg(a, r, [1, 1, nq, cols], r.mask(nq, cols, 0.7), { optional: true });
  }
  if (r.chance(0.5) || misfit === 'padding') {
    const rows = misfit === 'padding' ? B + 1 : B;
    [options.keyPaddingMask, padIn] = tensorArg(a, r, [rows, nk], r.mask(rows, nk, 0.3), { optional: true });
  }
  if (r.chance(0.4)) options.causal = a.plain(r.chance(0.5), optional(isBoolean));
  // A mask or padding broken into no mask leaves no misfit behind.
  const unfit = misfit === 'mask' ? maskIn !== undefined : misfit === 'padding' ? padIn !== undefined : misfit !== undefined;
  const valid = a.valid && !unfit && (!isObject(options) || optional(isBoolean)(options.causal));
  call({
    fn: 'scaledDotProductAttention', args: [q, k, v, options], run: () => lab.scaledDotProductAttention(q, k, v, options),
    expect: valid ? 'ok' : 'error',
    check: (result) => {
      if (!sameShape(result.output.shape, [B, H, nq, dv])) throw new Error(`output shape ${result.output.shape}`);
      if (!sameShape(result.weights.shape, [B, H, nq, nk])) throw new Error(`weights shape ${result.weights.shape}`);
      assertFinite({ data: result.output.data }, 'output');
      if (!valid) return;
      // Each (b, h) slice against the Matrix call with the masks combined into one n_q × n_k mask.
      for (let s = 0; s < B * H; s++) {
        const b = Math.floor(s / H);
        const mask = { rows: nq, cols: nk, data: new Float32Array(nq * nk).fill(1) };
        for (let i = 0; i < nq * nk; i++) {
          if ((maskIn && maskIn[i] === 0) || (padIn && padIn[b * nk + (i % nk)] === 1)) mask.data[i] = 0;
        }
        const kS = slice(kIn, shared ? 0 : s, nk, dk);
        const vS = slice(vIn, shared ? 0 : s, nk, dv);
        const m = lab.scaledDotProductAttention(slice(qIn, s, nq, dk), kS, vS, { mask, causal: options.causal === true });
        const [w, o] = [slice(result.weights.data, s, nq, nk).data, slice(result.output.data, s, nq, dv).data];
        const off = (x, y) => x.findIndex((value, i) => !(Math.abs(value - y[i]) <= 1e-6 + 1e-6 * Math.abs(y[i])));
        if (off(w, m.weights.data) >= 0) throw new Error(`slice ${s}: weights differ from the Matrix call at ${off(w, m.weights.data)}`);
        if (off(o, m.output.data) >= 0) throw new Error(`slice ${s}: output differs from the Matrix call at ${off(o, m.output.data)}`);
      }
    },
  });
}

// The row-major strides of `shape`, and element `index`'s position.
const strides = (shape) => shape.map((_, d) => count(shape.slice(d + 1)));
const unravel = (p, shape) => strides(shape).map((s, d) => Math.floor(p / s) % shape[d]);

// reshape, permute and transpose: what PyTorch allows works and moves the numbers as its index
// arithmetic says; anything else is refused.
function viewTensorCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 2);
  const rank = r.int(1, 5);
  const shape = Array.from({ length: rank }, () => r.int(1, 4));
  const [t, tIn] = tensorArg(a, r, shape);
  const fn = r.pick(['reshape', 'permute', 'transpose']);
  if (fn === 'reshape') {
    const target = r.chance(0.7) ? [...shape].reverse() : [count(shape) + (r.chance(0.5) ? 1 : 0)];
    if (r.chance(0.3)) target[r.int(0, target.length - 1)] = -1;
    const arg = a.plain(target, Array.isArray);  // may become another array (['a'], [3], [])
    const sizes = Array.isArray(arg) && arg.length >= 1 && arg.length <= 5 && arg.every((d) => Number.isInteger(d) && (d >= 1 || d === -1));
    const infer = sizes && arg.filter((d) => d === -1).length === 1;
    const known = sizes ? count(arg.filter((d) => d !== -1)) : 0;
    const fits = sizes && arg.filter((d) => d === -1).length <= 1 && (infer ? count(shape) % known === 0 : known === count(shape));
    call({
      fn, args: [t, arg], run: () => lab.reshape(t, arg), expect: a.valid && fits ? 'ok' : 'error',
      check: (result) => {
        const expected = arg.map((d) => (d === -1 ? count(shape) / known : d));
        if (!sameShape(result.shape, expected)) throw new Error(`shape ${result.shape}, expected ${expected}`);
        if (result.data.some((x, i) => !Object.is(x, tIn[i]))) throw new Error('reshape moved a number');
      },
    });
    return;
  }
  const drawn = fn === 'permute'
    ? (r.chance(0.8) ? shuffle(r, [...shape.keys()]) : [...shape.keys()].map(() => r.int(0, rank)))
    : [r.int(-rank, rank), r.int(-rank, rank)];
  const dims = a.plain(drawn, Array.isArray);  // may become another array, or not an array
  const integers = Array.isArray(dims) && dims.every(Number.isInteger);
  const fits = integers && (fn === 'permute'
    ? dims.length === rank && new Set(dims).size === rank && dims.every((d) => d >= 0 && d < rank)
    : dims.length === 2 && dims.every((d) => d >= -rank && d < rank));
  const order = !fits ? [] : fn === 'permute' ? dims : swap([...shape.keys()], ...dims.map((d) => (d < 0 ? d + rank : d)));
  // permute with negative dims (PyTorch allows them) is left to the core: either outcome.
  const negative = fn === 'permute' && integers && dims.some((d) => d < 0);
  call({
    fn, args: [t, dims],
    run: () => (fn === 'permute' ? lab.permute(t, dims) : lab.transpose(t, ...(Array.isArray(dims) ? dims : [dims, dims]))),
    expect: a.valid && fits ? 'ok' : negative || (fn === 'transpose' && !Array.isArray(dims)) ? 'either' : 'error',
    check: (result) => {
      if (!a.valid || !fits) return;
      const expected = order.map((d) => shape[d]);
      if (!sameShape(result.shape, expected)) throw new Error(`shape ${result.shape}, expected ${expected}`);
      const from = strides(shape);
      for (let p = 0; p < result.data.length; p++) {
        const index = unravel(p, expected);
        const source = order.reduce((at, d, n) => at + index[n] * from[d], 0);
        if (!Object.is(result.data[p], tIn[source])) throw new Error(`element ${p} is not the source's element ${source}`);
      }
    },
  });
}

function shuffle(r, items) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

function swap(items, i, j) {
  [items[i], items[j]] = [items[j], items[i]];
  return items;
}

export const tensorCases = [attentionTensorCase, attentionTensorCase, viewTensorCase];
