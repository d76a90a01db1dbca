// Whether a clean/corrupted pair can be read by patching at all. Patching's numbers are shares of the gap
// clean − corrupted (of the logit difference logit[target] − logit[baseline]); when the clean run does not
// favour the target more than the corrupted run does, that gap is small or negative, and every cell is
// exact and misleading: a "restored 2.14" divided by a gap of −0.5. So activationPatching and pathPatching
// refuse such a pair unless asked (allowUnfavourable: true), and then say so in the result.
import { checkBoolean, fail } from './checks.js';

// The least clean − corrupted (in logits) that patching's shares are read against: below it a cell's
// share is mostly the division (e^0.5 ≈ 1.6, the two runs' odds of target over baseline barely apart).
export const MIN_GAP = 0.5;

const three = (x) => x.toFixed(3);

// What a share means, including outside [0, 1] (activationPatching: the patched run against the
// corrupted one; pathPatching: against the clean one).
export const GRID_MEANING = '(patched − corrupted) / (clean − corrupted), of logit[target] − logit[baseline]: 0 = the corrupted ' +
  'run’s value, 1 = the clean run’s; above 1 the patch moves it past the clean run’s value, below 0 away from the clean run’s, ' +
  'further than the corrupted run is.';
export const ESTIMATE_MEANING = 'A first-order estimate of activationPatching’s cell, from the corrupted run’s gradient: ' +
  '(clean − corrupted activation) · ∂(logit[target] − logit[baseline])/∂activation over the cell, divided by (clean − corrupted) ' +
  'as activationPatching divides. Close to the patched run where the path to the logits is nearly linear in the activation; ' +
  'far from it where the patch passes later LayerNorms, softmaxes and MLPs (a residual stream) or saturates a softmax.';
export const PATH_MEANING = '(patched − clean) / (clean − corrupted), of logit[target] − logit[baseline]: 0 = no effect, ' +
  '−1 = all the way to the corrupted run’s value; below −1 past it, above 0 further from the corrupted run’s than the clean run is.';

// The sentence that says why the pair misleads, with both values.
function unfavourable(clean, corrupted) {
  return `the clean prompt does not favour the target over the baseline by more than the corrupted one does: ` +
    `logit[target] − logit[baseline] is ${three(clean)} on the clean prompt and ${three(corrupted)} on the corrupted one ` +
    `(clean − corrupted = ${three(clean - corrupted)}; patching needs more than ${MIN_GAP}), so its shares of that gap ` +
    'do not say how much of the clean behaviour a patch restores';
}

// The option, checked: false unless given.
export const allowUnfavourable = (fn, value) => (value === undefined ? false : checkBoolean(fn, 'allowUnfavourable', value));

// { warning } to add to the result (empty when the pair is favourable); refuses an unfavourable pair unless allowed.
export function gapVerdict(fn, clean, corrupted, allowed) {
  if (clean - corrupted > MIN_GAP) return {};
  const why = unfavourable(clean, corrupted);
  if (!allowed) {
    fail(fn, `${why}. Choose a pair where the clean prompt favours the target and the corrupted one the baseline ` +
      '(or swap the target and the baseline), or pass allowUnfavourable: true to get the numbers with a warning.');
  }
  return { warning: why[0].toUpperCase() + why.slice(1) + '.' };
}

// Patching puts one run's activations into the other: the prompts must be as long in tokens (the core's sweeps say
// the same; the package's own sweeps — a function metric, a path to the logits — check it here).
export function checkSameLength(fn, clean, corrupted) {
  if (clean.length !== corrupted.length) {
    fail(fn, `the clean prompt has ${clean.length} tokens and the corrupted prompt ${corrupted.length}: patching needs the same length`);
  }
}
