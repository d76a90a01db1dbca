// Fuzz: 20,000 random calls per build of every public function and method, good and bad arguments
// mixed (wrong types, mismatched shapes, detached buffers, huge or fractional sizes, NaN/±Inf and
// subnormal values, random masks and weight blobs, disposed modules). Each call must either return
// a correct result — checked against the double-precision formulas in reference.js where there is
// one, by shape elsewhere — or throw an AttnLabError whose message starts with the function's name.
// Nothing else may escape (TypeError, RangeError, BindingError, RuntimeError…), the module must keep
// answering a known call, and its heap must end where it was after a warm-up.
//   FUZZ_SEED=7 FUZZ_CALLS=100000 node --test tests/js/fuzz.test.js
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { AttnLabError } from '../../web/index.js';
import { Random, show } from './fuzz-inputs.js';
import { VARIANTS, lab } from './helpers.js';
import { attentionCases, utilityCases } from './fuzz-cases.js';
import { moduleCases } from './fuzz-modules.js';
import { tensorCases } from './fuzz-tensors.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261121) >>> 0;
const CALLS = Number(process.env.FUZZ_CALLS ?? 20000);
const WARM_UP = 1000;
const KNOWN_EVERY = 500;

// softmax([0, ln 3]) = [1/4, 3/4]; attention over identical rows of ones returns ones.
function knownGood(l) {
  const p = l.softmax(l.matrix(1, 2, [0, Math.log(3)])).data;
  assert.ok(Math.abs(p[0] - 0.25) < 1e-6 && Math.abs(p[1] - 0.75) < 1e-6, `softmax([0, ln 3]) = ${p}`);
  const ones = l.matrix(3, 4, new Float32Array(12).fill(1));
  assert.ok(l.scaledDotProductAttention(ones, ones, ones, { causal: true }).output.data.every((x) => x === 1));
}

// The first call the memory budget refuses keeps 8 bytes for good (its message's number formatting
// initialises once), so a warm-up that happened to draw none would read that as a leak: one such call
// is made before the baseline is taken. (It is not a leak: every later refusal leaves the heap as it was.)
function firstRefusal(l) {
  assert.throws(() => l.causalMask(65536, 16777216), /memory budget/);
}

const startsWithName = (message, fn) => message.startsWith(`${fn}:`) || message.startsWith(`${fn} `);

