// The fuzz cases for the Lab's functions: each builder draws one call (valid, with one bad argument,
// with wild values or with huge sizes), says what must happen, and checks a result against
// reference.js where a formula exists.
import {
  Args, assertAttention, assertFinite, assertMatrix, assertNear, assertSteps, assertWeightRows, hugeOne, hugePair, isBoolean,
  isFloat32, isObject, isOptions, isSeed, isSize, oneOf, optional, pickMode,
} from './fuzz-args.js';
import { brokenData, container } from './fuzz-inputs.js';
import * as ref from './reference.js';

const BUDGET_ERROR = /memory budget/;
const sameBits = (a, b) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

// Sizes for a case: small ones, or (mode 'huge') ones whose result could never fit the budget.
function sizes(r, mode, count, max = 6) {
  if (mode !== 'huge') return Array.from({ length: count }, () => r.dim(max));
  return count === 1 ? [hugeOne(r)] : [...hugePair(r), ...Array.from({ length: count - 2 }, () => r.dim(max))];
}

function matrixCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 3);
  const [rows, cols] = sizes(r, mode, 2).map((n) => a.plain(n, isSize));
  const small = mode !== 'huge' && isSize(rows) && isSize(cols);
  let data;
  let expected;
  if (small && r.chance(0.7)) {
    expected = r.numbers(rows * cols, mode === 'wild' ? 'wild' : 'tame');  // matrix() copies any number, NaN too
    data = container(r, expected);
    expected = Float32Array.from(data);
    if (a.breaking()) {
      data = r.chance(0.3) ? new Float32Array(rows * cols + 1) : brokenData(r, rows * cols);
      a.valid = data === undefined;
      expected = new Float32Array(rows * cols);
    }
  }
  call({
    fn: 'matrix', args: [rows, cols, data], run: () => lab.matrix(rows, cols, data),
    expect: mode === 'huge' && a.valid ? 'error' : a.valid ? 'ok' : 'error', match: mode === 'huge' && a.valid ? BUDGET_ERROR : undefined,
    check: (m) => {
      assertMatrix(m, rows, cols);
      if (!sameBits(m.data, expected ?? new Float32Array(rows * cols))) throw new Error('the values are not a copy of data');
      if (data !== undefined && m.data.buffer === data.buffer) throw new Error('data is shared, not copied');
    },
  });
}

function randnCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 3);
  const [rows, cols] = sizes(r, mode, 2, 8).map((n) => a.plain(n, isSize));
  const seed = a.plain(r.chance(0.8) ? r.int(0, 1000) : r.pick([0, 2 ** 32, 2 ** 53 - 1]), isSeed);
  const huge = mode === 'huge' && a.valid;
  const first = call({
    fn: 'randn', args: [rows, cols, seed], run: () => lab.randn(rows, cols, seed),
    expect: a.valid ? (huge ? 'error' : 'ok') : 'error', match: huge ? BUDGET_ERROR : undefined,
    check: (m) => {
      assertMatrix(m, rows, cols);
      assertFinite(m);
    },
  });
  if (first && r.chance(0.2)) {
    call({
      fn: 'randn', args: [rows, cols, seed], run: () => lab.randn(rows, cols, seed), expect: 'ok',
      check: (m) => {
        if (!sameBits(m.data, first.data)) throw new Error('the same seed gave other numbers');
      },
    });
  }
}

function softmaxCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 1);
  const [rows, cols] = [r.dim(), r.dim(8)];
  const values = r.numbers(rows * cols, mode === 'wild' ? 'wild' : 'tame');
  if (r.chance(0.3)) values.forEach((_, i) => { if (r.chance(0.4)) values[i] = -Infinity; });  // blocked entries
  const [m, input] = a.matrix(rows, cols, { values, negativeInfinityOk: true });
  call({
    fn: 'softmax', args: [m], run: () => lab.softmax(m), expect: a.expectation(),
    check: (result) => {
      assertNear(result, ref.softmax(input), 1e-5);
      assertWeightRows(result);
    },
  });
}

