// Tensors through the npm package (issue 31): the tutorials' (batch, heads, seq, d_k) shapes against
// PyTorch's numbers (tests/fixtures/make_batched_*_fixtures.py), each sequence against the Matrix call,
// and the errors a tutorial author meets, named in PyTorch's tuple notation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { AttnLabError } from '../../web/index.js';
import { VARIANTS, lab } from './helpers.js';

// A fixture with its tensors as { shape, data: Float32Array }, as the package takes them.
function tensorFixture(name) {
  const raw = JSON.parse(readFileSync(new URL(`../fixtures/${name}.json`, import.meta.url), 'utf8'));
  const out = {};
  for (const [key, value] of Object.entries(raw)) {
    const isTensor = value !== null && typeof value === 'object' && 'shape' in value;
    out[key] = isTensor ? { shape: value.shape, data: Float32Array.from(value.data) } : value;
  }
  return out;
}

// |a − e| ≤ 1e-5·|e| + 1e-6 everywhere (the core suite's agreement with torch), shapes equal.
function assertTensorClose(actual, expected, what) {
  assert.deepEqual(actual.shape, expected.shape, `${what}: shape`);
  assert.ok(actual.data instanceof Float32Array, `${what}: data is a Float32Array`);
  for (let i = 0; i < expected.data.length; i++) {
    const [a, e] = [actual.data[i], expected.data[i]];
    if (!(Math.abs(a - e) <= 1e-5 * Math.abs(e) + 1e-6)) assert.fail(`${what}: element ${i} is ${a}, expected ${e}`);
  }
}

// x (batch, seq, d_model) → (batch, heads, seq, d_k), as the tutorials' split_heads.
function splitHeads(l, x, heads) {
  const [batch, seq, dModel] = x.shape;
  return l.transpose(l.reshape(x, [batch, seq, heads, dModel / heads]), 1, 2);
}

const throwsAttnLab = (body, pattern) => assert.throws(body, (e) => e instanceof AttnLabError && pattern.test(e.message),
  'an AttnLabError matching ' + pattern);

