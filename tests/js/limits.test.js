// Resource limits: a request larger than the wasm heap can hold is an AttnLabError, not a trap, and
// undisposed modules are freed by the FinalizationRegistry once garbage-collected.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { AttnLabError, init } from '../../web/index.js';
import { lab } from './helpers.js';

// fn must throw an AttnLabError whose message matches `pattern`.
const throwsMessage = (fn, pattern) => assert.throws(fn, (e) => e instanceof AttnLabError && pattern.test(e.message));

const BUDGET_HINT = ' (init({ memoryBudget }) or lab.setMemoryBudget() sets it)';

test('a matrix over the memory budget is refused before allocating, and the module keeps working', async () => {
  const l = await lab(true);
  const before = l.memory();
  assert.equal(before.budget, 512 * 2 ** 20);
  // 50000² floats × 4 bytes = 1e10 bytes = 9.313 GiB.
  assert.throws(() => l.randn(50000, 50000, 1), (e) => e instanceof AttnLabError && e.message ===
    'randn: needs about 9.313 GiB (the matrix: 1 × 50000×50000 floats) but the memory budget is 512 MiB' + BUDGET_HINT);
  assert.equal(l.memory().heapSize, before.heapSize, 'nothing was allocated');
  assert.deepEqual(Array.from(l.softmax(l.matrix(1, 2, [0, 0])).data), [0.5, 0.5]);
});

test('seq 100,000 with weights requested is refused with the sizes; weights: false is the way out', async () => {
  const l = await lab(true);
  const x = l.randn(100000, 1, 4);
  const before = l.memory().heapSize;
  // scores, scaled, masked, weights and the causal mask: 5 × 1e10 floats × 4 bytes = 2e11 bytes = 186.3 GiB.
  assert.throws(() => l.scaledDotProductAttention(x, x, x, { causal: true }), (e) => e instanceof AttnLabError &&
    e.message === 'scaledDotProductAttention: needs about 186.3 GiB (the n_q×n_k scores, weights and the steps ' +
      'between: 5 × 100000×100000 floats) but the memory budget is 512 MiB' + BUDGET_HINT);
  // Eight heads' weights, their average and one head's working set: 15 × 1e10 × 4 bytes = 558.8 GiB.
  const mha = new l.MultiHeadAttention({ dModel: 8, numHeads: 8 });
  throwsMessage(() => mha.forward(l.randn(100000, 8, 5)), /^MultiHeadAttention\.forward: needs about 558\.8 GiB/);
  mha.dispose();
  assert.ok(l.memory().heapSize - before < 16 * 2 ** 20, 'the refused calls allocated no n×n matrix');
});

test('the budget is set in init or later, validated, and a smaller one refuses smaller calls', async () => {
  const l = await init({ memoryBudget: 2 ** 20 });
  assert.equal(l.memory().budget, 2 ** 20);
  assert.equal(l.causalMask(512).rows, 512);  // 512² × 4 bytes = 1 MiB exactly: allowed
  throwsMessage(() => l.causalMask(513), /^causalMask: needs about 1\.004 MiB \(the mask: 1 × 513×513 floats\) but the memory budget is 1 MiB/);
  throwsMessage(() => l.matrix(513, 513), /^matrix: a 513×513 matrix needs 1052676 bytes, over the memory budget of 1048576 bytes/);
  // An input copied into the heap counts too.
  const big = { rows: 600, cols: 600, data: new Float32Array(360000) };
  throwsMessage(() => l.softmax(big), /^softmax: m: needs about 1\.373 MiB \(a copy of the input/);
  l.setMemoryBudget(4 * 2 ** 20);
  assert.equal(l.softmax(big).rows, 600);
  for (const bad of [0, -1, 1.5, 2 ** 31 + 1, Infinity, NaN, '512', null]) {
    assert.throws(() => l.setMemoryBudget(bad),
      (e) => e instanceof AttnLabError && e.message.startsWith('setMemoryBudget: memoryBudget must be a whole number of bytes in 1 … 2147483648'));
    await assert.rejects(init({ memoryBudget: bad }), (e) => e instanceof AttnLabError && e.message.startsWith('init: memoryBudget must be'));
  }
  assert.equal(l.memory().budget, 4 * 2 ** 20, 'a refused budget leaves the old one');
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
  assert.ok(l.memory().inUse <= baseline, `${l.memory().inUse} bytes in use, ${baseline} before`);
});
