// The fuzz cases for MultiHeadAttention and TransformerEncoderLayer: random configurations, random
// weight blobs (right, wrong shapes, wrong types, NaN), forward and trace with random masks, train,
// dispose, and every method called again after dispose(). A pool of modules lives across calls.
import {
  Args, assertFinite, assertMatrix, assertNear, assertSteps, assertWeightRows, isBoolean, isFloat32, isObject, isOptions,
  isSeed, isSize, oneOf, optional, pickMode, worst,
} from './fuzz-args.js';
import { maskValues } from './fuzz-cases.js';
import { brokenData, brokenMatrix, container, weird } from './fuzz-inputs.js';
import * as ref from './reference.js';

const MHA = 'MultiHeadAttention';
const TEL = 'TransformerEncoderLayer';
const MAX_LIVE = 6;
const DISPOSED = /called on a disposed object/;
const POSITIONS = ['none', 'none', 'rotary', 'alibi'];

const validPositions = (o) => optional(oneOf('none', 'rotary', 'alibi'))(o.positions) &&
  !(o.positions === 'rotary' && (o.dModel / o.numHeads) % 2 !== 0);
const validDropout = (v) => v === undefined || (isFloat32(v) && Math.fround(v) >= 0 && Math.fround(v) < 1);

// The config fields each constructor takes (any other is an unknown option: refused).
const MHA_FIELDS = ['dModel', 'numHeads', 'bias', 'seed', 'dropout', 'positions'];
const FIELDS = { [MHA]: MHA_FIELDS, [TEL]: [...MHA_FIELDS, 'dFF', 'normFirst', 'norm', 'activation', 'normEps'] };

function validConfig(kind, o) {
  if (!isObject(o) || !isSize(o.dModel) || !isSize(o.numHeads) || o.dModel % o.numHeads !== 0) return false;
  if (!Object.keys(o).every((field) => FIELDS[kind].includes(field))) return false;
  if (!optional(isBoolean)(o.bias) || !optional(isSeed)(o.seed) || !validDropout(o.dropout) || !validPositions(o)) return false;
  if (kind === MHA) return true;
  return optional(isSize)(o.dFF) && optional(isBoolean)(o.normFirst) && optional(oneOf('layernorm', 'rmsnorm'))(o.norm) &&
    optional(oneOf('gelu', 'gelu_tanh', 'relu'))(o.activation) &&
    (o.normEps === undefined || (isFloat32(o.normEps) && Math.fround(o.normEps) > 0));
}

// Every field through Args.plain (so 'bad' mode breaks one), plus breakages Args cannot know of.
function randomConfig(r, kind, mode) {
  const a = new Args(r, mode, kind === MHA ? 7 : 12);
  const [numHeads, dk] = [r.int(1, 4), r.int(1, 4)];
  const o = {
    dModel: a.plain(mode === 'huge' ? r.pick([2 ** 14, 2 ** 16, 0x7fffffff]) : numHeads * dk, isSize),
    numHeads: a.plain(mode === 'huge' ? 1 : numHeads, isSize),
    bias: a.plain(r.pick([undefined, true, false]), optional(isBoolean)),
    seed: a.plain(r.pick([undefined, r.int(0, 1000)]), optional(isSeed)),
    dropout: a.plain(r.pick([undefined, 0, 0, 0.1, 0.5, -1e-300]), validDropout),
    positions: a.plain(r.pick([undefined, ...POSITIONS]), optional(oneOf(...POSITIONS))),
  };
  if (kind === TEL) {
    o.dFF = a.plain(mode === 'huge' && r.chance(0.5) ? r.pick([2 ** 28, 0x7fffffff]) : r.pick([undefined, r.int(1, 12), r.int(1, 12)]),
      optional(isSize));
    if (o.dFF === undefined && mode !== 'huge' && r.chance(0.8)) o.dFF = r.int(1, 12);  // the default 2048 is slow
    o.normFirst = a.plain(r.pick([undefined, true, false]), optional(isBoolean));
    o.norm = a.plain(r.pick([undefined, 'layernorm', 'rmsnorm']), optional(oneOf('layernorm', 'rmsnorm')));
    o.activation = a.plain(r.pick([undefined, 'gelu', 'gelu_tanh', 'relu']), optional(oneOf('gelu', 'gelu_tanh', 'relu')));
    o.normEps = a.plain(r.pick([undefined, 1e-5, 1e-3, 1, 1e-45]), () => true);
  }
  if (mode === 'bad' && r.chance(0.3)) {
    const [field, value] = r.pick([['dModel', (isSize(o.dModel) ? o.dModel : 4) + 1], ['dropout', 1], ['dropout', -0.1], ['dropout', 0.99999999999],
      ['positions', 'rope'], ['numHeads', 0], ['normEps', r.pick([0, -1, 1e-50, 1e39])], ['norm', 'batchnorm'], ['activation', 'tanh']]);
    o[field] = value;
  }
  return a.plain(o, () => true);  // the whole options object may be replaced too
}