for (const variant of VARIANTS) {
  describe(`tensors (${variant.name})`, () => {
    test('reshape keeps the numbers in order, transpose and permute move them (hand-written)', async () => {
      const l = await lab(variant.simd);
      const t = l.tensor([2, 3], [0, 1, 2, 3, 4, 5]);
      assert.deepEqual(l.reshape(t, [3, -1]), { shape: [3, 2], data: Float32Array.of(0, 1, 2, 3, 4, 5) });
      assert.deepEqual(l.transpose(t, 0, 1), { shape: [3, 2], data: Float32Array.of(0, 3, 1, 4, 2, 5) });
      // (2, 1, 3) permuted (2, 0, 1) → (3, 2, 1): element (i, 0, j) lands at (j, i, 0).
      const p = l.permute(l.reshape(t, [2, 1, 3]), [2, 0, 1]);
      assert.deepEqual(p, { shape: [3, 2, 1], data: Float32Array.of(0, 3, 1, 4, 2, 5) });
      // A Matrix is the 2-D tensor (rows, cols).
      assert.deepEqual(l.transpose({ rows: 1, cols: 2, data: [7, 8] }, -1, -2), { shape: [2, 1], data: Float32Array.of(7, 8) });
    });

    test('randn(shape, seed) holds randn(rows, cols, seed)\'s numbers row after row', async () => {
      const l = await lab(variant.simd);
      const t = l.randn([2, 4, 8], 3);
      assert.deepEqual(t.shape, [2, 4, 8]);
      assert.deepEqual(t.data, l.randn(8, 8, 3).data);
      assert.deepEqual(l.randn([5], 1).data, l.randn(1, 5, 1).data);
    });

    for (const name of ['batched_sdpa_causal', 'batched_sdpa_padding', 'batched_sdpa_padding_causal', 'batched_sdpa_additive',
      'batched_sdpa_tutorial']) {
      test(`${name}: split heads, attention and the heads put back equal torch's`, async () => {
        const l = await lab(variant.simd);
        const f = tensorFixture(name);
        const heads = f.num_heads;
        const [batch, seq, dModel] = f.x_q.shape;
        const [q, k, v] = [f.x_q, f.x_k, f.x_v].map((x) => splitHeads(l, x, heads));
        if (f.q_heads) assert.deepEqual(q, f.q_heads, 'torch\'s own split of x_q');
        const options = { scale: f.scale, causal: f.causal ?? false };
        if (f.mask) options.mask = l.reshape(f.mask, [1, 1, seq, seq]);
        if (f.key_padding_mask) options.keyPaddingMask = f.key_padding_mask;
        if (f.additive_finite) {
          const data = f.additive_finite.data.map((x, i) => (f.additive_blocked.data[i] === 1 ? -Infinity : x));
          Object.assign(options, { mask: { shape: f.additive_finite.shape, data }, maskKind: 'additive' });
        }
        const r = l.scaledDotProductAttention(q, k, v, options);
        assertTensorClose(r.weights, f.weights, 'weights');
        assertTensorClose(r.output, f.output, 'output');
        const combined = l.reshape(l.transpose(r.output, 1, 2), [batch, seq, dModel]);
        assert.deepEqual(combined.shape, [batch, seq, dModel]);
        if (f.output_combined) assertTensorClose(combined, f.output_combined, 'output_combined');
      });
    }

    test('every (batch, head) slice is the Matrix call on that slice, to the bit', async () => {
      const l = await lab(variant.simd);
      const [q, k, v] = [11, 12, 13].map((seed) => l.randn([2, 3, 5, 4], seed));
      const r = l.scaledDotProductAttention(q, k, v, { causal: true });
      assert.deepEqual(r.output.shape, [2, 3, 5, 4]);
      assert.deepEqual(r.weights.shape, [2, 3, 5, 5]);
      const slice = (t, i, rows, cols) => ({ rows, cols, data: t.data.slice(i * rows * cols, (i + 1) * rows * cols) });
      for (let i = 0; i < 6; i++) {
        const m = l.scaledDotProductAttention(slice(q, i, 5, 4), slice(k, i, 5, 4), slice(v, i, 5, 4), { causal: true });
        assert.deepEqual(slice(r.weights, i, 5, 5).data, m.weights.data, `weights of slice ${i}`);
        assert.deepEqual(slice(r.output, i, 5, 4).data, m.output.data, `output of slice ${i}`);
      }
    });

    test('a K and V of (n_k, d_k) broadcast against every head; masks broadcast as PyTorch\'s', async () => {
      const l = await lab(variant.simd);
      const q = l.randn([2, 2, 3, 4], 1);
      const k = l.randn([3, 4], 2);
      const v = l.randn([3, 4], 3);
      const expanded = (t) => l.tensor([2, 2, 3, 4], Array.from({ length: 4 }, () => [...t.data]).flat());
      const mask = l.tensor([1, 1, 3, 3], [1, 0, 0, 1, 1, 0, 1, 1, 1]);
      const broadcast = l.scaledDotProductAttention(q, k, v, { mask });
      const full = l.scaledDotProductAttention(q, expanded(k), expanded(v), { causal: true });
      assert.deepEqual(broadcast.output, full.output);
      assert.deepEqual(broadcast.weights, full.weights);
    });

    for (const name of ['batched_mha_padding', 'batched_mha_padding_causal']) {
      test(`${name}: MultiHeadAttention.forward on (batch, seq, d_model) equals nn.MultiheadAttention`, async () => {
        const l = await lab(variant.simd);
        const f = tensorFixture(name);
        const mha = new l.MultiHeadAttention({ dModel: f.d_model, numHeads: f.num_heads });
        const matrix = (t) => ({ rows: t.shape[0], cols: t.shape[1], data: t.data });
        mha.loadWeights({
          inProjWeight: matrix(f.in_proj_weight), inProjBias: f.in_proj_bias.data,
          outProjWeight: matrix(f.out_proj_weight), outProjBias: f.out_proj_bias.data,
        });
        const r = mha.forward(f.x, undefined, undefined, { keyPaddingMask: f.key_padding_mask, causal: f.causal, averageWeights: true });
        assertTensorClose(r.output, f.output, 'output');
        assertTensorClose(r.weights, f.weights, 'weights');
        assertTensorClose(r.averageWeights, f.weights_avg, 'averageWeights');
        mha.dispose();
      });
    }

    for (const name of ['batched_encoder_post_padding', 'batched_encoder_pre_padding_causal']) {
      test(`${name}: TransformerEncoderLayer.forward on (batch, seq, d_model) equals nn.TransformerEncoderLayer`, async () => {
        const l = await lab(variant.simd);
        const f = tensorFixture(name);
        const layer = new l.TransformerEncoderLayer({ dModel: f.d_model, numHeads: f.num_heads, dFF: f.d_ff, normFirst: f.norm_first });
        const matrix = (t) => ({ rows: t.shape[0], cols: t.shape[1], data: t.data });
        const linear = (prefix) => ({ weight: matrix(f[`${prefix}_weight`]), bias: f[`${prefix}_bias`].data });
        layer.loadWeights({
          selfAttn: {
            inProjWeight: matrix(f.self_attn_in_proj_weight), inProjBias: f.self_attn_in_proj_bias.data,
            outProjWeight: matrix(f.self_attn_out_proj_weight), outProjBias: f.self_attn_out_proj_bias.data,
          },
          linear1: linear('linear1'), linear2: linear('linear2'),
          norm1: { weight: f.norm1_weight.data, bias: f.norm1_bias.data }, norm2: { weight: f.norm2_weight.data, bias: f.norm2_bias.data },
        });
        const out = layer.forward(f.x, { keyPaddingMask: f.key_padding_mask, causal: f.causal });
        assertTensorClose(out, f.output, 'output');
        // Each sequence is the Matrix call with its padding as a mask, to the bit.
        const [, seq, dModel] = f.x.shape;
        for (let b = 0; b < 2; b++) {
          const x = { rows: seq, cols: dModel, data: f.x.data.slice(b * seq * dModel, (b + 1) * seq * dModel) };
          const pad = f.key_padding_mask.data.slice(b * seq, (b + 1) * seq);
          const mask = { rows: seq, cols: seq, data: Float32Array.from({ length: seq * seq }, (_, i) => 1 - pad[i % seq]) };
          assert.deepEqual(out.data.slice(b * seq * dModel, (b + 1) * seq * dModel), layer.forward(x, { mask, causal: f.causal }).data);
        }
        assert.throws(() => layer.forward(f.x, { mask: l.tensor([4, 5]) }),
          /^AttnLabError: TransformerEncoderLayer\.forward: mask \(4, 5\) does not broadcast to \(batch, seq, seq\) = \(2, 4, 4\)/);
        layer.dispose();
      });
    }

    test('a sequence that is all padding gets weights 0 and the bias as output, never NaN', async () => {
      const l = await lab(variant.simd);
      const f = tensorFixture('batched_mha_all_padded');
      const mha = new l.MultiHeadAttention({ dModel: f.d_model, numHeads: f.num_heads });
      const matrix = (t) => ({ rows: t.shape[0], cols: t.shape[1], data: t.data });
      mha.loadWeights({
        inProjWeight: matrix(f.in_proj_weight), inProjBias: f.in_proj_bias.data,
        outProjWeight: matrix(f.out_proj_weight), outProjBias: f.out_proj_bias.data,
      });
      const r = mha.forward(f.x, f.x, f.x, { keyPaddingMask: f.key_padding_mask });
      assertTensorClose({ shape: [1, 4, 8], data: r.output.data.slice(0, 32) }, f.output, 'sequence 0');
      assert.deepEqual(Array.from(r.weights.data.slice(32)), new Array(32).fill(0), 'sequence 1\'s weights');
      for (let i = 0; i < 4; i++) assert.deepEqual(r.output.data.slice(32 + 8 * i, 40 + 8 * i), f.out_proj_bias.data);
      mha.dispose();
    });

    test('the tutorials\' exercise: (2, 10, 512) through 8 heads with a causal mask is (2, 10, 512), each sequence the Matrix call\'s', async () => {
      const l = await lab(variant.simd);
      const mha = new l.MultiHeadAttention({ dModel: 512, numHeads: 8, seed: 4 });
      const x = l.randn([2, 10, 512], 5);
      const r = mha.forward(x, x, x, { causal: true });
      assert.deepEqual(r.output.shape, [2, 10, 512]);
      assert.deepEqual(r.weights.shape, [2, 8, 10, 10]);
      for (let b = 0; b < 2; b++) {
        const one = { rows: 10, cols: 512, data: x.data.slice(b * 5120, (b + 1) * 5120) };
        const m = mha.forward(one, one, one, { causal: true });
        const out = r.output.data.slice(b * 5120, (b + 1) * 5120);
        const worst = out.reduce((w, value, i) => Math.max(w, Math.abs(value - m.output.data[i])), 0);
        assert.ok(worst <= 1e-6, `sequence ${b}: differs from the Matrix call by ${worst}`);
      }
      mha.dispose();
    });

    test('trace on a tensor: the tutorials\' steps (2, 4, 8) → qkv (2, 4, 24) → reshape (2, 4, 3, 2, 4) → permute (3, 2, 2, 4, 4) … → (2, 4, 8), values by index', async () => {
      const l = await lab(variant.simd);
      const mha = new l.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 6 });
      const x = l.randn([2, 4, 8], 7);
      const steps = mha.trace(x, x, x, { causal: true });
      const byId = Object.fromEntries(steps.map((s) => [s.id, s]));
      assert.deepEqual(steps.map((s) => s.id), ['x', 'qkv', 'qkv.reshape', 'qkv.permute', 'q_k_v', 'scores', 'weights', 'heads',
        'transpose', 'concat', 'output']);
      const shapes = Object.fromEntries(steps.map((s) => [s.id, Object.values(s.tensors)[0].shape]));
      assert.deepEqual(shapes, { x: [2, 4, 8], qkv: [2, 4, 24], 'qkv.reshape': [2, 4, 3, 2, 4], 'qkv.permute': [3, 2, 2, 4, 4],
        q_k_v: [2, 2, 4, 4], scores: [2, 2, 4, 4], weights: [2, 2, 4, 4], heads: [2, 2, 4, 4], transpose: [2, 4, 2, 4],
        concat: [2, 4, 8], output: [2, 4, 8] });
      assert.match(byId['qkv.permute'].explanation, /\(3, 2, 2, 4, 4\)/);
      // permute(2, 0, 3, 1, 4): element (s, b, h, t, j) is qkv[b, t, 8s + 4h + j], and its first third is q.
      const qkv = byId.qkv.tensors.qkv.data;
      const permuted = byId['qkv.permute'].tensors.qkv.data;
      const q = byId.q_k_v.tensors.q.data;
      for (let s = 0; s < 3; s++) for (let b = 0; b < 2; b++) for (let h = 0; h < 2; h++) for (let t = 0; t < 4; t++) {
        for (let j = 0; j < 4; j++) {
          const value = permuted[(((s * 2 + b) * 2 + h) * 4 + t) * 4 + j];
          assert.equal(value, qkv[(b * 4 + t) * 24 + s * 8 + h * 4 + j]);
          if (s === 0) assert.equal(q[((b * 2 + h) * 4 + t) * 4 + j], value);
        }
      }
      // The traced output is forward's.
      assert.deepEqual(byId.output.tensors.output.data, mha.forward(x, x, x, { causal: true }).output.data);
      mha.dispose();
    });

    test('weights: false returns the output alone, each sequence the Matrix call\'s with weights: false, to the bit', async () => {
      const l = await lab(variant.simd);
      const mha = new l.MultiHeadAttention({ dModel: 16, numHeads: 4, seed: 2 });
      const x = l.randn([3, 6, 16], 8);
      const pad = l.tensor([3, 6], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1]);
      const lean = mha.forward(x, x, x, { causal: true, keyPaddingMask: pad, weights: false });
      assert.deepEqual(Object.keys(lean), ['output']);
      for (let b = 0; b < 3; b++) {
        const one = { rows: 6, cols: 16, data: x.data.slice(b * 96, (b + 1) * 96) };
        const mask = { rows: 6, cols: 6, data: Float32Array.from({ length: 36 }, (_, i) => 1 - pad.data[b * 6 + (i % 6)]) };
        assert.deepEqual(lean.output.data.slice(b * 96, (b + 1) * 96), mha.forward(one, one, one, { mask, causal: true, weights: false }).output.data);
      }
      const [q, k, v] = [1, 2, 3].map((seed) => l.randn([2, 2, 5, 4], seed));
      const sdpa = l.scaledDotProductAttention(q, k, v, { causal: true, weights: false });
      assert.deepEqual(Object.keys(sdpa), ['output']);
      const slice = (t, i) => ({ rows: 5, cols: 4, data: t.data.slice(i * 20, (i + 1) * 20) });
      for (let i = 0; i < 4; i++) {
        assert.deepEqual(sdpa.output.data.slice(i * 20, (i + 1) * 20),
          l.scaledDotProductAttention(slice(q, i), slice(k, i), slice(v, i), { causal: true, weights: false }).output.data);
      }
      mha.dispose();
    });

    test('errors name the argument and the shapes in tuple notation, and the lab stays usable', async () => {
      const l = await lab(variant.simd);
      const q = l.randn([2, 8, 10, 64], 1);
      throwsAttnLab(() => l.scaledDotProductAttention(q, q, q, { mask: l.tensor([1, 1, 10, 9]) }),
        /^scaledDotProductAttention: mask \(1, 1, 10, 9\) does not broadcast to scores \(2, 8, 10, 10\)/);
      throwsAttnLab(() => l.scaledDotProductAttention(q, l.randn([2, 8, 10, 32], 2), q),
        /^scaledDotProductAttention: K is \(2, 8, 10, 32\) but Q is \(2, 8, 10, 64\) \(d_k must match\)/);
      throwsAttnLab(() => l.scaledDotProductAttention(q, q, q, { keyPaddingMask: l.tensor([2, 9]) }),
        /^scaledDotProductAttention: keyPaddingMask \(2, 9\) must be \(batch, n_k\)/);
      throwsAttnLab(() => l.tensor([2, 3], [1, 2]), /^tensor: data has 2 values but the tensor is \(2, 3\) \(6 values\)/);
      throwsAttnLab(() => l.tensor([1, 1, 1, 1, 1, 2]), /^tensor: shape \(1, 1, 1, 1, 1, 2\) has 6 dims; a tensor has 1 to 5/);
      throwsAttnLab(() => l.reshape(l.tensor([3, 4]), [5, 3]), /^reshape: .*\(3, 4\).*\(5, 3\)/);
      throwsAttnLab(() => l.scaledDotProductAttention({ shape: [2, 3], data: [1, 2, 3] }, q, q),
        /^scaledDotProductAttention: q\.data has 3 values but q is \(2, 3\) \(6 values\)/);
      throwsAttnLab(() => l.scaledDotProductAttention(q, q, q, { maskKind: 'bool' }), /maskKind must be one of 'binary', 'block', 'additive'/);
      const mha = new l.MultiHeadAttention({ dModel: 8, numHeads: 2 });
      throwsAttnLab(() => mha.forward(l.randn([2, 4, 6], 1)),
        /^MultiHeadAttention\.forward: .*\(2, 4, 6\) does not match dModel 8/);
      throwsAttnLab(() => mha.forward(l.randn([2, 4, 8], 1), undefined, undefined, { keyPaddingMask: l.tensor([3, 4]) }),
        /^MultiHeadAttention\.forward: keyPaddingMask \(3, 4\)/);
      const r = l.scaledDotProductAttention(l.randn([1, 2, 2], 1), l.randn([1, 2, 2], 2), l.randn([1, 2, 2], 3));
      assert.ok(r.output.data.every(Number.isFinite), 'still computes after the errors');
      mha.dispose();
    });
  });
}
