// Argument building for the fuzz cases: which arguments are valid, a case's mode (valid, one bad
// argument, wild values, huge sizes), and checks of results against references.
import { brokenMatrix, container, matrixObject, weird } from './fuzz-inputs.js';

export const isSize = (v, min = 1) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= 0x7fffffff;
export const isSeed = (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
export const isBoolean = (v) => typeof v === 'boolean';
export const isObject = (v) => v !== null && typeof v === 'object';
// Options are undefined or an object (not an array) whose own keys the call takes: a stand-in drawn by
// plain() has none of those, so it is valid only with no own keys at all (a typed array's indices and
// a String object's characters are unknown options).
export const isOptions = (v) => v === undefined || (isObject(v) && !Array.isArray(v) && Object.keys(v).length === 0);
export const optional = (isValid) => (v) => v === undefined || isValid(v);
export const isFloat32 = (v) => typeof v === 'number' && Number.isFinite(Math.fround(v));
export const oneOf = (...allowed) => (v) => allowed.includes(v);

// valid ×3, one bad argument ×2, wild values, huge sizes.
export const pickMode = (r) => r.pick(['valid', 'valid', 'valid', 'bad', 'bad', 'wild', 'huge']);

// Two sizes whose product is far over any budget (≥ 2^32 floats), or one size that is on its own.
export const hugePair = (r) => [r.pick([2 ** 16, 2 ** 20, 0x7fffffff]), r.pick([2 ** 16, 2 ** 24, 0x7fffffff])];
export const hugeOne = (r) => r.pick([2 ** 28, 2 ** 30, 0x7fffffff]);

// How a case's numbers stand: NaN or ±Inf in an input must be refused ('error'); values near
// float32's limit may overflow inside ('either'); anything else must work ('ok').
export function grade(values, { negativeInfinityOk = false } = {}) {
  let grade = 'ok';
  for (const x of values) {
    if (Number.isNaN(x) || x === Infinity || (x === -Infinity && !negativeInfinityOk)) return 'error';
    if (Math.abs(x) > 1e15 && Number.isFinite(x)) grade = 'either';
  }
  return grade;
}

export const worst = (...grades) => (grades.includes('error') ? 'error' : grades.includes('either') ? 'either' : 'ok');

// The arguments of one call. In 'bad' mode exactly one of the `slots` arguments is broken: a plain
// argument replaced by a value of another kind (still valid if `isValid` accepts it), a Matrix by one
// of brokenMatrix's shapes. `valid` says whether every argument is acceptable on its own.
export class Args {
  constructor(r, mode, slots) {
    this.r = r;
    this.mode = mode;
    this.target = mode === 'bad' ? r.int(0, slots - 1) : -1;
    this.index = 0;
    this.valid = true;
    this.grades = [];
  }

  breaking() {
    return this.index++ === this.target;
  }

  plain(value, isValid) {
    if (!this.breaking()) return value;
    const replaced = this.r.pick([weird(this.r), undefined, null]);
    if (!isValid(replaced)) this.valid = false;
    return replaced;
  }

  // A rows×cols Matrix argument: [the value passed, its numbers as float32 (undefined when broken)].
  // An optional one (a mask) may be broken into undefined or null, which is no mask; one whose
  // undefined means a default (MultiHeadAttention.forward's key and value) is broken into null instead.
  matrix(rows, cols, { values, integers = false, negativeInfinityOk = false, optional = false, defaulted = false } = {}) {
    if (this.breaking()) {
      let broken = brokenMatrix(this.r, rows, cols);
      if (defaulted && broken === undefined) broken = null;
      if (!(optional && (broken === undefined || broken === null))) this.valid = false;
      return [broken, undefined];
    }
    const numbers = values ?? this.r.numbers(rows * cols, this.mode === 'wild' ? 'wild' : 'tame');
    const data = container(this.r, numbers, { integers });
    const f32 = Float32Array.from(data);
    this.grades.push(grade(f32, { negativeInfinityOk }));
    return [matrixObject(this.r, rows, cols, data), { rows, cols, data: f32 }];
  }

  // 'error' when an argument is bad, else how the numbers stand.
  expectation(...more) {
    return this.valid ? worst(...this.grades, ...more) : 'error';
  }
}

// ---- result checks (each throws an Error naming what is wrong) ----

export function assertMatrix(m, rows, cols, what = 'result') {
  if (m === null || typeof m !== 'object') throw new Error(`${what} is not a Matrix: ${m}`);
  if (m.rows !== rows || m.cols !== cols) throw new Error(`${what} is ${m.rows}×${m.cols}, expected ${rows}×${cols}`);
  if (!(m.data instanceof Float32Array)) throw new Error(`${what}.data is not a Float32Array`);
  if (m.data.length !== rows * cols) throw new Error(`${what}.data has ${m.data.length} values, expected ${rows * cols}`);
}

export function assertFinite(m, what = 'result') {
  const i = m.data.findIndex((x) => !Number.isFinite(x));
  if (i >= 0) throw new Error(`${what} has ${m.data[i]} at (${Math.floor(i / m.cols)}, ${i % m.cols})`);
}

// |actual − expected| ≤ tolerance(i) for every entry (−Infinity must match exactly).
export function assertNear(actual, expected, tolerance, what = 'result') {
  assertMatrix(actual, expected.rows, expected.cols, what);
  for (let i = 0; i < expected.data.length; i++) {
    const [a, e] = [actual.data[i], expected.data[i]];
    const tol = typeof tolerance === 'function' ? tolerance(i) : tolerance;
    if (a === e || Math.abs(a - e) <= tol) continue;
    throw new Error(`${what} (${Math.floor(i / expected.cols)}, ${i % expected.cols}) is ${a}, expected ${e} (± ${tol.toExponential(2)})`);
  }
}

// Rows of attention weights: each in [0, 1], summing to 1 (or all 0 when every key is blocked).
export function assertWeightRows(w, what = 'weights') {
  for (let i = 0; i < w.rows; i++) {
    const row = w.data.subarray(i * w.cols, (i + 1) * w.cols);
    if (row.some((x) => !(x >= 0 && x <= 1 + 1e-6))) throw new Error(`${what} row ${i} has an entry outside [0, 1]: ${row}`);
    const sum = row.reduce((s, x) => s + x, 0);
    if (!(Math.abs(sum - 1) < 1e-4 || sum === 0)) throw new Error(`${what} row ${i} sums to ${sum}`);
  }
}

// A trace: steps { id, title, explanation, tensors: { name: Matrix } }; returns them by id.
export function assertSteps(steps, ids) {
  if (!Array.isArray(steps)) throw new Error(`the trace is not an array: ${steps}`);
  if (ids && steps.map((s) => s.id).join() !== ids.join()) throw new Error(`the steps are ${steps.map((s) => s.id)}, expected ${ids}`);
  const byId = new Map();
  for (const step of steps) {
    for (const key of ['id', 'title', 'explanation']) {
      if (typeof step[key] !== 'string' || step[key] === '') throw new Error(`step ${step.id}: ${key} is ${step[key]}`);
    }
    for (const [name, m] of Object.entries(step.tensors)) assertMatrix(m, m.rows, m.cols, `step ${step.id}: ${name}`);
    byId.set(step.id, step);
  }
  return byId;
}

// Attention results against the double-precision reference: float32 rounding makes score (i, j) off by
// up to ~(d_k + 2)·2^-24·Σ_t|q_it·k_jt| (the reference's magnitudes), a row of weights by twice its
// worst scaled-score error, and the output by that times the values summed over the keys.
export function assertAttention(result, expected, q, v, what = '') {
  const { scale, magnitudes } = expected;
  const nk = expected.weights.cols;
  const scoreTol = (i) => 1e-6 * (q.cols + 2) * magnitudes.data[i] + 1e-37;
  const scaledTol = (i) => Math.abs(scale) * scoreTol(i) + 1e-7 * Math.abs(scale * expected.scores.data[i]);
  if (result.scores) assertNear(result.scores, expected.scores, scoreTol, `${what}scores`);
  if (result.scaledScores) {
    const scaled = { ...expected.scores, data: expected.scores.data.map((x) => x * scale) };
    assertNear(result.scaledScores, scaled, scaledTol, `${what}scaledScores`);
  }
  if (result.maskedScores) assertNear(result.maskedScores, expected.masked, scaledTol, `${what}maskedScores`);
  const rowTol = Array.from({ length: expected.weights.rows }, (_, i) => {
    let worstScore = 0;
    for (let j = 0; j < nk; j++) worstScore = Math.max(worstScore, scaledTol(i * nk + j));
    return 1e-5 + 2 * worstScore;
  });
  if (result.weights) assertNear(result.weights, expected.weights, (i) => rowTol[Math.floor(i / nk)], `${what}weights`);
  const valueSums = Array.from({ length: v.cols }, (_, c) => {
    let sum = 0;
    for (let j = 0; j < v.rows; j++) sum += Math.abs(v.data[j * v.cols + c]);
    return sum;
  });
  assertNear(result.output, expected.output, (i) => rowTol[Math.floor(i / v.cols)] * valueSums[i % v.cols] + 1e-37, `${what}output`);
}