// Text for the tokenizer and the embeddings: ASCII, punctuation, whitespace, accents, CJK, emoji,
// NUL and lone surrogates (which reach the core as U+FFFD).
const CHARS = [...'abcxyzABCXYZ0189', "'", "'", ' ', ' ', '\t', '\n', ...'.,!?-"()', 'é', 'ß', 'Ω', '日', '本', '😀', '👍🏽',
  '\u0000', '\u00a0', '\ud800', '\udfff', '\ufffd', '\u{10062}'];
const randomText = (r, maxLength) => Array.from({ length: r.int(0, maxLength) }, () => r.pick(CHARS)).join('');
const WORDS = ['the', 'cat', 'The', 'CAT', "don't", 'é', '日本', '😀', '', ' ', 'a\ud800b', 'a\ufffdb', 'a\u{10062}', '\u0000'];

function tokenizeCase({ lab, r, call }) {
  const a = new Args(r, pickMode(r), 1);
  const text = a.plain(randomText(r, 24), (v) => typeof v === 'string');
  call({
    fn: 'tokenize', args: [text], run: () => lab.tokenize(text), expect: a.expectation(),
    check: (tokens) => {
      const expected = ref.tokenize(text);
      if (!Array.isArray(tokens) || tokens.join('\u0001') !== expected.join('\u0001') || tokens.length !== expected.length) {
        throw new Error(`tokens ${JSON.stringify(tokens)}, expected ${JSON.stringify(expected)}`);
      }
    },
  });
}

function embedTokensCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 3);
  let tokens = Array.from({ length: r.int(1, 6) }, () => (r.chance(0.6) ? r.pick(WORDS) : randomText(r, 6)));
  if (mode === 'bad' && r.chance(0.3)) tokens = r.pick([[], new Array(2), ['a', 3], ['a', null], [['a']], [Symbol('t')], [new String('a')]]);
  const isTokens = (v) => Array.isArray(v) && v.length > 0 && Array.from(v).every((t) => typeof t === 'string');
  tokens = a.plain(tokens, isTokens);
  if (!isTokens(tokens)) a.valid = false;
  const dModel = a.plain(mode === 'huge' ? hugeOne(r) : r.dim(8), isSize);
  const positions = r.pick([undefined, 'none', 'sinusoidal']);
  const options = a.plain(r.chance(0.3) ? undefined : { seed: r.int(0, 99), positions }, isOptions);
  const optionsValid = options === undefined || (isObject(options) && optional(isSeed)(options.seed) &&
    [undefined, 'none', 'sinusoidal'].includes(options.positions));
  const valid = a.valid && optionsValid;
  const huge = valid && mode === 'huge';
  const result = call({
    fn: 'embedTokens', args: [tokens, dModel, options], run: () => lab.embedTokens(tokens, dModel, options),
    expect: valid ? (huge ? 'error' : 'ok') : 'error', match: huge ? BUDGET_ERROR : undefined,
    check: (m) => {
      assertMatrix(m, tokens.length, dModel);
      assertFinite(m);
      if (options?.positions === 'sinusoidal') return;
      const rowOf = new Map();  // a word's row depends only on the word (as the core receives it) and the seed
      tokens.forEach((token, i) => {
        const row = m.data.slice(i * dModel, (i + 1) * dModel);
        const key = ref.wellFormed(token);
        if (rowOf.has(key) && !sameBits(rowOf.get(key), row)) throw new Error(`two rows for ${JSON.stringify(key)}`);
        rowOf.set(key, row);
      });
    },
  });
  if (result && options?.positions === 'sinusoidal' && r.chance(0.5)) {
    const plain = { seed: options.seed };
    call({
      fn: 'embedTokens', args: [tokens, dModel, plain], run: () => lab.embedTokens(tokens, dModel, plain), expect: 'ok',
      check: (m) => {
        const added = { rows: m.rows, cols: m.cols, data: result.data.map((x, i) => x - m.data[i]) };
        assertNear(added, ref.sinusoidalEncoding(tokens.length, dModel), (i) => 1e-6 * (1 + Math.abs(result.data[i])));
      },
    });
  }
}

function causalMaskCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 2);
  const [rowsSize, colsSize] = sizes(r, mode, 2, 8);
  const rows = a.plain(rowsSize, isSize);
  const cols = a.plain(r.chance(0.3) && mode !== 'huge' ? undefined : colsSize, optional(isSize));
  const huge = a.valid && mode === 'huge';
  call({
    fn: 'causalMask', args: cols === undefined ? [rows] : [rows, cols], run: () => lab.causalMask(rows, cols),
    expect: a.valid ? (huge ? 'error' : 'ok') : 'error', match: huge ? BUDGET_ERROR : undefined,
    check: (m) => assertNear(m, ref.causalMask(rows, cols ?? rows), 0),
  });
}

function keyPaddingMaskCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 3);
  const [rows, cols] = sizes(r, mode, 2, 8).map((n) => a.plain(n, isSize));
  const length = a.plain(mode === 'bad' && r.chance(0.3) && isSize(cols) ? cols + r.int(1, 3) : r.int(0, isSize(cols) ? Math.min(cols, 9) : 3),
    (v) => isSize(v, 0));
  const valid = a.valid && length <= cols;
  const huge = valid && mode === 'huge';
  call({
    fn: 'keyPaddingMask', args: [rows, cols, length], run: () => lab.keyPaddingMask(rows, cols, length),
    expect: valid ? (huge ? 'error' : 'ok') : 'error', match: huge ? BUDGET_ERROR : undefined,
    check: (m) => assertNear(m, ref.keyPaddingMask(rows, cols, length), 0),
  });
}

// A mask's numbers: 0/1, or (when `bad`) one entry that is neither.
function maskValues(r, rows, cols, bad) {
  const values = r.mask(rows, cols, r.pick([0.2, 0.7, 1]));
  if (bad) values[r.int(0, values.length - 1)] = r.pick([0.5, 2, -1, NaN, Infinity, 1e-45]);
  return values;
}

function combineMasksCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 2);
  const [rows, cols] = [r.dim(), r.dim()];
  const notBinary = mode === 'wild';
  const reshaped = mode === 'bad' && r.chance(0.4);
  const [ma, ia] = a.matrix(rows, cols, { values: maskValues(r, rows, cols, notBinary && r.chance(0.5)), integers: true });
  const [bRows, bCols] = reshaped ? [rows + 1, cols] : [rows, cols];
  const [mb, ib] = a.matrix(bRows, bCols, { values: maskValues(r, bRows, bCols, notBinary && r.chance(0.5)), integers: true });
  const binary = (m) => m.data.every((x) => x === 0 || x === 1);
  const valid = a.valid && !reshaped && binary(ia) && binary(ib);
  call({
    fn: 'combineMasks', args: [ma, mb], run: () => lab.combineMasks(ma, mb), expect: valid ? 'ok' : 'error',
    check: (m) => assertNear(m, { rows, cols, data: ia.data.map((x, i) => x * ib.data[i]) }, 0),
  });
}

function positionalEncodingCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 4);
  const [seqLen, dModel] = sizes(r, mode, 2, 12).map((n) => a.plain(n, isSize));
  const kind = a.plain(r.pick([undefined, 'sinusoidal', 'learned']), optional(oneOf('sinusoidal', 'learned')));
  const options = a.plain(r.chance(0.5) ? undefined : { seed: r.int(0, 2 ** 40) }, isOptions);
  const valid = a.valid && (options?.seed === undefined || isSeed(options.seed));
  const huge = valid && mode === 'huge';
  call({
    fn: 'positionalEncoding', args: [seqLen, dModel, kind, options], run: () => lab.positionalEncoding(seqLen, dModel, kind, options),
    expect: valid ? (huge ? 'error' : 'ok') : 'error', match: huge ? BUDGET_ERROR : undefined,
    check: (m) => {
      assertMatrix(m, seqLen, dModel);
      assertFinite(m);
      if (kind !== 'learned') assertNear(m, ref.sinusoidalEncoding(seqLen, dModel), 1e-6);
    },
  });
}

function applyRotaryCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 2);
  const rows = r.dim();
  const cols = mode === 'bad' && r.chance(0.3) ? 2 * r.dim(3) - 1 : 2 * r.dim(3);
  const [x, input] = a.matrix(rows, cols);
  const offset = a.plain(r.chance(0.2) ? undefined : r.chance(0.7) ? r.int(0, 50) : r.pick([2 ** 20, 0x7fffffff - rows + 1, 0x7fffffff]),
    optional((v) => isSize(v, 0)));
  const valid = cols % 2 === 0;
  call({
    fn: 'applyRotary', args: offset === undefined ? [x] : [x, offset], run: () => lab.applyRotary(x, offset),
    expect: valid ? a.expectation() : 'error',
    check: (m) => {
      const expected = ref.rotary(input, offset ?? 0);
      const pair = (i) => Math.abs(input.data[i]) + Math.abs(input.data[i ^ 1]);
      assertNear(m, expected, (i) => 2e-6 * pair(i) + 1e-37);
    },
  });
}

function alibiSlopesCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 1);
  const heads = a.plain(mode === 'huge' ? hugeOne(r) : r.int(1, 40), isSize);
  const huge = a.valid && mode === 'huge';
  call({
    fn: 'alibiSlopes', args: [heads], run: () => lab.alibiSlopes(heads),
    expect: a.valid ? (huge ? 'error' : 'ok') : 'error', match: huge ? BUDGET_ERROR : undefined,
    check: (slopes) => {
      if (!(slopes instanceof Float32Array)) throw new Error('not a Float32Array');
      const expected = ref.alibiSlopes(heads);
      assertNear({ rows: 1, cols: slopes.length, data: slopes }, { rows: 1, cols: heads, data: expected }, (i) => 1e-7 * expected[i]);
    },
  });
}

function alibiBiasCase({ lab, r, call }) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 3);
  const [rows, cols] = sizes(r, mode, 2, 8).map((n) => a.plain(n, isSize));
  const slope = a.plain(mode === 'wild' ? r.pick([3e38, -3e38, 1e30, 1e300, NaN, -Infinity, 1e-45]) : r.pick([0.5, 0.0625, 2 ** -8, r.normal(), 0, -0]),
    isFloat32);
  const valid = a.valid && isFloat32(slope);
  const huge = valid && mode === 'huge';
  call({
    fn: 'alibiBias', args: [rows, cols, slope], run: () => lab.alibiBias(rows, cols, slope),
    expect: !valid ? 'error' : huge ? 'error' : Math.abs(slope) > 1e15 ? 'either' : 'ok', match: huge ? BUDGET_ERROR : undefined,
    check: (m) => {
      assertFinite(m);
      const expected = ref.alibiBias(rows, cols, Math.fround(slope));
      assertNear(m, expected, (i) => 1e-7 * Math.abs(expected.data[i]));
    },
  });
}

// memory() takes no arguments: one given is refused, not ignored (issue 53.8).
function memoryCase({ lab, r, call }) {
  const junk = r.chance(0.3) ? [r.int(0, 9)] : [];
  call({
    fn: 'memory', args: junk, run: () => lab.memory(...junk), expect: junk.length ? 'error' : 'ok',
    match: /^memory: takes no arguments, got \d$/,
    check: (m) => {
      if (Object.keys(m).sort().join() !== 'budget,heapSize,inUse') throw new Error(`keys ${Object.keys(m)}`);
      if (!(m.heapSize >= m.inUse && m.inUse > 0 && m.budget === 512 * 2 ** 20)) throw new Error(JSON.stringify(m));
    },
  });
}

// A random budget, then one random call under it: a call that would work may now be refused for
// the budget, nothing else; then the default budget again.
function setMemoryBudgetCase(context) {
  const { lab, r, call } = context;
  const a = new Args(r, r.pick(['valid', 'valid', 'bad']), 1);
  const bytes = a.plain(r.pick([1, r.int(2, 2 ** 12), r.int(2 ** 12, 2 ** 18), 512 * 2 ** 20, 2 ** 31]),
    (v) => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 2 ** 31);
  call({
    fn: 'setMemoryBudget', args: [bytes], run: () => lab.setMemoryBudget(bytes), expect: a.valid ? 'ok' : 'error',
    check: (result) => {
      if (result !== lab) throw new Error('does not return the lab');
      if (lab.memory().budget !== bytes) throw new Error(`memory().budget is ${lab.memory().budget}`);
    },
  });
  context.relaxed = a.valid && bytes < 512 * 2 ** 20;
  r.pick([softmaxCase, attentionCase, causalMaskCase, matrixCase])(context);
  context.relaxed = false;
  lab.setMemoryBudget(512 * 2 ** 20);
}

