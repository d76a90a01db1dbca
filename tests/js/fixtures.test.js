// The PyTorch fixtures of the core's suite, through the npm package, on both wasm builds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { VARIANTS, assertClose, fixture, lab } from './helpers.js';

const mhaWeights = (f, prefix = '') => ({
  inProjWeight: f[`${prefix}in_proj_weight`],
  inProjBias: f[`${prefix}in_proj_bias`],
  outProjWeight: f[`${prefix}out_proj_weight`],
  outProjBias: f[`${prefix}out_proj_bias`],
});

for (const variant of VARIANTS) {
  describe(`PyTorch fixtures (${variant.name})`, () => {
    for (const name of ['sdpa_basic', 'sdpa_cross_mask', 'sdpa_causal']) {
      test(name, async () => {
        const l = await lab(variant.simd);
        const f = fixture(name);
        const r = l.scaledDotProductAttention(f.q, f.k, f.v, { mask: f.mask, scale: f.scale });
        assertClose(r.scores, f.scores, { what: 'scores' });
        assertClose(r.scaledScores, f.scaled_scores, { what: 'scaledScores' });
        assertClose(r.weights, f.weights, { what: 'weights' });
        assertClose(r.output, f.output, { what: 'output' });
      });
    }

    for (const [name, causal] of [['mha_self'], ['mha_self_nobias'], ['mha_causal', true], ['mha_cross'], ['mha_padding']]) {
      test(name, async () => {
        const l = await lab(variant.simd);
        const f = fixture(name);
        const mha = new l.MultiHeadAttention({ dModel: f.d_model, numHeads: f.num_heads, bias: f.bias });
        mha.loadWeights(mhaWeights(f));
        const opts = causal ? { causal: true } : { mask: f.mask };
        const r = mha.forward(f.query, f.key, f.value, opts);
        assertClose(r.output, f.output, { what: 'output' });
        assert.equal(r.weights.length, f.num_heads);
        r.weights.forEach((w, h) => assertClose(w, f.weights[h], { what: `head ${h}` }));
        assertClose(r.averageWeights, f.weights_avg, { what: 'averageWeights' });
        assert.equal(mha.parameterCount(), f.parameter_count);
        mha.dispose();
      });
    }

    for (const [name, causal] of [['encoder_post_gelu'], ['encoder_pre_gelu'], ['encoder_post_causal', true]]) {
      test(name, async () => {
        const l = await lab(variant.simd);
        const f = fixture(name);
        const layer = new l.TransformerEncoderLayer({
          dModel: f.d_model, numHeads: f.num_heads, dFF: f.d_ff, normFirst: f.norm_first,
        });
        layer.loadWeights({
          selfAttn: mhaWeights(f, 'self_attn_'),
          linear1: { weight: f.linear1_weight, bias: f.linear1_bias },
          linear2: { weight: f.linear2_weight, bias: f.linear2_bias },
          norm1: { weight: f.norm1_weight, bias: f.norm1_bias },
          norm2: { weight: f.norm2_weight, bias: f.norm2_bias },
        });
        assertClose(layer.forward(f.x, { causal }), f.output, { atol: 2e-5, rtol: 2e-5 });
        assert.equal(layer.parameterCount(), f.parameter_count);
        layer.dispose();
      });
    }

    test('softmax of ±1e4 logits', async () => {
      const l = await lab(variant.simd);
      const f = fixture('softmax_large');
      assertClose(l.softmax(f.logits), f.weights, { atol: 1e-7 });
    });
  });
}
