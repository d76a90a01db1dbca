// Watch induction heads form: the page trains the attention-only model on fresh batches and reads each head's
// previous-token and induction scores and the held-out loss every EVALUATE_EVERY steps; the program trains as
// many steps as the page takes to its first evaluation after the untrained one, so it prints a step the page
// shows. Computed here as the page computes it (parts.js: its model, its batch of each step, its held-out
// examples, its evaluation), for both layer counts, with and without the position embedding.
import assert from 'node:assert/strict';

import { batchAt, evaluation, EVALUATE_EVERY, heldOut, makeModel } from '../../../site/src/lessons/induction-forming/parts.js';
import { STEPS } from '../../../site/src/lessons/induction-forming/settings.js';

export const states = [{}, { layers: 1, seed: 4 }, { positions: 'none', seed: 9 }];
export const prepare = (lab) => lab.loadTraining();

export async function expected(lab, state) {
  const model = makeModel(lab, { layers: state.layers, positions: state.positions === 'learned', seed: state.seed });
  try {
    const test = heldOut(model, state.seed);
    // The worker's first chunk: EVALUATE_EVERY steps, each on its step's batch, then one evaluation.
    const losses = Array.from({ length: EVALUATE_EVERY }, () => model.trainStep(batchAt(model, state.seed, model.steps)));
    const [step, loss, previousToken, induction] = evaluation(model, test);
    assert.equal(step, STEPS, `the program trains ${STEPS} steps; the page's first evaluation after step 0 is at step ${step}`);
    return {
      [`training loss of steps 1 to ${step}`]: losses,
      [`held-out loss after ${step} steps`]: [loss],
      'previous-token score of each head (layer, head)': previousToken,
      'induction score of each head (layer, head)': induction,
    };
  } finally {
    model.dispose();
  }
}
