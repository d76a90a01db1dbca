// Argument checks done in JS before anything reaches wasm: types, integer sizes, data lengths.
// (Shapes that depend on each other, and NaN/±Inf, are checked by the C++ core.)
import { AttnLabError } from './errors.js';
import { nearestName, refuseUnknownNames } from './option-names.js';

export function fail(fn, message) {
  throw new AttnLabError(`${fn}: ${message}`);
}

export function checkSize(fn, name, value, { min = 1 } = {}) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    fail(fn, `${name} must be an integer ≥ ${min}, got ${describe(value)}`);
  }
  if (value > 0x7fffffff) fail(fn, `${name} must be at most 2147483647 (2^31 − 1), got ${value}`);
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

// A number the core takes as a float: finite after rounding to float32 (1e300 would become Infinity).
export function checkFloat32(fn, name, value) {
  checkNumber(fn, name, value);
  if (!Number.isFinite(Math.fround(value))) fail(fn, `${name} must be within float32's range (±3.4028235e38), got ${value}`);
  return value;
}

export function checkBoolean(fn, name, value) {
  if (typeof value !== 'boolean') fail(fn, `${name} must be a boolean, got ${describe(value)}`);
  return value;
}

// Lone UTF-16 surrogates become U+FFFD, as TextEncoder makes them: the wasm side's UTF-8 encoder
// would pair a lone high surrogate with whatever follows it ('a\uD800b' became 'a\u{10062}').
export function wellFormed(text) {
  return text.replace(/\p{Cs}/gu, '\uFFFD');
}

export function checkOneOf(fn, name, value, allowed) {
  if (!allowed.includes(value)) {
    fail(fn, `${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describe(value)}`);
  }
  return value;
}

// A Matrix is { rows, cols, data } with data rows·cols numbers (see toFloat32).
// Each property is read once, so a getter cannot hand the core other values than the ones checked.
export function checkMatrix(fn, name, m) {
  if (m === null || typeof m !== 'object') fail(fn, `${name} must be a Matrix { rows, cols, data }, got ${describe(m)}`);
  const { rows, cols, data: values } = m;
  checkSize(fn, `${name}.rows`, rows);
  checkSize(fn, `${name}.cols`, cols);
  const data = toFloat32(fn, `${name}.data`, values);
  if (data.length !== rows * cols) {
    fail(fn, `${name}.data has ${data.length} values but ${name} is ${rows}×${cols} (${rows * cols} values)`);
  }
  return { rows, cols, data };
}

// The brand check behind %TypedArray%.prototype[Symbol.toStringTag]: 'Float32Array', 'Int8Array', …
// for a typed array (from any realm), undefined for anything else (a DataView, or an object whose
// prototype is Float32Array.prototype but which has no typed array inside).
const typedArrayName = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype), Symbol.toStringTag).get;
const typedArrayValues = Object.getPrototypeOf(Int8Array.prototype).values;

// A typed array whose ArrayBuffer was transferred (postMessage, structuredClone with transfer) reads
// as empty and throws a TypeError when iterated; so does one whose resizable buffer shrank below it.
function checkReadable(fn, name, view, kind) {
  try {
    typedArrayValues.call(view);
  } catch {
    let detached;
    try {
      new Uint8Array(view.buffer);  // throws only for a detached buffer
      detached = false;
    } catch {
      detached = true;
    }
    fail(fn, detached
      ? `${name} is ${article(kind)} whose ArrayBuffer has been detached (transferred, e.g. to a worker), so it has no values to read`
      : `${name} is ${article(kind)} that lies outside its ArrayBuffer (the resizable buffer was shrunk)`);
  }
}

// Weight vectors may be Float32Array, another typed array of numbers, or a plain number array.
export function toFloat32(fn, name, data) {
  const kind = typedArrayName.call(data);
  if (kind !== undefined) {
    checkReadable(fn, name, data, kind);
    if (kind === 'Float32Array') return data;
    if (kind.startsWith('Big')) fail(fn, `${name} is ${article(kind)}: it holds BigInts, not numbers`);
    return new Float32Array(data);
  }
  if (Array.isArray(data)) {
    for (let i = 0; i < data.length; i++) {
      if (typeof data[i] !== 'number') fail(fn, `${name}[${i}] is not a number (${describe(data[i])})`);
    }
    return Float32Array.from(data);
  }
  return fail(fn, `${name} must be a Float32Array or an array of numbers, got ${describe(data)}`);
}

// options.out: Float32Arrays the call writes its result matrices into instead of new arrays (a loop
// that calls every frame then allocates nothing for them). `shapes` maps each matrix the call returns
// to [rows, cols] (with opts.weights false, only some). The checked arrays go to the core as opts.out.
export function addOutArrays(fn, options, opts, shapes) {
  const out = options?.out;
  if (out === undefined) return;
  if (out === null || typeof out !== 'object') fail(fn, `out must be an object of Float32Arrays, got ${describe(out)}`);
  const because = opts.weights === false ? ' with weights: false' : '';
  const arrays = {};
  const taken = new Map();  // array → the name it was given under
  for (const [name, array] of Object.entries(out)) {
    if (array === undefined) continue;
    if (!Object.hasOwn(shapes, name)) {
      const near = nearestName(name, Object.keys(shapes));
      fail(fn, `out.${name}: this call returns ${Object.keys(shapes).join(', ')}${because}, not ${name}` +
        (near ? ` — did you mean "${near}"?` : ''));
    }
    const kind = typedArrayName.call(array);
    if (kind !== 'Float32Array') fail(fn, `out.${name} must be a Float32Array, got ${describe(array)}`);
    checkReadable(fn, `out.${name}`, array, kind);
    const [rows, cols] = shapes[name];
    if (array.length !== rows * cols) {
      fail(fn, `out.${name} has ${array.length} values but ${name} is ${rows}×${cols} (${rows * cols} values)`);
    }
    if (taken.has(array)) fail(fn, `out.${name} is the same array as out.${taken.get(array)}`);
    taken.set(array, name);
    arrays[name] = array;
  }
  opts.out = arrays;
}