const parameterCounts = ({ dModel: d, dFF = 2048, bias = true, norm = 'layernorm' }) => ({
  selfAttn: 4 * d * d + (bias ? 4 * d : 0),
  feedForward: 2 * d * dFF + (bias ? dFF + d : 0),
  // A LayerNorm in a layer with bias: false: 2d in PyTorch, 4d in the core (it keeps the bias; index.d.ts).
  norms: norm === 'rmsnorm' ? [2 * d] : bias ? [4 * d] : [2 * d, 4 * d],
});

function create(context, kind) {
  const { lab, r, call, modules } = context;
  const mode = pickMode(r);
  const options = randomConfig(r, kind, mode);
  const valid = validConfig(kind, options);
  const huge = valid && mode === 'huge';
  const obj = call({
    fn: kind, args: [options], run: () => new lab[kind](options),
    expect: valid ? (huge ? 'error' : 'ok') : 'error', match: huge ? /memory budget/ : undefined,
    check: (m) => {
      if (!(m instanceof lab[kind])) throw new Error(`not a ${kind}`);
    },
  });
  if (!obj) return;
  const config = { bias: true, dropout: kind === MHA ? 0 : 0.1, positions: 'none', dFF: 2048, norm: 'layernorm' };
  for (const [key, value] of Object.entries(options)) if (value !== undefined) config[key] = value;
  const entry = { kind, obj, config, live: true, training: false, tame: true };
  modules.push(entry);
  const counts = parameterCounts(config);
  call({
    fn: `${kind}.parameterCount`, args: [], run: () => obj.parameterCount(), expect: 'ok',
    check: (n) => {
      const total = counts.selfAttn + (kind === MHA ? 0 : counts.feedForward + counts.norms[0]);
      if (n !== total && !(kind === TEL && n === total - counts.norms[0] + counts.norms.at(-1))) throw new Error(`${n}, expected ${total}`);
    },
  });
  if (kind === MHA) entry.weights = call({ fn: `${MHA}.weights`, args: [], run: () => obj.weights(), expect: 'ok', check: (w) => checkWeights(entry, w, true) });
  const live = modules.filter((m) => m.live);
  if (live.length > MAX_LIVE) dispose(context, live[0]);
  if (modules.length > 2 * MAX_LIVE) modules.splice(modules.findIndex((m) => !m.live), 1);
}

function dispose({ call }, entry) {
  call({ fn: `${entry.kind}.dispose`, args: [], run: () => entry.obj.dispose(), expect: 'ok', check: (x) => { if (x !== undefined) throw new Error(`returned ${x}`); } });
  entry.live = false;
}

