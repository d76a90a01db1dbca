// 10,000 forward calls leave the wasm heap flat: results are JS copies and nothing stays allocated.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { VARIANTS, lab } from './helpers.js';

for (const variant of VARIANTS) {
  test(`10,000 forward calls do not grow the wasm heap (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const mha = new l.MultiHeadAttention({ dModel: 16, numHeads: 4, seed: 1 });
    const x = l.randn(8, 16, 2);
    mha.forward(x, x, x, { causal: true });  // warm up
    const before = l.memory();
    for (let i = 0; i < 10000; i++) mha.forward(x, x, x, { causal: true });
    const after = l.memory();
    assert.equal(after.inUse, before.inUse, 'bytes in use');
    assert.equal(after.heapSize, before.heapSize, 'heap size');
    mha.dispose();
    assert.ok(l.memory().inUse < before.inUse, 'dispose frees the layer');
  });
}
