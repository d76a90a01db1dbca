// TransformerLens's cache algebra through the package (ActivationCache.accumulatedResid, decomposeResid,
// stackHeadResults, stackActivation, applyLnToStack, logitAttrs, hook_result, get_act_name's short forms), in
// both wasm builds, against the fixture's ActivationCache methods written out in float64 PyTorch
// (tests/fixtures/make_interp_fixtures.py, cache_algebra) for the random small GPT and attnlab-kjv; and what a
// caller gets wrong, each refused by name.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { lab, readSafetensors, VARIANTS } from './helpers.js';

const fixtures = new URL('../fixtures/', import.meta.url);
const WEIGHTS = {
  small: new URL('gpt/small.safetensors', fixtures),
  kjv: new URL('../../web/models/kjv/model.safetensors', import.meta.url),
};

// |a − e| ≤ 1e-4 · max |e| elementwise, shapes equal.
function assertTensor(actual, expected, what) {
  assert.deepEqual(actual.shape, expected.shape, `${what}: shape`);
  let largest = 0;
  for (const e of expected.data) largest = Math.max(largest, Math.abs(e));
  for (let i = 0; i < expected.data.length; i++) {
    assert.ok(Math.abs(actual.data[i] - expected.data[i]) <= 1e-4 * largest + 1e-7, `${what}[${i}] = ${actual.data[i]}, PyTorch ${expected.data[i]}`);
  }
}

