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

test('weights: false runs long sequences in O(n·d) memory (online softmax)', async () => {
  const l = await lab(true);
  const n = 4096;
  const [q, k, v] = [l.randn(n, 64, 1), l.randn(n, 64, 2), l.randn(n, 64, 3)];
  const before = l.memory().heapSize;
  const { output } = l.scaledDotProductAttention(q, k, v, { causal: true, weights: false });
  // The n×n weights alone would be 64 MiB; inputs, output and blocks fit in a few MiB more.
  assert.ok(l.memory().heapSize - before < 16 * 2 ** 20, `heap grew by ${l.memory().heapSize - before} bytes`);
  // The first rows equal the full computation on just those queries (same keys, same causal mask).
  const rows = 8;
  const head = { rows, cols: 64, data: q.data.slice(0, rows * 64) };
  // Query i of the full sequence sees keys 0…i: the mask for the first rows, built entry by entry.
  const firstRows = l.keyPaddingMask(rows, n, 1);
  for (let i = 0; i < rows; i++) for (let j = 0; j <= i; j++) firstRows.data[i * n + j] = 1;
  const full = l.scaledDotProductAttention(head, k, v, { mask: firstRows });
  for (let i = 0; i < rows * 64; i++) assert.ok(Math.abs(output.data[i] - full.output.data[i]) < 1e-5, `entry ${i}`);
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
