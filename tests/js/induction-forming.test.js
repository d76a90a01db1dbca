// Watch induction heads form, trained in Node as the lesson's worker trains it (site/src/lessons/induction-forming/parts.js,
// seeded): with two attention-only layers the phase change comes — some head's induction score passes 0.5
// while the held-out loss falls far below where it sat — and the head that looks one letter back is in
// layer 0; with one layer, trained twice as long, no head's induction score passes 0.3 and the loss stays
// above 1.9 nats: a head that looks a fixed distance back can only spread its guess over the segment
// lengths still possible at each position.
// Scripts/induction-recipe.py saw the same in PyTorch (phase change at steps 550–850 for seeds 0–2).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { batchAt, EVALUATE_EVERY, evaluation, heldOut, makeModel, phaseChange, RECIPE } from '../../site/src/lessons/induction-forming/parts.js';
import { trainingLab } from './helpers.js';

// Trains `steps` steps, evaluating every EVALUATE_EVERY as the worker does → the evaluations.
function trainRun(lab, choices, steps) {
  const model = makeModel(lab, choices);
  try {
    const test = heldOut(model, choices.seed);
    const evaluations = [evaluation(model, test)];
    while (model.steps < steps) {
      model.trainStep(batchAt(model, choices.seed, model.steps));
      if (model.steps % EVALUATE_EVERY === 0) evaluations.push(evaluation(model, test));
    }
    return evaluations;
  } finally {
    model.dispose();
  }
}

test('two attention-only layers: an induction head forms in a phase change, fed by a previous-token head in layer 0', async () => {
  const lab = await trainingLab(true);
  const evaluations = trainRun(lab, { layers: 2, positions: true, seed: 0 }, 1500);
  const change = phaseChange(evaluations);
  assert.ok(change, `no head's induction score passed 0.5 in 1500 steps: ${JSON.stringify(evaluations.at(-1))}`);
  const plateau = evaluations.find(([step]) => step === 200)[1];
  const [, finalLoss, previous, induction] = evaluations.at(-1);
  assert.ok(plateau > 2, `the loss at step 200 is ${plateau}: no plateau`);
  assert.ok(finalLoss < plateau / 2, `the loss went from ${plateau} to only ${finalLoss}`);
  assert.ok(Math.max(...induction) > 0.5);
  const layerOf = (scores) => Math.floor(scores.indexOf(Math.max(...scores)) / RECIPE.numHeads);
  assert.equal(layerOf(induction), 1, 'the induction head is in layer 1');
  assert.equal(layerOf(previous), 0, `the strongest previous-token head is not in layer 0: ${previous}`);
});

test('one layer, twice as long: no induction head, and the loss stays above 1.9', async () => {
  const lab = await trainingLab(true);
  const evaluations = trainRun(lab, { layers: 1, positions: true, seed: 0 }, 3000);
  assert.equal(phaseChange(evaluations), null);
  const best = Math.max(...evaluations.flatMap(([, , , induction]) => induction));
  assert.ok(best < 0.3, `an induction score reached ${best}`);
  const [, finalLoss] = evaluations.at(-1);
  assert.ok(finalLoss > 1.9, `the one-layer loss fell to ${finalLoss}`);
});
