// TaskModel: training a small transformer on the toy tasks in the wasm heap, through the package.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { AttnLabError } from '../../web/index.js';
import { trainingLab, VARIANTS } from './helpers.js';

const throwsMessage = (fn, message) => assert.throws(fn, (e) => e instanceof AttnLabError && e.message === message);

for (const variant of VARIANTS) {
  test(`copy reaches 95% held-out accuracy in 150 steps of 16 (${variant.name})`, async () => {
    const l = await trainingLab(variant.simd);
    const model = new l.TaskModel({ task: 'copy', lr: 3e-3, seed: 3 });
    const { train, test: heldOut } = model.split(150 * 16, 300, 1);
    let loss = Infinity;
    for (let s = 0; s < 150; s++) loss = model.trainStep(train.slice(s * 16, (s + 1) * 16));
    const result = model.evaluate(heldOut);
    assert.ok(result.accuracy >= 0.95 && result.sequenceAccuracy >= 0.95, JSON.stringify(result));
    assert.ok(loss < 0.2, `last loss ${loss}`);
    assert.equal(model.steps, 150);
    // The trained head attends from each output position t to the symbol it copies, t − 6.
    const { layers } = model.attentionWeights(heldOut[0]);
    assert.equal(layers.length, 1);
    assert.equal(layers[0].length, 2);
    const diagonal = Math.max(...layers[0].map((w) => {
      let sum = 0;
      for (let t = 6; t < 12; t++) sum += w.data[t * 12 + t - 6];
      return sum / 6;
    }));
    assert.ok(diagonal > 0.8, `best head's weight on the copy diagonal: ${diagonal}`);
    model.dispose();
  });
}

test('the classifier tasks train at the tutorials\' learning rate, and examples decode to sentences', async () => {
  const l = await trainingLab(true);
  const model = new l.TaskModel({ task: 'coreference', seed: 3 });
  assert.deepEqual(model.info.classNames, ['first noun', 'second noun']);
  const { train, test: heldOut } = model.split(200 * 16, 300, 1);
  for (let s = 0; s < 200; s++) model.trainStep(train.slice(s * 16, (s + 1) * 16));
  assert.ok(model.evaluate(heldOut).accuracy >= 0.95);
  assert.match(model.decode(heldOut[0].tokens), /^the \w+ didn't (cross|eat) the \w+ because it was too \w+$/);
  model.dispose();
});

test('snapshot and restore replay training exactly', async () => {
  const l = await trainingLab(true);
  const model = new l.TaskModel({ task: 'reverse', seed: 5 });
  const [a, b] = [model.examples(16, 1), model.examples(16, 2)];
  model.trainStep(a);
  const saved = model.snapshot();
  const first = model.trainStep(b);
  model.trainStep(a);
  model.restore(saved);
  assert.equal(model.steps, 1);
  assert.equal(model.trainStep(b), first);
  const other = new l.TaskModel({ task: 'sort' });
  throwsMessage(() => other.restore(saved), "TaskModel.restore: the snapshot is of task 'reverse' but this model's task is 'sort'");
  other.dispose();
  model.dispose();
});

test('bad batches, ids and settings are AttnLabErrors and leave the model usable', async () => {
  const l = await trainingLab(true);
  const model = new l.TaskModel({ task: 'copy' });
  const [good] = model.examples(1, 1);
  throwsMessage(() => model.trainStep([]), 'TaskModel.trainStep: batch is empty');
  throwsMessage(() => model.trainStep('abc'), "TaskModel.trainStep: batch must be an array of { tokens, targets }, got 'abc'");
  throwsMessage(() => model.trainStep([{ ...good, tokens: good.tokens.slice(1) }]),
    'TaskModel.trainStep: batch[0].tokens has 11 ids but the copy task\'s sequences have 12');
  throwsMessage(() => model.trainStep([{ ...good, tokens: [99, ...good.tokens.slice(1)] }]),
    'TaskModel.trainStep: batch[0].tokens[0] = 99 is outside the vocabulary 0 … 11');
  throwsMessage(() => model.trainStep([{ ...good, targets: [...good.targets.slice(1), 1.5] }]),
    'TaskModel.trainStep: batch[0].targets[11] is not an integer (1.5)');
  throwsMessage(() => model.evaluate([{ ...good, targets: good.targets.map(() => 12) }]),
    'TaskModel.evaluate: examples[0].targets[0] = 12 is not a token id 0 … 11 or -100');
  throwsMessage(() => new l.TaskModel({ task: 'translate' }),
    "TaskModel: task must be one of 'copy', 'reverse', 'sort', 'coreference', 'sentiment', 'repeat', got 'translate'");
  throwsMessage(() => new l.TaskModel({ task: 'copy', lr: NaN }), 'TaskModel: lr must be a finite number, got NaN');
  assert.throws(() => new l.TaskModel({ task: 'copy', lr: -1 }), (e) => e instanceof AttnLabError && e.message.startsWith('TaskModel: '));
  assert.equal(model.steps, 0, 'nothing was trained');
  assert.ok(Number.isFinite(model.trainStep([good])));
  model.dispose();
  throwsMessage(() => model.trainStep([good]), 'TaskModel.trainStep: called on a disposed object');
});

test('training leaves the heap flat once the model is disposed', async () => {
  const l = await trainingLab(true);
  const warm = new l.TaskModel({ task: 'sort', seed: 1 });
  warm.trainStep(warm.examples(16, 1));
  warm.dispose();
  const before = l.memory().training.inUse;
  const model = new l.TaskModel({ task: 'sort', seed: 2 });
  for (let s = 0; s < 30; s++) model.trainStep(model.examples(16, s));
  model.snapshot();
  model.dispose();
  assert.equal(l.memory().training.inUse, before);
});

test('a diverging run stops with an AttnLabError, and no NaN ever comes out', async () => {
  const l = await trainingLab(true);
  // lr 1e30: the first steps throw the weights to ~1e30, and a forward pass then overflows float32.
  const model = new l.TaskModel({ task: 'copy', lr: 1e30, seed: 1 });
  const batch = model.examples(16, 1);
  let stopped = null;
  for (let s = 0; s < 20 && !stopped; s++) {
    try {
      const loss = model.trainStep(batch);
      assert.ok(Number.isFinite(loss), `step ${s} returned ${loss}`);
    } catch (error) {
      stopped = error;
    }
  }
  assert.ok(stopped instanceof AttnLabError, `stopped by ${stopped}`);
  assert.match(stopped.message, /^TaskModel\.trainStep: /);
  const steps = model.steps;
  assert.throws(() => model.attentionWeights(batch[0]), AttnLabError);  // the weights are unusable, so: an error
  assert.equal(model.steps, steps, 'a refused step changed nothing');
  model.dispose();
});