export function checkVector(fn, name, v, length) {
  const data = toFloat32(fn, name, v);
  if (length !== undefined && data.length !== length) fail(fn, `${name} has ${data.length} values but must have ${length}`);
  return data;
}

// options: undefined or an object whose every key is one of `accepted`, the names the call reads; a
// misspelt one ("casual") is refused with the nearest name, never ignored. `what` names the argument
// in the messages ('options', 'config').
export function checkOptions(fn, options, accepted, what = 'options') {
  if (!Array.isArray(accepted)) throw new TypeError(`checkOptions(${fn}): the names the call accepts are required`);
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    fail(fn, `${what} must be an object, got ${describe(options)}`);
  }
  refuseUnknownNames(fn, options, accepted, what === 'options' ? 'option' : `${what} field`);
  return options;
}

// An object inside the options (ablate[0], metric, a patch, a part of the weights): checked as the options
// are, so that { layer: 1, haed: 0 } says 'ablate[0]: unknown field "haed" — did you mean "head"?' rather
// than that head is undefined, and a misspelt optional field (a bias) is not dropped without a word.
// `where` names it in the messages.
export function checkFields(fn, where, value, accepted) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fail(fn, `${where} must be an object { ${accepted.join(', ')} }, got ${describe(value)}`);
  }
  refuseUnknownNames(`${fn}: ${where}`, value, accepted, 'field');
  return value;
}

// For a call that takes no options: its arguments past its own (a rest parameter), refused if any is
// given. model.session({ maxLen: 10 }) or tokenizer.encode(text, { allowed_special: 'all' }) would
// otherwise look as if they set something and set nothing. `takes` names the call's own arguments, for
// the message. An undefined is no argument (a wrapper passing its own optional argument on).
export function noMoreArguments(fn, extra, takes = []) {
  const given = extra.find((value) => value !== undefined);
  if (given === undefined) return;
  if (isPlainObject(given)) {
    const keys = Object.keys(given);
    fail(fn, `takes no options, got ${keys.length ? `{ ${keys.join(', ')} }` : '{}'}`);
  }
  fail(fn, takes.length ? `takes ${takes.join(', ')} only, got ${describe(given)} too` : `takes no arguments, got ${describe(given)}`);
}

const isPlainObject = (value) => value !== null && typeof value === 'object' &&
  [Object.prototype, null].includes(Object.getPrototypeOf(value));

// The Matrix form's { mask?: Matrix, maskKind?, causal?: boolean } as the core takes them, and of what
// `more` names: weights (false asks for the output alone, no n×n weight matrices copied out), scale,
// out (read by addOutArrays). maskKind 'binary' (the default): 1 = may attend, 0 = blocked; 'block':
// PyTorch's bool attn_mask, 1 (True) = blocked, turned here into the first kind.
export function maskOptions(fn, options, more = []) {
  const opts = checkOptions(fn, options, ['mask', 'maskKind', 'causal', ...more]);
  const out = {};
  const kind = checkOneOf(fn, 'maskKind', opts.maskKind ?? 'binary', ['binary', 'block']);
  if (opts.mask !== undefined && opts.mask !== null) {
    const mask = checkMatrix(fn, 'mask', opts.mask);
    out.mask = kind === 'block' ? { ...mask, data: attendFromBlocked(fn, mask.data) } : mask;
  }
  if (opts.causal !== undefined) out.causal = checkBoolean(fn, 'causal', opts.causal);
  if (opts.weights !== undefined) out.weights = checkBoolean(fn, 'weights', opts.weights);
  if (opts.scale !== undefined) out.scale = checkFloat32(fn, 'scale', opts.scale);
  return out;
}

// A mask in PyTorch's bool convention (1 = blocked) → ours (1 = may attend), in a new array. Any
// value but 0 and 1 is refused: such a mask is additive, or a mistake.
export function attendFromBlocked(fn, data) {
  const attend = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) {
    if (data[i] !== 0 && data[i] !== 1) {
      fail(fn, `mask holds ${data[i]} at index ${i}, but maskKind 'block' takes 0 and 1 (1 = blocked, as PyTorch's bool attn_mask)`);
    }
    attend[i] = 1 - data[i];
  }
  return attend;
}

export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return value.length > 40 ? `'${value.slice(0, 40)}…' (${value.length} characters)` : `'${value}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  const kind = typedArrayName.call(value);
  if (kind !== undefined) return `${article(kind)} of ${value.length}`;
  if (value instanceof DataView) return `a DataView of ${value.byteLength} bytes`;
  const constructor = value.constructor;
  if (typeof constructor === 'function' && constructor.name) return article(constructor.name);
  return typeof value === 'function' ? 'a function' : 'an object';
}

const article = (noun) => `${/^[AEIOU]/i.test(noun) ? 'an' : 'a'} ${noun}`;
