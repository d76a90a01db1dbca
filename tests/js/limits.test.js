// Resource limits: a request larger than the wasm heap can hold is an AttnLabError, not a trap, and
// undisposed modules are freed by the FinalizationRegistry once garbage-collected.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { AttnLabError } from '../../web/index.js';
import { lab } from './helpers.js';

test('a matrix too large for the wasm heap is an AttnLabError and the module keeps working', async () => {
  const l = await lab(true);
  assert.throws(() => l.randn(50000, 50000, 1),
    (e) => e instanceof AttnLabError && e.message === 'randn: out of memory: the inputs are too large for the wasm heap');
  assert.deepEqual(Array.from(l.softmax(l.matrix(1, 2, [0, 0])).data), [0.5, 0.5]);
});

test('undisposed modules are freed after garbage collection', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const l = await lab(true);
  const baseline = l.memory().inUse;
  (() => {
    for (let i = 0; i < 20; i++) new l.MultiHeadAttention({ dModel: 64, numHeads: 4, seed: i }).forward(l.randn(4, 64, i));
  })();
  assert.ok(l.memory().inUse > baseline + 20 * 4 * 64 * 64 * 4, 'the layers are allocated');
  // Finalizers run as separate tasks after a collection: collect and yield until they have run.
  for (let attempt = 0; attempt < 50 && l.memory().inUse > baseline; attempt++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(l.memory().inUse, baseline);
});