// scaledDotProductAttention and traceAttention: Q n_q×d_k, K n_k×d_k, V n_k×d_v, options.
function attentionCase({ lab, r, call }, fn = r.pick(['scaledDotProductAttention', 'scaledDotProductAttention', 'traceAttention'])) {
  const mode = pickMode(r);
  const a = new Args(r, mode, 5);
  const [nq, nk, dk, dv] = [r.dim(), r.dim(), r.dim(6), r.dim(6)];
  let misfit = mode === 'bad' && r.chance(0.4) ? r.pick(['k', 'v', 'mask']) : undefined;
  const [q, qIn] = a.matrix(nq, dk);
  const [k, kIn] = a.matrix(nk, misfit === 'k' ? dk + 1 : dk);
  const [v, vIn] = a.matrix(misfit === 'v' ? nk + 1 : nk, dv);
  let options;
  let maskIn;
  let scale;
  if (r.chance(0.8) || misfit === 'mask') {
    options = {};
    if (r.chance(0.5) || misfit === 'mask') {
      const [mRows, mCols] = misfit === 'mask' ? [nk, nq + 1] : [nq, nk];
      const notBinary = mode === 'wild' && r.chance(0.5);
      [options.mask, maskIn] = a.matrix(mRows, mCols, { values: maskValues(r, mRows, mCols, notBinary), integers: true, optional: true });
      if (misfit === 'mask' && (options.mask === undefined || options.mask === null)) misfit = undefined;  // broken into no mask
    }
    if (r.chance(0.5)) options.causal = a.plain(r.chance(0.5), optional(isBoolean));
    if (r.chance(0.4)) scale = options.scale = a.plain(r.pick([1, 0.5, 2, 0, -1, 1e-3, 10, 1e-50]), optional(isFloat32));
    if (fn === 'scaledDotProductAttention' && r.chance(0.4)) options.weights = a.plain(r.chance(0.5), optional(isBoolean));
  }
  const built = options;
  options = a.plain(options, isOptions);
  if (options !== built) {  // replaced: its mask (and scale) are not the ones drawn
    maskIn = undefined;
    if (misfit === 'mask') misfit = undefined;
    scale = undefined;
  }
  const binary = !maskIn || maskIn.data.every((x) => x === 0 || x === 1);  // (an Int8Array rounds 0.5 to 0)
  const valid = a.valid && !misfit && binary && (!isObject(options) || (optional(isBoolean)(options.causal) && optional(isBoolean)(options.weights) &&
    optional(isFloat32)(options.scale)));
  const expect = valid ? a.expectation() : 'error';
  const expected = () => ref.attention(qIn, kIn, vIn, { mask: maskIn, causal: options?.causal === true, scale: scale === undefined ? undefined : Math.fround(scale) });
  call({
    fn, args: [q, k, v, options], run: () => lab[fn](q, k, v, options), expect,
    check: (result) => {
      if (fn === 'traceAttention') {
        const masked = maskIn !== undefined || options?.causal === true;  // the masking step only when there is a mask
        const steps = assertSteps(result, ['scores', 'scaled_scores', ...(masked ? ['masked_scores'] : []), 'softmax_exp', 'weights', 'output']);
        const out = { weights: steps.get('weights').tensors.weights, output: steps.get('output').tensors.output };
        if (expect === 'ok') assertAttention(out, expected(), qIn, vIn, 'trace: ');
        assertWeightRows(out.weights);
        return;
      }
      const lean = options?.weights === false;
      if (Object.keys(result).sort().join() !== (lean ? 'output' : 'maskedScores,output,scaledScores,scores,weights')) {
        throw new Error(`keys ${Object.keys(result)}`);
      }
      assertMatrix(result.output, nq, dv, 'output');
      assertFinite(result.output, 'output');
      if (!lean) assertWeightRows(result.weights);
      if (expect === 'ok') assertAttention(result, expected(), qIn, vIn);
    },
  });
}

export const utilityCases = [
  matrixCase, randnCase, tokenizeCase, embedTokensCase, causalMaskCase, keyPaddingMaskCase, combineMasksCase,
  positionalEncodingCase, applyRotaryCase, alibiSlopesCase, alibiBiasCase, memoryCase, setMemoryBudgetCase,
];
export const attentionCases = [softmaxCase, softmaxCase, attentionCase, attentionCase, attentionCase];
export { maskValues };