// weights() equals what was loaded last (or, fresh, has the right shapes).
function checkWeights(entry, w, fresh = false) {
  const d = entry.config.dModel;
  const keys = entry.config.bias ? 'inProjBias,inProjWeight,outProjBias,outProjWeight' : 'inProjWeight,outProjWeight';
  if (Object.keys(w).sort().join() !== keys) throw new Error(`keys ${Object.keys(w)}`);
  assertMatrix(w.inProjWeight, 3 * d, d, 'inProjWeight');
  assertMatrix(w.outProjWeight, d, d, 'outProjWeight');
  if (entry.config.bias && !(w.inProjBias instanceof Float32Array && w.inProjBias.length === 3 * d && w.outProjBias.length === d)) {
    throw new Error('the biases are not Float32Arrays of 3·d_model and d_model');
  }
  if (fresh) return;
  for (const key of keys.split(',')) {
    const [got, want] = [w[key].data ?? w[key], entry.weights[key].data ?? entry.weights[key]];
    if (!got.every((x, i) => Object.is(x, want[i]))) throw new Error(`${key} is not what was loaded last`);
  }
}

// A vector argument's length if the API accepts it as a vector of numbers, else −1.
function vectorLength(v) {
  if (Array.isArray(v)) return Array.from(v).every((x) => typeof x === 'number') ? v.length : -1;
  if (!ArrayBuffer.isView(v) || v instanceof DataView || v instanceof BigInt64Array || v instanceof BigUint64Array) return -1;
  try {
    new Uint8Array(v.buffer);
  } catch {
    return -1;  // detached
  }
  return v.length;
}

const numbersGrade = (f32) => (f32.some((x) => !Number.isFinite(x)) ? 'error' : f32.some((x) => Math.abs(x) > 1e15) ? 'either' : 'ok');

// A bias of `wanted` entries (0: the module has none). Returns [value, how it stands, its float32
// values]; a missing bias is 'ok' when noneOk, an empty one 'either' (absent or refused).
function bias(a, r, wanted, { noneOk = wanted === 0, presentOk = wanted > 0 } = {}) {
  let value;
  if (wanted > 0 && !(noneOk && r.chance(0.5))) value = container(r, r.numbers(wanted, a.mode === 'wild' ? 'wild' : 'tame'));
  else if (r.chance(0.2)) value = null;
  if (a.breaking()) value = r.pick([() => weird(r), () => container(r, r.numbers(r.int(1, 9))), () => undefined, () => null, () => new Float32Array(0)])();
  const length = value === undefined || value === null ? 0 : vectorLength(value);
  if (length < 0) return [value, 'error'];
  if (length === 0) return [value, noneOk ? (value === undefined || value === null ? 'ok' : 'either') : 'error'];
  if (!presentOk || length !== wanted) return [value, 'error'];
  const f32 = Float32Array.from(value);
  return [value, numbersGrade(f32), f32];
}

// A norm's weight vector of d entries (or, when its slot breaks, anything else).
function normWeight(a, r, d) {
  let value = container(r, r.numbers(d).map((x) => 1 + 0.1 * x));
  if (a.breaking()) value = r.pick([() => brokenData(r, d), () => new Float32Array(d + 1), () => weird(r)])();
  return [value, vectorLength(value) === d ? numbersGrade(Float32Array.from(value)) : 'error'];
}

// A weight matrix argument: right, or (when its slot breaks) broken, or (sometimes, in 'bad' mode) misshapen.
function weight(a, r, rows, cols) {
  if (a.mode === 'bad' && r.chance(0.15)) {
    a.valid = false;
    return [r.chance(0.5) ? { rows: cols, cols: rows + (rows === cols ? 1 : 0), data: new Float32Array(cols * (rows + (rows === cols ? 1 : 0))) } : brokenMatrix(r, rows, cols), null];
  }
  const values = r.numbers(rows * cols, a.mode === 'wild' ? 'wild' : 'tame').map((x) => x / Math.sqrt(cols));
  if (a.mode === 'bad' && r.chance(0.1)) values[r.int(0, values.length - 1)] = NaN;
  return a.matrix(rows, cols, { values });
}

