// Issue 51, item 2, in the package: activationPatching's stop and hold, in both wasm builds. An already-aborted
// signal is rejected before the clean and corrupted runs (so before the refusal of a pair they would show to be
// unfavourable); a stop between two cells of one layer takes effect there (the signal is checked per cell, not
// per layer); a model disposed mid-sweep is held until the sweep ends, which finishes with the numbers of an
// undisposed copy, and the model refuses new calls at once; the sweep's cells, one at a time, are the grid of a
// sweep run whole (and of the core's per-layer cells, through interp.test.js's PyTorch comparison).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { lab, VARIANTS } from './helpers.js';

const WEIGHTS = new Uint8Array(readFileSync(new URL('../fixtures/gpt/small.safetensors', import.meta.url)));
const A = [1, 2, 3, 4, 5, 6], B = [1, 2, 3, 4, 5, 7];
const metric = { target: 1, baseline: 2 };

// A signal that aborts itself at its `n`th check (throwIfAborted), counting the checks: a stop between cells.
function abortingAt(n) {
  const controller = new AbortController();
  const { signal } = controller;
  let checks = 0;
  const check = signal.throwIfAborted.bind(signal);
  signal.throwIfAborted = () => {
    if (++checks === n) controller.abort();
    check();
  };
  return { signal, checks: () => checks };
}

for (const variant of VARIANTS) {
  test(`an already-aborted signal is rejected before any run, also on a pair the runs would refuse (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const model = await l.loadGPT(WEIGHTS);
    // At least one of the two orders is a pair whose clean run does not favour the target by more than 0.5: without
    // the signal it is refused once both runs have been made (an AttnLabError), with an aborted one it must be the AbortError.
    const refusals = [];
    for (const [clean, corrupted] of [[A, B], [B, A]]) {
      await model.activationPatching(clean, corrupted, { what: 'resid_pre', metric }).catch((e) => refusals.push(e.name));
      await assert.rejects(model.activationPatching(clean, corrupted, { what: 'resid_pre', metric, signal: AbortSignal.abort() }), { name: 'AbortError' });
    }
    assert.ok(refusals.length > 0 && refusals.every((name) => name === 'AttnLabError'), `refusals: ${refusals}`);
    model.dispose();
  });

  test(`a stop between two cells of a layer takes effect there, and the cells one at a time make the whole grid (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const model = await l.loadGPT(WEIGHTS);
    const options = { what: 'resid_pre', metric, allowUnfavourable: true };
    const whole = await model.activationPatching(A, B, options);
    assert.deepEqual(whole.grid.shape, [2, 6]);
    // Check 1 is before the two runs, 2 before cell 0, 3 before cell 1: stopped inside layer 0, no layer reported.
    const stop = abortingAt(3);
    const progress = [];
    await assert.rejects(model.activationPatching(A, B, { ...options, signal: stop.signal, onProgress: (p) => progress.push(p) }), { name: 'AbortError' });
    assert.equal(stop.checks(), 3);
    assert.deepEqual(progress, []);
    // Never stopped, the same signal-checked sweep gives the same numbers, bit for bit.
    const checked = await model.activationPatching(A, B, { ...options, signal: new AbortController().signal });
    assert.deepEqual(checked.grid.data, whole.grid.data);
    model.dispose();
  });

  test(`a model disposed mid-sweep is held until the sweep ends, with the numbers of one never disposed (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const [model, copy] = [await l.loadGPT(WEIGHTS), await l.loadGPT(WEIGHTS)];
    const options = { what: 'z', per: 'head', metric, allowUnfavourable: true };
    const want = await copy.activationPatching(A, B, options);
    let refused = null;
    const got = await model.activationPatching(A, B, { ...options, onProgress: ({ done }) => {
      if (done !== 1) return;
      model.dispose();
      try {
        model.forward(A);
      } catch (error) {
        refused = error;
      }
    } });
    assert.deepEqual(got.grid.data, want.grid.data);
    assert.match(refused?.message ?? '', /GPTModel\.forward: called on a disposed object/);
    await assert.rejects(model.activationPatching(A, B, options), /called on a disposed object/);
    // A second dispose is nothing, and the module goes on working.
    model.dispose();
    assert.equal(copy.forward(A).logits.rows, 6);
    copy.dispose();
  });
}
