// Argument checks done in JS before anything reaches wasm: types, integer sizes, data lengths.
// (Shapes that depend on each other, and NaN/±Inf, are checked by the C++ core.)
import { AttnLabError } from './errors.js';

export function fail(fn, message) {
  throw new AttnLabError(`${fn}: ${message}`);
}

export function checkSize(fn, name, value, { min = 1 } = {}) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 0x7fffffff) {
    fail(fn, `${name} must be an integer ≥ ${min}, got ${describe(value)}`);
  }
  return value;
}

export function checkSeed(fn, value) {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    fail(fn, `seed must be a non-negative safe integer, got ${describe(value)}`);
  }
  return value;
}

export function checkNumber(fn, name, value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(fn, `${name} must be a finite number, got ${describe(value)}`);
  return value;
}

export function checkBoolean(fn, name, value) {
  if (typeof value !== 'boolean') fail(fn, `${name} must be a boolean, got ${describe(value)}`);
  return value;
}

export function checkOneOf(fn, name, value, allowed) {
  if (!allowed.includes(value)) {
    fail(fn, `${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describe(value)}`);
  }
  return value;
}

// A Matrix is { rows, cols, data } with data a Float32Array (or plain number array) of rows·cols values.
export function checkMatrix(fn, name, m) {
  if (m === null || typeof m !== 'object') fail(fn, `${name} must be a Matrix { rows, cols, data }, got ${describe(m)}`);
  checkSize(fn, `${name}.rows`, m.rows);
  checkSize(fn, `${name}.cols`, m.cols);
  const data = toFloat32(fn, `${name}.data`, m.data);
  if (data.length !== m.rows * m.cols) {
    fail(fn, `${name}.data has ${data.length} values but ${name} is ${m.rows}×${m.cols} (${m.rows * m.cols} values)`);
  }
  return { rows: m.rows, cols: m.cols, data };
}

// Weight vectors may be Float32Array or plain number arrays.
export function toFloat32(fn, name, data) {
  if (data instanceof Float32Array) return data;
  if (Array.isArray(data) || ArrayBuffer.isView(data)) {
    for (let i = 0; i < data.length; i++) {
      if (typeof data[i] !== 'number') fail(fn, `${name}[${i}] is not a number (${describe(data[i])})`);
    }
    return Float32Array.from(data);
  }
  return fail(fn, `${name} must be a Float32Array or an array of numbers, got ${describe(data)}`);
}

export function checkVector(fn, name, v, length) {
  const data = toFloat32(fn, name, v);
  if (length !== undefined && data.length !== length) fail(fn, `${name} has ${data.length} values but must have ${length}`);
  return data;
}

export function checkOptions(fn, options) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') fail(fn, `options must be an object, got ${describe(options)}`);
  return options;
}

// { mask?: Matrix, causal?: boolean, weights?: boolean } as the core takes them. weights: false asks
// for the output alone (no n×n weight matrices copied out).
export function maskOptions(fn, options) {
  const opts = checkOptions(fn, options);
  const out = {};
  if (opts.mask !== undefined && opts.mask !== null) out.mask = checkMatrix(fn, 'mask', opts.mask);
  if (opts.causal !== undefined) out.causal = checkBoolean(fn, 'causal', opts.causal);
  if (opts.weights !== undefined) out.weights = checkBoolean(fn, 'weights', opts.weights);
  return out;
}

export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of ${value.length}`;
  return `a ${value.constructor?.name ?? typeof value}`;
}