function attentionBlob(a, r, d, hasBias) {
  const [inProjWeight, inW] = weight(a, r, 3 * d, d);
  const [inProjBias, inBiasGrade, inB] = bias(a, r, hasBias ? 3 * d : 0);
  const [outProjWeight, outW] = weight(a, r, d, d);
  const [outProjBias, outBiasGrade, outB] = bias(a, r, hasBias ? d : 0);
  const blob = { inProjWeight, outProjWeight };
  if (inProjBias !== undefined || r.chance(0.5)) blob.inProjBias = inProjBias;
  if (outProjBias !== undefined || r.chance(0.5)) blob.outProjBias = outProjBias;
  if (r.chance(0.1)) {
    blob.note = 'an unknown field is refused (a misspelt bias would otherwise be dropped)';
    a.valid = false;
  }
  const loaded = inW && outW && { inProjWeight: inW, outProjWeight: outW, ...(hasBias ? { inProjBias: inB, outProjBias: outB } : {}) };
  return [blob, worst(inBiasGrade, outBiasGrade), loaded];
}

function loadWeights(context, entry) {
  const { r, call } = context;
  const { kind, obj, config } = entry;
  const mode = pickMode(r) === 'huge' ? 'valid' : pickMode(r);
  const a = new Args(r, mode, kind === MHA ? 5 : 14);
  const d = config.dModel;
  let blob;
  let grades;
  let loaded;
  if (kind === MHA) {
    [blob, grades, loaded] = attentionBlob(a, r, d, config.bias);
  } else {
    const [selfAttn, attnGrade] = attentionBlob(a, r, d, config.bias);
    const linear = (out, inputs) => {
      const [w] = weight(a, r, out, inputs);
      const [b, g] = bias(a, r, config.bias ? out : 0);
      return [{ weight: w, ...(b === undefined && r.chance(0.5) ? {} : { bias: b }) }, g];
    };
    const norm = () => {
      const [w, wGrade] = normWeight(a, r, d);
      const layer = config.norm === 'layernorm';
      // A LayerNorm in a layer with bias: false has no bias in PyTorch; the core keeps one. Either passes.
      const [b, g] = bias(a, r, layer ? d : 0, layer && !config.bias ? { noneOk: true, presentOk: true } : {});
      const grade = layer && !config.bias && g !== 'error' ? 'either' : g;
      return [{ weight: w, ...(b === undefined && r.chance(0.5) ? {} : { bias: b }) }, worst(wGrade, grade)];
    };
    const [linear1, g1] = linear(config.dFF, d);
    const [linear2, g2] = linear(d, config.dFF);
    const [norm1, g3] = norm();
    const [norm2, g4] = norm();
    blob = { selfAttn, linear1, linear2, norm1, norm2 };
    grades = worst(attnGrade, g1, g2, g3, g4);
    if (a.breaking()) {
      const part = r.pick(['selfAttn', 'linear1', 'linear2', 'norm1', 'norm2']);
      blob[part] = r.pick([weird(r), undefined, null]);
      a.valid = false;
    }
  }
  blob = a.plain(blob, () => false);
  const expect = entry.live ? a.expectation(grades) : 'error';
  const ok = call({
    fn: `${kind}.loadWeights`, args: [blob], run: () => obj.loadWeights(blob), expect,
    match: !entry.live && a.valid && grades !== 'error' ? DISPOSED : undefined,
    check: (result) => {
      if (result !== obj) throw new Error('does not return the module');
    },
  });
  if (ok) {
    entry.tame = expect === 'ok' && a.grades.every((g) => g === 'ok');
    if (kind === MHA) entry.weights = loaded;
  }
}

