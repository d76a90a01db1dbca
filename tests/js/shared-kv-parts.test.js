// Shared keys and values (site/src/lessons/shared-kv/parts.js), in Node: the cache's bytes by the formula written
// out, which query heads share a key/value head, the calculator's refusals, the Try-this's verdicts, and the
// pooled model — its edited file loads in the package, and each head of a group then computes the group's mean
// key and value (the package's own hook_k and hook_v of the original model, averaged).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cacheRow, checkBytesGuess, CONFIGS, EXERCISE, formatBytes, heldOutWindows, kvBytesPerToken, kvHeadOf, poolGroups,
  poolKeyValueColumns, readCalculator, replaceTensors } from '../../site/src/lessons/shared-kv/parts.js';
import { lab as loadLab } from './helpers.js';

test('bytes per token: 2 × layers × key/value heads × head dimension × bytes, and the multi-head figure beside it', () => {
  // Llama 3 8B in bf16: 2 · 32 · 8 · 128 · 2 bytes = 128 KiB a token, 1 GiB for 8,192 tokens; 32 key/value heads: 4×.
  const llama3 = CONFIGS.find((c) => c.name === 'Llama 3 8B');
  assert.equal(kvBytesPerToken(llama3), 131072);
  assert.deepEqual(cacheRow(llama3), { perToken: 131072, context: 2 ** 30, multiHead: 524288, multiHeadContext: 2 ** 32, saving: 4 });
  assert.equal(kvBytesPerToken({ layers: 30, kvHeads: 3, headDim: 64 }, 4), 46080);
  assert.equal(formatBytes(131072), '128 KiB');
  assert.equal(formatBytes(2 ** 30), '1 GiB');
  assert.equal(formatBytes(188743680), '180 MiB');
  assert.equal(formatBytes(7516192768), '7 GiB');
  assert.equal(formatBytes(23040), '22.5 KiB');
  assert.equal(formatBytes(768), '768 bytes');
  for (const c of CONFIGS) assert.ok(c.heads % c.kvHeads === 0 && c.href.startsWith('https://huggingface.co/') && c.href.endsWith('/config.json'), c.name);
});

test('neighbouring query heads share a key/value head, as repeat_kv lays them out', () => {
  assert.deepEqual([0, 1, 2, 3].map((h) => kvHeadOf(h, 4, 2)), [0, 0, 1, 1]);
  assert.deepEqual([0, 3, 4, 8].map((h) => kvHeadOf(h, 9, 3)), [0, 1, 1, 2]);
  assert.deepEqual([0, 31].map((h) => kvHeadOf(h, 32, 1)), [0, 0]);
  assert.deepEqual(poolGroups(4), [4, 2, 1]);
  assert.deepEqual(poolGroups(12), [12, 2, 1]);
  assert.deepEqual(poolGroups(3), [3, 1]);
});

test('the calculator takes whole numbers in range whose key/value heads divide the query heads, and says why not', () => {
  const ok = { layers: '32', heads: '32', kvHeads: '8', headDim: '128', tokens: '8192' };
  assert.deepEqual(readCalculator(ok).values, { layers: 32, heads: 32, kvHeads: 8, headDim: 128, tokens: 8192 });
  assert.match(readCalculator({ ...ok, layers: '' }).error, /^Layers: the box is empty/);
  assert.match(readCalculator({ ...ok, headDim: '12.5' }).error, /^Head dimension: “12\.5” is not a whole number/);
  assert.match(readCalculator({ ...ok, layers: '0' }).error, /^Layers: 0 is outside 1 to 1,000/);
  assert.match(readCalculator({ ...ok, kvHeads: '5' }).error, /^Key\/value heads: 32 query heads do not split into 5 equal groups/);
  assert.match(readCalculator({ ...ok, kvHeads: '64' }).error, /^Key\/value heads: 64 is more than the 32 query heads/);
});

test('the Try-this: the right count, and a hint for each usual slip', () => {
  const answer = 2 * EXERCISE.layers * EXERCISE.kvHeads * EXERCISE.headDim * 2;
  assert.equal(checkBytesGuess(answer.toLocaleString('en')).correct, true);
  assert.match(checkBytesGuess(String(answer / 2)).message, /a key and a value/);
  assert.match(checkBytesGuess(String(2 * EXERCISE.layers * EXERCISE.heads * EXERCISE.headDim * 2)).message, /only the key\/value heads/);
  assert.match(checkBytesGuess(String(answer * 2)).message, /float32/);
  assert.match(checkBytesGuess('lots').message, /not a whole number/);
});

test('held-out windows share their edge token: every token after the first is predicted once', () => {
  const ids = Array.from({ length: 300 }, (_, i) => i);
  const windows = heldOutWindows(ids, 128);
  assert.deepEqual(windows.map((w) => [w[0], w.length]), [[0, 128], [127, 128], [254, 46]]);
  assert.equal(windows.reduce((n, w) => n + w.length - 1, 0), ids.length - 1);
});

test('the pooled file loads, and each head of a group computes the mean of the group\'s original keys and values', async () => {
  const lab = await loadLab(true);
  const { model } = await lab.loadBuiltinModel();
  const { numHeads: H, numLayers: L, dModel: d } = model.config;
  const dh = d / H;
  const replacements = {};
  for (let l = 0; l < L; l++) {
    const name = `h.${l}.attn.c_attn`;
    const { weight, bias } = poolKeyValueColumns(model.tensor(`${name}.weight`).data, model.tensor(`${name}.bias`).data, { dModel: d, heads: H, groups: 2 });
    Object.assign(replacements, { [`${name}.weight`]: weight, [`${name}.bias`]: bias });
  }
  const pooled = await lab.loadGPT(replaceTensors(model.save(), replacements));
  try {
    const ids = [1130, 258, 2081, 386, 3355, 17, 99];
    const t = ids.length;
    // Layer 0 reads the same input in both models: its keys and values, head by head.
    const names = ['blocks.0.attn.hook_k', 'blocks.0.attn.hook_v', 'blocks.0.attn.hook_q'];
    const before = model.runWithCache(ids, { names }).cache, after = pooled.runWithCache(ids, { names }).cache;
    for (const name of names.slice(0, 2)) {
      const x = before.get(name).data, y = after.get(name).data;  // (t, H, dh)
      for (let p = 0; p < t; p++) for (let h = 0; h < H; h++) for (let j = 0; j < dh; j++) {
        const g0 = h < H / 2 ? 0 : H / 2;
        let mean = 0;
        for (let k = g0; k < g0 + H / 2; k++) mean += x[(p * H + k) * dh + j] / (H / 2);
        assert.ok(Math.abs(y[(p * H + h) * dh + j] - mean) < 1e-4, `${name} at ${p}, head ${h}, ${j}: ${y[(p * H + h) * dh + j]} vs ${mean}`);
      }
    }
    assert.deepEqual(after.get('blocks.0.attn.hook_q').data, before.get('blocks.0.attn.hook_q').data, 'queries untouched');
  } finally {
    pooled.dispose();
  }
  assert.throws(() => replaceTensors(model.save(), { 'h.0.attn.c_attn.bias': new Float32Array(3) }), /holds 576 numbers, not 3/);
});
