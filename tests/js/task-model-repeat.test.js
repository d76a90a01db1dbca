// TaskModel for the induction-head lesson: the repeat task, attention-only layers (dFF: 0), no position
// embedding (positions: false), and the per-head scores, checked against the attention weights the
// model hands out; then the lesson's recipe (scripts/induction-recipe.py) trained for a few hundred
// steps past its phase change.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { AttnLabError } from '../../web/index.js';
import { trainingLab, VARIANTS } from './helpers.js';

const RECIPE = { task: 'repeat', layers: 2, dFF: 0, dModel: 32, numHeads: 1, lr: 5e-3 };

// The scores computed here from attentionWeights(): for each example, L = N − (first target's position);
// previous-token = mean of w(t, t − 1) over t = N − L … N − 1, induction = mean of w(N − L + i, N − 2L + i + 1)
// over i = 0 … L − 2; then the mean over the examples, heads layer-major.
function scoresFromWeights(model, examples) {
  const previousToken = [], induction = [];
  examples.forEach((e, k) => {
    const n = e.tokens.length, length = n - e.targets.findIndex((t) => t !== -100);
    const heads = model.attentionWeights(e).layers.flat();
    heads.forEach((w, h) => {
      let prev = 0, ind = 0;
      for (let t = n - length; t < n; t++) prev += w.data[t * n + t - 1];
      for (let i = 0; i < length - 1; i++) ind += w.data[(n - length + i) * n + (n - 2 * length + i + 1)];
      previousToken[h] = (k ? previousToken[h] : 0) + prev / length / examples.length;
      induction[h] = (k ? induction[h] : 0) + ind / (length - 1) / examples.length;
    });
  });
  return { previousToken, induction };
}

test('repeat examples: 32 letters, the last 2L a segment and its repeat, targets on the repeat', async () => {
  const l = await trainingLab(true);
  const model = new l.TaskModel({ task: 'repeat', layers: 2, dFF: 0 });
  assert.equal(model.info.seqLen, 32);
  assert.equal(model.info.vocabulary.length, 27);
  assert.equal(model.info.vocabulary[1], 'a');
  for (const e of model.examples(50, 3)) {
    const length = 32 - e.targets.findIndex((t) => t !== -100);
    assert.ok(length >= 4 && length <= 12, `segment length ${length}`);
    for (let t = 32 - length; t < 32; t++) assert.equal(e.tokens[t], e.tokens[t - length]);
    for (let t = 32 - length; t < 31; t++) assert.equal(e.targets[t], e.tokens[t + 1]);
    assert.equal(e.targets[31], -100);
  }
  model.dispose();
});

test('dFF: 0 has no feed-forward parameters and positions: false no position table', async () => {
  const l = await trainingLab(true);
  // Per layer 4·(32·32 + 32) + 2·32 = 4288; embedding and head 27·32 (+ 27), final norm 64, positions 32·32.
  const sizes = { attentionOnly: 2 * 4288 + 864 + 891 + 64 + 1024, noPositions: 2 * 4288 + 864 + 891 + 64 };
  const a = new l.TaskModel({ ...RECIPE }), b = new l.TaskModel({ ...RECIPE, positions: false });
  assert.equal(a.parameterCount(), sizes.attentionOnly);
  assert.equal(b.parameterCount(), sizes.noPositions);
  assert.equal(new l.TaskModel({ ...RECIPE, dFF: 64 }).parameterCount(), sizes.attentionOnly + 2 * (32 * 64 + 64 + 64 * 32 + 32 + 64));
  a.dispose();
  b.dispose();
});

test('options are checked: positions a boolean, dFF ≥ 0, unknown names refused with the nearest', async () => {
  const l = await trainingLab(true);
  const throwsMessage = (fn, message) => assert.throws(fn, (e) => e instanceof AttnLabError && e.message === message);
  throwsMessage(() => new l.TaskModel({ ...RECIPE, positions: 0 }), 'TaskModel: positions must be a boolean, got 0');
  assert.throws(() => new l.TaskModel({ ...RECIPE, dFF: -1 }), (e) => e instanceof AttnLabError && /^TaskModel: dFF must be an integer ≥ 0/.test(e.message));
  assert.throws(() => new l.TaskModel({ ...RECIPE, position: false }), (e) => e instanceof AttnLabError &&
    /^TaskModel: unknown option "position" — did you mean "positions"\?/.test(e.message));
  throwsMessage(() => new l.TaskModel({ task: 'repeat', length: 20 }),
    "TaskModel: Task: repeat's length (its sequence length) must be in 24 … 64 (or 0 for 32), got 20");
  const copy = new l.TaskModel({ task: 'copy' });
  throwsMessage(() => copy.inductionScores(copy.examples(2, 1)), "TaskModel.inductionScores: the model's task is 'copy', not 'repeat'");
  copy.dispose();
});

for (const variant of VARIANTS) {
  test(`the recipe's induction head forms by step 1000 and the scores match its attention weights (${variant.name})`, async (t) => {
    const l = await trainingLab(variant.simd);
    const model = new l.TaskModel({ ...RECIPE, seed: 0 });
    const { train, test: heldOut } = model.split(1000 * 16, 64, 0);
    const scored = heldOut.slice(0, 8);
    const before = model.inductionScores(scored);
    const expected = scoresFromWeights(model, scored);
    for (const key of ['previousToken', 'induction']) {
      assert.ok(before[key] instanceof Float32Array && before[key].length === 2);
      before[key].forEach((s, h) => assert.ok(Math.abs(s - expected[key][h]) < 1e-6, `${key}[${h}]: ${s} vs ${expected[key][h]}`));
    }
    const start = performance.now();
    for (let s = 0; s < 1000; s++) model.trainStep(train.slice(s * 16, (s + 1) * 16));
    t.diagnostic(`${((performance.now() - start) / 1000).toFixed(2)} ms per step`);
    const after = model.inductionScores(heldOut);
    assert.ok(Math.max(...after.induction) > 0.7, `induction scores ${Array.from(after.induction)}`);
    assert.ok(model.evaluate(heldOut).loss < 0.6);
    const check = scoresFromWeights(model, scored), mine = model.inductionScores(scored);
    mine.induction.forEach((s, h) => assert.ok(Math.abs(s - check.induction[h]) < 1e-6));
    model.dispose();
  });
}