// forward or trace: query n_q×d (key and value n_k×d, or self-attention), mask, causal, weights.
function run(context, entry, method) {
  const { r, call } = context;
  const { kind, obj, config } = entry;
  const mode = pickMode(r) === 'huge' ? 'valid' : pickMode(r);
  const a = new Args(r, mode, 5);
  const d = config.dModel;
  const nq = r.dim();
  const cross = kind === MHA && r.chance(0.4);
  const nk = cross ? r.dim() : nq;
  let misfit = mode === 'bad' && r.chance(0.4) ? r.pick(cross ? ['query', 'key', 'value', 'mask'] : ['query', 'mask']) : undefined;
  const [query, qIn] = a.matrix(nq, misfit === 'query' ? d + 1 : d);
  let [key, kIn, value, vIn] = [undefined, qIn, undefined, qIn];
  if (cross) {
    [key, kIn] = a.matrix(nk, misfit === 'key' ? d + 1 : d, { defaulted: true });
    if (misfit !== 'value' && r.chance(0.2)) vIn = kIn;  // value omitted: it is the key
    else [value, vIn] = a.matrix(misfit === 'value' ? nk + 1 : nk, d, { defaulted: true });
  } else if (r.chance(0.3)) {
    [key, value] = [query, query];
  }
  let options;
  let maskIn;
  if (r.chance(0.7) || misfit === 'mask') {
    options = {};
    if (r.chance(0.5) || misfit === 'mask') {
      const [rows, cols] = misfit === 'mask' ? [nq + 1, nk] : [nq, nk];
      [options.mask, maskIn] = a.matrix(rows, cols, { values: maskValues(r, rows, cols, false), integers: true, optional: true });
      if (misfit === 'mask' && (options.mask === undefined || options.mask === null)) misfit = undefined;  // broken into no mask
    }
    if (r.chance(0.5)) options.causal = a.plain(r.chance(0.5), optional(isBoolean));
    if (r.chance(0.3)) options.weights = a.plain(r.chance(0.5), optional(isBoolean));
  }
  const built = options;
  options = a.plain(options, isOptions);
  if (options !== built) {  // replaced: its mask (and scale) are not the ones drawn
    maskIn = undefined;
    if (misfit === 'mask') misfit = undefined;
  }
  const valid = a.valid && !misfit && (!isObject(options) || (optional(isBoolean)(options.causal) && optional(isBoolean)(options.weights)));
  const args = kind === TEL ? [query, options] : key === undefined && options === undefined && r.chance(0.5) ? [query] : [query, key, value, options];
  const expect = !valid ? 'error' : !entry.live ? 'error' : entry.tame ? a.expectation() : 'either';
  const referenced = expect === 'ok' && kind === MHA && config.positions === 'none' && !(entry.training && config.dropout > 0);
  const expected = () => ref.multiHeadAttention(qIn, kIn, vIn, entry.weights, config.numHeads, { mask: maskIn, causal: options?.causal === true });
  const fn = `${kind}.${method}`;
  const result = call({
    fn, args, run: () => obj[method](...args), expect, match: valid && !entry.live ? DISPOSED : undefined,
    check: (out) => {
      if (method === 'trace') {
        const steps = assertSteps(out);
        const last = out.at(-1);
        if (last.id !== 'output') throw new Error(`the last step is ${last.id}`);
        const { output } = last.tensors;
        assertMatrix(output, nq, d, 'output');
        if (referenced) {
          const e = expected();
          // With weights: false the heads' steps are the online softmax's blocks, not an n_q×n_k matrix.
          const weights = options?.weights === false ? undefined : e.weights.map((_, h) => steps.get(`head${h}.weights`).tensors.weights);
          compareMha({ output, weights }, e);
        }
        return;
      }
      const output = kind === MHA ? out.output : out;
      assertMatrix(output, nq, d, 'output');
      if (expect === 'ok') assertFinite(output, 'output');
      if (kind === TEL) return;
      const lean = options?.weights === false;
      if (Object.keys(out).sort().join() !== (lean ? 'output' : 'averageWeights,output,weights')) throw new Error(`keys ${Object.keys(out)}`);
      if (!lean) {
        if (out.weights.length !== config.numHeads) throw new Error(`${out.weights.length} heads`);
        const dropped = entry.training && config.dropout > 0;  // dropout zeroes weights and scales the rest up
        out.weights.forEach((w, h) => { assertMatrix(w, nq, nk, `weights[${h}]`); if (!dropped) assertWeightRows(w, `weights[${h}]`); });
        assertMatrix(out.averageWeights, nq, nk, 'averageWeights');
      }
      if (referenced) compareMha(out, expected());
    },
  });
  // In evaluation mode the trace's last step is the forward's output (to rounding: a traced softmax
  // keeps its three passes, the untraced one is the SIMD build's fused kernel; norms amplify that).
  if (result && kind === TEL && method === 'forward' && !entry.training && r.chance(0.2)) {
    const again = [qIn, isObject(options) ? { mask: maskIn, causal: options.causal } : undefined];  // fresh: a getter may have moved on
    call({
      fn: `${TEL}.trace`, args: again, run: () => obj.trace(...again), expect: 'ok',
      check: (steps) => assertNear(steps.at(-1).tensors.output, result, (i) => 5e-5 * (1 + Math.abs(result.data[i]))),
    });
  }
}

