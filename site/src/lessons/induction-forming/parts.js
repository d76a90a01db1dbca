// "Watch induction heads form", DOM-free (the lesson, its training worker and tests/js/induction-forming.test.js
// share it): the model and data of scripts/induction-recipe.py's recipe, the batch of each step, the
// scores read at each evaluation, and where the phase change is.
//
// The task is the training module's 'repeat': 32 random letters whose last 2L are a segment and the same
// segment again, L drawn per example from 4 … 12; only the second copy's predictable tokens are scored.
// Because L varies, no head looking a fixed distance back can solve it: the model must find where the
// current letter came before and copy the one after it — an induction head, which needs a head in an
// earlier layer to have written "the letter before me" into each position.

// One head per layer: the phase change comes sooner than with two (scripts/induction-recipe.log: steps 450–550 against
// 550–850 in PyTorch), and the circuit is one previous-token head in layer 0 and one induction head in layer 1.
export const RECIPE = Object.freeze({ dModel: 32, numHeads: 1, dFF: 0, lr: 5e-3 });  // attention-only
export const BATCH = 16;         // fresh examples per step
export const HELD_OUT = 64;      // examples the scores and the held-out loss are read on
export const EVALUATE_EVERY = 25;
export const INDUCTION_THRESHOLD = 0.5;  // a head whose induction score passes this is an induction head
export const MAX_STEPS = 3000;   // where a run stops by itself (seeds 0–9 change phase by step 1150: scripts/induction-seeds.json)

// The model for the learner's choices: layers 1 or 2, positions on or off.
export function makeModel(lab, { layers, positions, seed }) {
  return new lab.TaskModel({ task: 'repeat', layers, positions, seed, ...RECIPE });
}

// The held-out examples (from the run's seed) and the batch of step `step` (from 0): fresh examples each
// step, from seeds that never meet the held-out one.
export const heldOut = (model, seed) => model.examples(HELD_OUT, seed);
export const batchAt = (model, seed, step) => model.examples(BATCH, seed + 1 + step);

// One evaluation: [step, held-out loss, previous-token scores, induction scores] (scores layer-major).
export function evaluation(model, test) {
  const { loss } = model.evaluate(test);
  const { previousToken, induction } = model.inductionScores(test);
  return [model.steps, loss, Array.from(previousToken), Array.from(induction)];
}

// The first evaluation at which some head's induction score passes the threshold, with the loss there
// and at the evaluation EVALUATE_EVERY·4 steps earlier; null if none has.
export function phaseChange(evaluations) {
  const at = evaluations.findIndex(([, , , induction]) => Math.max(...induction) > INDUCTION_THRESHOLD);
  if (at < 0) return null;
  const [step, loss, , induction] = evaluations[at];
  const before = evaluations[Math.max(0, at - 4)];
  const head = induction.indexOf(Math.max(...induction));
  return { step, loss, head, score: induction[head], stepBefore: before[0], lossBefore: before[1] };
}