for (const variant of VARIANTS) {
  for (const name of ['small', 'kjv']) {
    test(`${name}: the cache algebra matches TransformerLens's methods in PyTorch (${variant.name})`, async () => {
      const l = await lab(variant.simd);
      const model = await l.loadGPT(new Uint8Array(readFileSync(WEIGHTS[name])));
      const expected = JSON.parse(readFileSync(new URL(`interp/${name}.json`, fixtures), 'utf8'));
      const reference = readSafetensors(new URL(`interp/${name}-cache.safetensors`, fixtures));
      const algebra = expected.algebra;
      const ref = (key) => reference.get(`algebra.${key}`);
      const checkStack = (ours, key) => {
        assert.deepEqual(ours.labels, algebra.labels[key], `${key}: labels`);
        assertTensor(ours.stack, ref(key), key);
      };
      const { cache } = model.runWithCache(expected.clean);
      const L = model.config.numLayers;
      const last = expected.clean.length - 1;
      for (let layer = 0; layer < L; layer++) {
        assertTensor(cache.get('result', layer), ref(`result.${layer}`), `result ${layer}`);
        assertTensor(cache.get(`blocks.${layer}.attn.hook_result`), ref(`result.${layer}`), `hook_result ${layer}`);
        assert.ok(cache.has('result', layer));
      }
      checkStack(cache.accumulatedResid({ inclMid: true, applyLn: true }), 'accumulated');
      checkStack(cache.accumulatedResid({ layer: 1, inclMid: true, mlpInput: true, applyLn: true, position: -1 }), 'accumulated_l1_last');
      const decomposed = cache.decomposeResid();
      checkStack(decomposed, 'decompose');
      checkStack(cache.decomposeResid({ layer: 1, mlpInput: true, applyLn: true, position: last }), 'decompose_l1_last');
      checkStack(cache.stackHeadResults({ inclRemainder: true, applyLn: true }), 'heads');
      const headsLast = cache.stackHeadResults({ position: -1 });
      checkStack(headsLast, 'heads_last');
      assertTensor(cache.applyLnToStack(decomposed.stack, { layer: 1, mlpInput: true }), ref('ln_stack_l1_mlp'), 'applyLnToStack');
      const metric = { tokens: algebra.target, incorrectTokens: algebra.baseline };
      const attrs = cache.logitAttrs(cache.decomposeResid({ position: last }).stack, { ...metric, position: last });
      assertTensor(attrs, ref('attrs_decompose_last'), 'logitAttrs (decompose)');
      assertTensor(cache.logitAttrs(headsLast.stack, { ...metric, position: -1 }), ref('attrs_heads_last'), 'logitAttrs (heads)');
      assertTensor(cache.logitAttrs(decomposed.stack, { tokens: algebra.following, incorrectTokens: algebra.following.map(() => algebra.baseline) }),
        ref('attrs_decompose_next'), 'logitAttrs (a token per position)');

      // get_act_name's names; stackActivation stacks what get returns.
      assert.deepEqual(cache.get('pattern', 0), cache.get('blocks.0.attn.hook_pattern'));
      assert.deepEqual(cache.get('pattern1'), cache.get('blocks.1.attn.hook_pattern'));
      assert.deepEqual(cache.get('scale', 1, 'ln2'), cache.get('blocks.1.ln2.hook_scale'));
      assert.deepEqual(cache.get('scale'), cache.get('ln_final.hook_scale'));
      const patterns = cache.stackActivation('pattern');
      assert.deepEqual(patterns.labels, Array.from({ length: L }, (_, i) => `blocks.${i}.attn.hook_pattern`));
      const one = cache.get('pattern', 0);
      assert.deepEqual(patterns.stack.shape, [L, ...one.shape]);
      assert.deepEqual(patterns.stack.data.subarray(0, one.data.length), one.data);
      model.dispose();
    });
  }

  test(`short forms in names, and every mistake refused by name (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const model = await l.loadGPT(new Uint8Array(readFileSync(WEIGHTS.small)));
    const ids = [1, 2, 3, 4];
    const { cache } = model.runWithCache(ids, { names: ['resid_pre', 'pattern0', 'hook_embed'] });
    assert.deepEqual(cache.names(), ['hook_embed', 'blocks.0.hook_resid_pre', 'blocks.0.attn.hook_pattern', 'blocks.1.hook_resid_pre']);
    assert.throws(() => model.runWithCache(ids, { names: ['patern'] }), /unknown hook name "patern" — did you mean "pattern"\?/);
    assert.throws(() => cache.get('resid_pre'), /"resid_pre" is a point in every block: give its layer, get\('resid_pre', 0\)/);
    assert.throws(() => cache.get('blocks.0.attn.hook_patern'), /did you mean "blocks\.0\.attn\.hook_pattern"\?/);
    assert.throws(() => cache.decomposeResid(), /this run did not keep "hook_pos_embed"/);
    const full = model.runWithCache(ids).cache;
    assert.throws(() => full.accumulatedResid({ layer: 3 }), /layer must be in 0 … 2 \(or −1 for 2, the unembed\), got 3/);
    assert.throws(() => full.accumulatedResid({ position: 4 }), /position 4 is outside the sequence 0 … 3/);
    assert.throws(() => full.decomposeResid({ mode: 'heads' }), /mode must be one of/);
    assert.throws(() => full.logitAttrs(full.decomposeResid().stack, { tokens: 1, position: -1 }), /stack must be \(components, 32\) \(one position was given\)/);
    assert.throws(() => full.logitAttrs(full.decomposeResid().stack, { tokens: [1, 2] }), /tokens must be one id or one per position \(4\), got 2/);
    assert.throws(() => full.logitAttrs(full.decomposeResid().stack, { tokens: 99 }), /token 99 is outside the vocabulary/);
    assert.throws(() => full.stackHeadResults({ layer: 0 }), /layer 0 has no heads before it/);
    assert.equal(full.accumulatedResid().labels.at(-1), 'final_post');  // the module is usable after each refusal
    model.dispose();
    assert.throws(() => full.decomposeResid(), /disposed/);
  });

  test(`a Llama's cache takes get_act_name's names and refuses the algebra by name (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const dir = new URL('llama/kjv_vocab_folder/', fixtures);
    const files = Object.fromEntries(readdirSync(dir).map((file) => [file, new Uint8Array(readFileSync(new URL(file, dir)))]));
    const { model } = await l.loadModel(files);
    const { cache } = model.runWithCache([1, 2, 3]);
    assert.deepEqual(cache.get('rot_q', 0), cache.get('blocks.0.attn.hook_rot_q'));
    assert.deepEqual(cache.get('pattern0'), cache.get('blocks.0.attn.hook_pattern'));
    assert.throws(() => cache.decomposeResid(), /ActivationCache\.decomposeResid: is a GPT's .* a LlamaModel's cache offers get, has and names/);
    assert.throws(() => cache.logitAttrs({ shape: [1, 3, 2], data: new Float32Array(6) }, { tokens: 1 }), /is a GPT's/);
    model.dispose();
  });
}