// Float32 rounding in the projections and scores grows with d_model and the scores' magnitudes.
function compareMha(out, e) {
  const tol = 1e-5 + 2e-6 * (2 * e.dModel + 3) * (1 + e.maxMagnitude);
  out.weights?.forEach((w, h) => assertNear(w, e.weights[h], tol, `weights[${h}]`));
  if (out.averageWeights) assertNear(out.averageWeights, e.averageWeights, tol, 'averageWeights');
  const scale = 1 + e.output.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  assertNear(out.output, e.output, tol * scale * 4, 'output');
}

function method(context) {
  const { r, call, modules } = context;
  if (modules.length === 0 || r.chance(0.05)) return create(context, r.pick([MHA, TEL]));
  const entry = r.pick(modules);
  const { kind, obj, config } = entry;
  const choice = r.pick(['forward', 'forward', 'forward', 'trace', 'loadWeights', 'loadWeights', 'train', 'count', 'weights', 'dispose']);
  if (choice === 'forward' || choice === 'trace') return run(context, entry, choice);
  if (choice === 'loadWeights') return loadWeights(context, entry);
  if (choice === 'dispose') return dispose(context, entry);
  const deadOr = (expect) => (entry.live ? expect : 'error');
  if (choice === 'train') {
    const a = new Args(r, r.pick(['valid', 'bad']), 1);
    const on = a.plain(r.pick([undefined, true, false]), optional(isBoolean));
    const result = call({
      fn: `${kind}.train`, args: on === undefined ? [] : [on], run: () => obj.train(on), expect: deadOr(a.valid ? 'ok' : 'error'),
      match: entry.live ? undefined : DISPOSED,
      check: (x) => { if (x !== obj) throw new Error('does not return the module'); },
    });
    if (result) entry.training = on ?? true;
    return undefined;
  }
  if (choice === 'weights' && kind === MHA) {
    return call({ fn: `${MHA}.weights`, args: [], run: () => obj.weights(), expect: deadOr('ok'), match: entry.live ? undefined : DISPOSED, check: (w) => checkWeights(entry, w) });
  }
  const counts = parameterCounts(config);
  if (kind === TEL && r.chance(0.5)) {
    return call({
      fn: `${TEL}.parameterCounts`, args: [], run: () => obj.parameterCounts(), expect: deadOr('ok'), match: entry.live ? undefined : DISPOSED,
      check: (c) => {
        const ok = c.selfAttn === counts.selfAttn && c.feedForward === counts.feedForward && counts.norms.includes(c.norms) &&
          c.total === c.selfAttn + c.feedForward + c.norms && Object.keys(c).length === 4;
        if (!ok) throw new Error(`${JSON.stringify(c)}, expected ${JSON.stringify(counts)}`);
      },
    });
  }
  const total = counts.selfAttn + (kind === MHA ? 0 : counts.feedForward);
  return call({
    fn: `${kind}.parameterCount`, args: [], run: () => obj.parameterCount(), expect: deadOr('ok'), match: entry.live ? undefined : DISPOSED,
    check: (n) => { if (!(kind === MHA ? n === total : counts.norms.some((norms) => n === total + norms))) throw new Error(`${n}`); },
  });
}

export const moduleCases = [(c) => create(c, MHA), (c) => create(c, TEL), method, method, method, method, method, method];