for (const variant of VARIANTS) {
  test(`fuzz: ${CALLS} random calls leave only correct results or AttnLabErrors (${variant.name}, seed ${SEED})`, async (t) => {
    const l = await lab(variant.simd);
    const r = new Random(SEED);
    const modules = [];  // { kind, obj, config, live, training, weights, tame }
    const context = { lab: l, r, modules };
    const builders = [...utilityCases, ...attentionCases, ...moduleCases, ...tensorCases];
    const stats = { calls: 0, ok: 0, errors: 0, byFunction: new Map() };
    const started = performance.now();
    let baseline;
    let heapSize;
    let nextKnown = KNOWN_EVERY;

    // Runs one case: { fn, args, run, expect: 'ok' | 'error' | 'either', match?, check? }.
    const call = (c) => {
      stats.calls++;
      // Under a small budget (setMemoryBudget's case) a call that would work may be refused for it.
      if (context.relaxed && c.expect === 'ok') c = { ...c, expect: 'either', match: /memory budget/ };
      const where = () => `seed ${SEED}, call #${stats.calls} (${variant.name}): ${c.fn}(${c.args.map((a) => show(a)).join(', ')})`;
      let result;
      let error;
      try {
        result = c.run();
      } catch (e) {
        error = e;
      }
      const counts = stats.byFunction.get(c.fn) ?? { ok: 0, errors: 0 };
      stats.byFunction.set(c.fn, counts);
      if (error !== undefined) {
        if (!(error instanceof AttnLabError)) {
          assert.fail(`${where()}\nthrew ${error?.constructor?.name ?? typeof error} instead of AttnLabError: ${error?.stack ?? String(error)}`);
        }
        if (!startsWithName(error.message, c.fn)) assert.fail(`${where()}\nthe message does not start with '${c.fn}': ${error.message}`);
        if (c.expect === 'ok') assert.fail(`${where()}\nthrew for valid arguments: ${error.message}`);
        if (c.match && !c.match.test(error.message)) assert.fail(`${where()}\nthe message does not match ${c.match}: ${error.message}`);
        stats.errors++;
        counts.errors++;
        return undefined;
      }
      if (c.expect === 'error') assert.fail(`${where()}\nreturned ${show(result)} instead of throwing an AttnLabError`);
      try {
        c.check?.(result);
      } catch (e) {
        assert.fail(`${where()}\nwrong result: ${e.message}`);
      }
      stats.ok++;
      counts.ok++;
      return result;
    };
    context.call = call;

    const disposeAll = () => {
      for (const m of modules) m.obj.dispose();
      modules.length = 0;
    };

    while (stats.calls < CALLS) {
      r.pick(builders)(context);
      if (stats.calls >= WARM_UP && baseline === undefined) {
        disposeAll();
        firstRefusal(l);
        ({ inUse: baseline, heapSize } = l.memory());
      }
      if (stats.calls >= nextKnown) {
        knownGood(l);
        nextKnown += KNOWN_EVERY;
      }
    }
    disposeAll();
    knownGood(l);
    const after = l.memory();
    assert.equal(after.inUse, baseline, `bytes in use after ${stats.calls} calls (${baseline} after the warm-up)`);
    assert.equal(after.heapSize, heapSize, 'the heap did not grow after the warm-up (huge calls are refused before allocating)');
    assert.equal(after.budget, 512 * 2 ** 20, 'the budget is back to its default');
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    t.diagnostic(`${stats.calls} calls in ${seconds} s: ${stats.ok} results, ${stats.errors} AttnLabErrors; heap ${after.heapSize} bytes`);
    const missing = ['matrix', 'randn', 'softmax', 'scaledDotProductAttention', 'traceAttention', 'embedTokens', 'causalMask',
      'keyPaddingMask', 'combineMasks', 'positionalEncoding', 'applyRotary', 'alibiSlopes', 'alibiBias', 'tokenize', 'memory',
      'setMemoryBudget', 'MultiHeadAttention', 'MultiHeadAttention.loadWeights', 'MultiHeadAttention.weights',
      'MultiHeadAttention.forward', 'MultiHeadAttention.trace', 'MultiHeadAttention.train', 'MultiHeadAttention.parameterCount',
      'MultiHeadAttention.dispose', 'TransformerEncoderLayer', 'TransformerEncoderLayer.loadWeights',
      'TransformerEncoderLayer.forward', 'TransformerEncoderLayer.trace', 'TransformerEncoderLayer.train',
      'TransformerEncoderLayer.parameterCount', 'TransformerEncoderLayer.parameterCounts', 'TransformerEncoderLayer.dispose',
      'reshape', 'permute', 'transpose']
      .filter((fn) => !(stats.byFunction.get(fn)?.ok > 0 && (fn.endsWith('dispose') || fn === 'memory' || stats.byFunction.get(fn).errors > 0)));
    assert.deepEqual(missing, [], 'every function was called with both outcomes');
  });
}

// Found by this fuzz: apply_rotary (cpp/src/attention/positional.cpp) added `r + position_offset` in
// Eigen::Index, which is 32-bit in wasm32, so past 2^31 − 1 the position wrapped to −2^31 (natively
// Index is 64-bit, which is why the native fuzzers never saw it). Row 1 of a 2×2 input at offset
// 2^31 − 1 sits at position 2^31; (1, 0) rotated by that angle is (cos 2^31, sin 2^31).
for (const variant of VARIANTS) {
  test(`applyRotary past position 2^31 − 1 does not wrap around (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    let rotated;
    try {
      rotated = l.applyRotary(l.matrix(2, 2, [1, 0, 1, 0]), 0x7fffffff);
    } catch (e) {
      assert.ok(e instanceof AttnLabError && e.message.startsWith('applyRotary: '), String(e));
      return;
    }
    const [c, s] = [rotated.data[2], rotated.data[3]];
    assert.ok(Math.abs(c - Math.cos(2 ** 31)) < 1e-6 && Math.abs(s - Math.sin(2 ** 31)) < 1e-6,
      `row 1 is (${c}, ${s}), expected (cos 2^31, sin 2^31) = (${Math.cos(2 ** 31)}, ${Math.sin(2 ** 31)}); ` +
      `(cos −2^31, sin −2^31) = (${Math.cos(-(2 ** 31))}, ${Math.sin(-(2 ** 31))}) means the position wrapped`);
  });
}
