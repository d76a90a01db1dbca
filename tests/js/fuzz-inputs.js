// Random inputs for the fuzz test: a seeded generator, numbers (tame and wild), matrices in every
// container the API accepts, and values of every other kind (wrong types, detached buffers, …).
// Everything is drawn from one mulberry32 stream, so a seed reproduces a whole run.

// mulberry32 (Tommy Ettinger): a 32-bit state, uniform floats in [0, 1).
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Random {
  constructor(seed) {
    this.next = mulberry32(seed);
  }

  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p) {
    return this.next() < p;
  }

  pick(items) {
    return items[Math.floor(this.next() * items.length)];
  }

  normal() {  // Box–Muller
    return Math.sqrt(-2 * Math.log(1 - this.next())) * Math.cos(2 * Math.PI * this.next());
  }

  // A small dimension, now and then a larger one.
  dim(max = 5) {
    return this.chance(0.9) ? this.int(1, max) : this.int(max + 1, 4 * max);
  }

  // n numbers. 'tame': normals at a few scales with zeros, −0 and subnormals among them; 'wild' adds
  // NaN, ±Infinity and values near float32's limit (or beyond: 1e300 rounds to Infinity).
  numbers(n, profile = 'tame') {
    const scale = this.pick([1, 1, 0.5, 2, 5]);
    return Array.from({ length: n }, () => {
      if (profile === 'wild' && this.chance(0.15)) return this.pick([NaN, Infinity, -Infinity, 3e38, -3e38, 1e20, 1e300, -1e-300]);
      if (this.chance(0.05)) return this.pick([0, -0, 1e-40, -1e-42, 1.4e-45, Number.MIN_VALUE]);
      return this.normal() * scale;
    });
  }

  mask(rows, cols, pAttend = 0.7) {
    return Array.from({ length: rows * cols }, () => (this.chance(pAttend) ? 1 : 0));
  }
}

// Descriptions for values that print misleadingly (a detached array prints as empty).
const labels = new WeakMap();
const labelled = (value, label) => {
  labels.set(value, label);
  return value;
};

export function detached(Type, length) {
  const array = new Type(length);
  structuredClone(array.buffer, { transfer: [array.buffer] });
  return labelled(array, `detached ${Type.name}(${length})`);
}

function outOfBounds(Type, length) {
  const buffer = new ArrayBuffer(length * Type.BYTES_PER_ELEMENT, { maxByteLength: 4 * length * Type.BYTES_PER_ELEMENT });
  const array = new Type(buffer, 0, length);
  buffer.resize(0);
  return labelled(array, `out-of-bounds ${Type.name}(${length})`);
}

// A value of some other type than the argument wants; fresh each call (a transfer consumes a buffer).
export function weird(r) {
  return r.pick([
    () => undefined, () => null, () => true, () => false, () => 0, () => -0, () => -1, () => 1.5, () => NaN,
    () => Infinity, () => -Infinity, () => 2 ** 31, () => 2 ** 53, () => 1e300, () => Number.MIN_VALUE, () => '',
    () => 'abc', () => '3', () => 'x'.repeat(100), () => Symbol('fuzz'), () => 3n, () => labelled(() => 3, 'a function'),
    () => ({}), () => [], () => [3], () => ['a'], () => new Map(), () => new Date(0), () => Object.create(null),
    () => new Number(3), () => new String('abc'), () => /re/, () => new Float32Array(3), () => new Float64Array(2),
    () => new Int8Array(1), () => new BigInt64Array(2), () => new DataView(new ArrayBuffer(8)),
    () => detached(Float32Array, 4), () => new ArrayBuffer(8), () => Promise.resolve(1), () => new Proxy({}, {}),
    () => labelled(Object.create(Float32Array.prototype), 'an object whose prototype is Float32Array.prototype'),
    () => ({ valueOf: () => 3 }), () => new Error('not an argument'),
  ])();
}

// `values` (numbers) in a container the API accepts; masks (integers) may also come as integer arrays.
export function container(r, values, { integers = false } = {}) {
  const kinds = ['f32', 'f32', 'f32', 'array', 'f64', 'subarray', 'shared'];
  if (integers) kinds.push('i8', 'u8', 'u8clamped');
  switch (r.pick(kinds)) {
    case 'array': return r.chance(0.2) ? Object.freeze([...values]) : [...values];
    case 'f64': return Float64Array.from(values);
    case 'subarray': {
      const host = new Float32Array(values.length + 3);
      host.set(values, 2);
      return host.subarray(2, 2 + values.length);
    }
    case 'shared': {
      const shared = new Float32Array(new SharedArrayBuffer(4 * values.length));
      shared.set(values);
      return shared;
    }
    case 'i8': return Int8Array.from(values);
    case 'u8': return Uint8Array.from(values);
    case 'u8clamped': return Uint8ClampedArray.from(values);
    default: return Float32Array.from(values);
  }
}

