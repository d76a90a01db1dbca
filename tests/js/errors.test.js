// Bad input: every path throws AttnLabError naming the argument and the shapes, never a bare number,
// an abort or a trap, and the module keeps working afterwards.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { AttnLabError } from '../../web/index.js';
import { VARIANTS, lab } from './helpers.js';

function throwsAttnLab(fn, message) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof AttnLabError, `expected AttnLabError, got ${e?.constructor?.name}: ${e}`);
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'AttnLabError');
    if (message instanceof RegExp) assert.match(e.message, message);
    else assert.equal(e.message, message);
    return true;
  });
}

const ones = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols).fill(1) });

for (const variant of VARIANTS) {
  describe(`errors (${variant.name})`, () => {
    test('shapes that do not fit', async () => {
      const l = await lab(variant.simd);
      throwsAttnLab(() => l.scaledDotProductAttention(ones(5, 8), ones(7, 16), ones(7, 16)),
        'scaledDotProductAttention: K is 7×16 but Q is 5×8 (d_k must match)');
      throwsAttnLab(() => l.scaledDotProductAttention(ones(5, 8), ones(7, 8), ones(6, 8)),
        'scaledDotProductAttention: V is 6×8 but K is 7×8 (n_k must match)');
      throwsAttnLab(() => l.scaledDotProductAttention(ones(3, 4), ones(5, 4), ones(5, 4), { mask: ones(3, 3) }),
        'scaledDotProductAttention: mask is 3×3 but must be n_q×n_k = 3×5');
      const mha = new l.MultiHeadAttention({ dModel: 8, numHeads: 2 });
      throwsAttnLab(() => mha.forward(ones(3, 6)),
        'MultiHeadAttention.forward: query is 3×6 but the layer takes n×dModel = n×8 (n ≥ 1)');
      throwsAttnLab(() => mha.forward(ones(3, 8), ones(4, 8), ones(5, 8)),
        'MultiHeadAttention.forward: value is 5×8 but key is 4×8 (n_k must match)');
      mha.dispose();
    });

    test('a Matrix whose data length is not rows·cols', async () => {
      const l = await lab(variant.simd);
      throwsAttnLab(() => l.softmax({ rows: 2, cols: 3, data: new Float32Array(5) }),
        'softmax: m.data has 5 values but m is 2×3 (6 values)');
      throwsAttnLab(() => l.scaledDotProductAttention(ones(2, 2), { rows: 2, cols: 2 }, ones(2, 2)),
        'scaledDotProductAttention: k.data must be a Float32Array or an array of numbers, got undefined');
      throwsAttnLab(() => l.matrix(2, 2, [1, 2, 3]), 'matrix: data has 3 values but the matrix is 2×2 (4 values)');
      throwsAttnLab(() => l.softmax(null), 'softmax: m must be a Matrix { rows, cols, data }, got null');
    });

    test('non-finite values', async () => {
      const l = await lab(variant.simd);
      const q = ones(2, 4);
      q.data[7] = NaN;
      throwsAttnLab(() => l.scaledDotProductAttention(q, ones(3, 4), ones(3, 4)),
        'scaledDotProductAttention: Q (2×4) contains NaN at (1, 3)');
      const logits = ones(1, 2);
      logits.data[1] = Infinity;
      throwsAttnLab(() => l.softmax(logits), 'softmax: logits (1×2) contains +Inf at (0, 1)');
      throwsAttnLab(() => l.scaledDotProductAttention(ones(1, 2), ones(1, 2), ones(1, 2), { scale: Infinity }),
        'scaledDotProductAttention: scale must be a finite number, got Infinity');
      const mask = ones(1, 1);
      mask.data[0] = 0.5;
      throwsAttnLab(() => l.scaledDotProductAttention(ones(1, 2), ones(1, 2), ones(1, 2), { mask }),
        /mask \(1×1\) must hold only 1 \(may attend\) and 0 \(blocked\), got 0.5 at \(0, 0\)/);
    });

    test('out arrays that do not fit the result', async () => {
      const l = await lab(variant.simd);
      const sdpa = (options) => l.scaledDotProductAttention(ones(3, 4), ones(5, 4), ones(5, 2), options);
      throwsAttnLab(() => sdpa({ out: { output: new Float32Array(5) } }),
        'scaledDotProductAttention: out.output has 5 values but output is 3×2 (6 values)');
      throwsAttnLab(() => sdpa({ out: { weights: new Float32Array(6) } }),
        'scaledDotProductAttention: out.weights has 6 values but weights is 3×5 (15 values)');
      throwsAttnLab(() => sdpa({ out: { output: new Float64Array(6) } }),
        'scaledDotProductAttention: out.output must be a Float32Array, got a Float64Array of 6');
      throwsAttnLab(() => sdpa({ out: { output: [0, 0, 0, 0, 0, 0] } }),
        'scaledDotProductAttention: out.output must be a Float32Array, got an array of 6');
      throwsAttnLab(() => sdpa({ weights: false, out: { weights: new Float32Array(15) } }),
        'scaledDotProductAttention: out.weights: this call returns output with weights: false, not weights');
      throwsAttnLab(() => sdpa({ out: { values: new Float32Array(6) } }),
        'scaledDotProductAttention: out.values: this call returns output, weights, scores, scaledScores, maskedScores, not values');
      const square = new Float32Array(15);
      throwsAttnLab(() => sdpa({ out: { weights: square, scores: square } }),
        'scaledDotProductAttention: out.scores is the same array as out.weights');
      throwsAttnLab(() => sdpa({ out: 'output' }), "scaledDotProductAttention: out must be an object of Float32Arrays, got 'output'");
      const moved = new Float32Array(6);
      structuredClone(moved.buffer, { transfer: [moved.buffer] });
      throwsAttnLab(() => sdpa({ out: { output: moved } }), /out\.output is a Float32Array whose ArrayBuffer has been detached/);
      const mha = new l.MultiHeadAttention({ dModel: 8, numHeads: 2 });
      throwsAttnLab(() => mha.forward(ones(3, 8), ones(5, 8), ones(5, 8), { out: { averageWeights: new Float32Array(9) } }),
        'MultiHeadAttention.forward: out.averageWeights has 9 values but averageWeights is 3×5 (15 values)');
      throwsAttnLab(() => mha.forward(ones(3, 8), undefined, undefined, { weights: false, out: { averageWeights: new Float32Array(9) } }),
        'MultiHeadAttention.forward: out.averageWeights: this call returns output with weights: false, not averageWeights');
      throwsAttnLab(() => mha.forward(ones(3, 8), undefined, undefined, { out: { weights: new Float32Array(9) } }),
        'MultiHeadAttention.forward: out.weights: this call returns output, averageWeights, not weights');
      mha.dispose();
      // An error in the computation writes nothing into the arrays; then the same arrays work.
      const output = new Float32Array(6).fill(7);
      const nan = ones(3, 4);
      nan.data[5] = NaN;
      throwsAttnLab(() => l.scaledDotProductAttention(nan, ones(5, 4), ones(5, 2), { out: { output } }),
        'scaledDotProductAttention: Q (3×4) contains NaN at (1, 1)');
      assert.deepEqual(Array.from(output), [7, 7, 7, 7, 7, 7]);
      assert.deepEqual(Array.from(sdpa({ out: { output } }).output.data), [1, 1, 1, 1, 1, 1]);
    });

    test('sizes that are not positive integers', async () => {
      const l = await lab(variant.simd);
      throwsAttnLab(() => l.causalMask(0), 'causalMask: rows must be an integer ≥ 1, got 0');
      throwsAttnLab(() => l.causalMask(2.5), 'causalMask: rows must be an integer ≥ 1, got 2.5');
      throwsAttnLab(() => l.randn(-1, 3, 0), 'randn: rows must be an integer ≥ 1, got -1');
      throwsAttnLab(() => l.randn(2, 3, -4), 'randn: seed must be a non-negative safe integer, got -4');
      throwsAttnLab(() => l.positionalEncoding(4, '8'), "positionalEncoding: dModel must be an integer ≥ 1, got '8'");
      throwsAttnLab(() => l.positionalEncoding(4, 8, 'rope'),
        "positionalEncoding: kind must be one of 'sinusoidal', 'learned', got 'rope'");
      throwsAttnLab(() => l.keyPaddingMask(2, 3, 4), 'keyPaddingMask: valid_length must be in 0 … n_k = 0 … 3, got 4');
      throwsAttnLab(() => l.applyRotary(ones(2, 3)), 'applyRotary: x is 2×3 but RoPE rotates column pairs, so d must be even');
    });

    test('module configuration and weights', async () => {
      const l = await lab(variant.simd);
      throwsAttnLab(() => new l.MultiHeadAttention({ dModel: 10, numHeads: 4 }),
        'MultiHeadAttention: dModel = 10 is not divisible by numHeads = 4 (each head gets d_k = dModel / numHeads columns)');
      throwsAttnLab(() => new l.MultiHeadAttention({ dModel: 8, numHeads: 2, dropout: 1 }),
        'MultiHeadAttention: dropout must be in [0, 1), got 1');
      throwsAttnLab(() => new l.TransformerEncoderLayer({ dModel: 8, numHeads: 2, norm: 'batchnorm' }),
        "TransformerEncoderLayer: norm must be one of 'layernorm', 'rmsnorm', got 'batchnorm'");
      const mha = new l.MultiHeadAttention({ dModel: 8, numHeads: 2 });
      throwsAttnLab(() => mha.loadWeights({ inProjWeight: ones(16, 8), outProjWeight: ones(8, 8) }),
        'MultiHeadAttention.loadWeights: in_proj_weight is 16×8 but must be 24×8');
      throwsAttnLab(() => mha.loadWeights({ inProjWeight: ones(24, 8), inProjBias: new Float32Array(24), outProjWeight: ones(8, 8) }),
        'MultiHeadAttention.loadWeights (out_proj): bias is missing (the layer has a bias of 8 entries)');
      throwsAttnLab(() => mha.loadWeights({ inProjWeight: ones(24, 8) }),
        'MultiHeadAttention.loadWeights: outProjWeight must be a Matrix { rows, cols, data }, got undefined');
      const layer = new l.TransformerEncoderLayer({ dModel: 8, numHeads: 2, dFF: 16 });
      throwsAttnLab(() => layer.loadWeights({ selfAttn: {} }), /TransformerEncoderLayer.loadWeights: selfAttn.inProjWeight must be a Matrix/);
      throwsAttnLab(() => layer.loadWeights({}), 'TransformerEncoderLayer.loadWeights: selfAttn is missing');
      mha.dispose();
      layer.dispose();
    });

    test('disposed objects', async () => {
      const l = await lab(variant.simd);
      const mha = new l.MultiHeadAttention({ dModel: 8, numHeads: 2 });
      mha.dispose();
      mha.dispose();  // twice is harmless
      throwsAttnLab(() => mha.forward(ones(2, 8)), 'MultiHeadAttention.forward: called on a disposed object');
      throwsAttnLab(() => mha.parameterCount(), 'MultiHeadAttention.parameterCount: called on a disposed object');
      const layer = new l.TransformerEncoderLayer({ dModel: 8, numHeads: 2, dFF: 16 });
      layer.dispose();
      throwsAttnLab(() => layer.trace(ones(2, 8)), 'TransformerEncoderLayer.trace: called on a disposed object');
    });

    test('inputs the fuzz test found (fuzz.test.js)', async () => {
      const l = await lab(variant.simd);
      const detached = (Type) => {
        const array = new Type(4);
        structuredClone(array.buffer, { transfer: [array.buffer] });
        return array;
      };
      throwsAttnLab(() => l.matrix(2, 2, detached(Float32Array)),
        'matrix: data is a Float32Array whose ArrayBuffer has been detached (transferred, e.g. to a worker), so it has no values to read');
      throwsAttnLab(() => l.softmax({ rows: 2, cols: 2, data: detached(Float64Array) }),
        'softmax: m.data is a Float64Array whose ArrayBuffer has been detached (transferred, e.g. to a worker), so it has no values to read');
      throwsAttnLab(() => l.softmax({ rows: 1, cols: 1, data: new DataView(new ArrayBuffer(4)) }),
        'softmax: m.data must be a Float32Array or an array of numbers, got a DataView of 4 bytes');
      throwsAttnLab(() => l.softmax({ rows: 1, cols: 2, data: new BigInt64Array(2) }),
        'softmax: m.data is a BigInt64Array: it holds BigInts, not numbers');
      throwsAttnLab(() => new l.MultiHeadAttention(null), 'MultiHeadAttention: options must be an object, got null');
      throwsAttnLab(() => new l.TransformerEncoderLayer(null), 'TransformerEncoderLayer: options must be an object, got null');
      throwsAttnLab(() => new l.TransformerEncoderLayer({ dModel: 4, numHeads: 1, normEps: 1e-50 }),
        "TransformerEncoderLayer: normEps = 1e-50 is below float32's smallest positive value (1.4e-45)");
      throwsAttnLab(() => l.embedTokens([, 'cat'], 2), 'embedTokens: tokens must be an array of strings, but tokens[0] is undefined');
      throwsAttnLab(() => l.embedTokens(['cat'], 2, null), 'embedTokens: options must be an object, got null');
      throwsAttnLab(() => l.positionalEncoding(2, 2, 'learned', null), 'positionalEncoding: options must be an object, got null');
      throwsAttnLab(() => l.alibiBias(2, 2, 1e300), "alibiBias: slope must be within float32's range (±3.4028235e38), got 1e+300");
      throwsAttnLab(() => l.setMemoryBudget(), /^setMemoryBudget: memoryBudget must be a whole number of bytes .* got undefined$/);
      const mha = new l.MultiHeadAttention({ dModel: 2, numHeads: 1 });
      const k = { rows: 1, cols: 2, data: [Infinity, 0] };
      throwsAttnLab(() => mha.trace(ones(1, 2), k, k), 'MultiHeadAttention.trace: key (1×2) contains +Inf at (0, 0)');
      mha.dispose();
      // A lone surrogate reaches the core as U+FFFD, not paired with the next character ('a\u{10062}').
      assert.deepEqual(l.tokenize('a\ud800b c'), ['a\ufffdb', 'c']);
    });

    test('the module keeps working after many errors', async () => {
      const l = await lab(variant.simd);
      const before = l.memory().inUse;
      for (let i = 0; i < 2000; i++) {
        assert.throws(() => l.scaledDotProductAttention(ones(5, 8), ones(7, 16), ones(7, 16)), AttnLabError);
      }
      assert.equal(l.memory().inUse, before, 'errors leak no wasm memory');
      const r = l.scaledDotProductAttention(ones(2, 4), ones(3, 4), ones(3, 4));
      assert.ok(r.output.data.every((v) => v === 1));
    });
  });
}

test('init rejects a bad simd option', async () => {
  const { init } = await import('../../web/index.js');
  await assert.rejects(init({ simd: 'yes' }), (e) => e instanceof AttnLabError && /simd must be 'auto', true or false/.test(e.message));
});