// A valid Matrix object in one of several forms: plain, with extra properties, with getters (one
// that answers differently after its first read), behind a Proxy, a class instance.
export function matrixObject(r, rows, cols, data) {
  switch (r.int(0, 7)) {
    case 0: return { rows, cols, data, name: 'extra properties are ignored' };
    case 1: return { get rows() { return rows; }, get cols() { return cols; }, get data() { return data; } };
    case 2: {
      let reads = 0;
      return labelled({ get rows() { reads++; return reads === 1 ? rows : 'changed'; }, cols, data },
        `{ rows: ${rows} on the first read, then 'changed', cols: ${cols}, data: ${show(data)} }`);
    }
    case 3: return new Proxy({ rows, cols, data }, {});
    case 4: return new (class Tensor { constructor() { Object.assign(this, { rows, cols, data }); } })();
    default: return { rows, cols, data };
  }
}

// What a broken Matrix argument can look like (none of these is a valid Matrix of rows×cols).
export function brokenMatrix(r, rows, cols) {
  const n = rows * cols;
  const ok = Float32Array.from({ length: n }, () => r.normal());
  switch (r.int(0, 5)) {
    case 0: return weird(r);
    case 1: return { rows: weird(r), cols, data: ok };
    case 2: return { rows, cols: weird(r), data: ok };
    case 3: return { rows, cols, data: brokenData(r, n) };
    case 4: return { rows, cols, data: new Float32Array(r.chance(0.5) ? n + 1 : n - 1) };
    default: return { cols, data: ok };
  }
}

export function brokenData(r, n) {
  return r.pick([
    () => undefined, () => null, () => 'abc', () => ({ length: n }), () => new ArrayBuffer(4 * n),
    () => Array.from({ length: n }, (_, i) => (i === n - 1 ? r.pick(['1', null, undefined, true, {}, [1], 1n, Symbol('x')]) : 1)),
    () => labelled(new Array(n), `a sparse array of ${n}`), () => Array.from({ length: n }, () => [1]),
    () => new BigInt64Array(n), () => new BigUint64Array(n), () => new DataView(new ArrayBuffer(4 * n)),
    () => detached(Float32Array, n), () => detached(Float64Array, n), () => detached(Uint8Array, n),
    () => outOfBounds(Float32Array, n), () => outOfBounds(Int16Array, n),
    () => labelled(Object.create(Float32Array.prototype), 'an object whose prototype is Float32Array.prototype'),
    () => Symbol('data'), () => labelled(() => [1], 'a function'), () => new Set([1]),
  ])();
}

// A one-line description of any value, for the failure message (never throws).
export function show(value, depth = 0) {
  try {
    if (labels.has(value)) return labels.get(value);
    if (typeof value === 'symbol' || typeof value === 'bigint') return typeof value === 'bigint' ? `${value}n` : String(value);
    if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
    if (typeof value === 'function') return 'a function';
    if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
    if (value === null || typeof value !== 'object') return String(value);
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const shown = Array.from(value.slice(0, 16), (x) => show(x)).join(', ');
      return `${value.constructor.name}(${value.length}) [${shown}${value.length > 16 ? ', …' : ''}]`;
    }
    if (Array.isArray(value)) {
      if (depth > 2) return `[array of ${value.length}]`;
      const shown = Array.from({ length: Math.min(value.length, 16) }, (_, i) => (i in value ? show(value[i], depth + 1) : '<hole>'));
      return `[${shown.join(', ')}${value.length > 16 ? `, … (${value.length})` : ''}]`;
    }
    if (depth > 2) return '{…}';
    const name = value.constructor?.name;
    const prefix = name && name !== 'Object' ? `${name} ` : '';
    if (Object.getPrototypeOf(value) === Object.prototype || prefix.startsWith('Tensor')) {
      return `${prefix}{ ${Object.keys(value).map((k) => `${k}: ${show(value[k], depth + 1)}`).join(', ')} }`;
    }
    return `a ${name ?? 'null-prototype object'}`;
  } catch (e) {
    return `<unprintable: ${e.message}>`;
  }
}
