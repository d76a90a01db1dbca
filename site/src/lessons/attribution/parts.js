// Who wrote this logit, DOM-free (the page and tests/js/attribution-exercise.test.js share it): the
// attribution's terms in the order the learner asked for, the heads among them, and the exercise's check.
import { formatNumber } from '../../dom.js';

// 'sorted': largest push toward the target first, largest push away last; 'model': as the stream adds them.
export function orderTerms(terms, order) {
  const indexed = terms.map((term, index) => ({ ...term, index }));
  return order === 'sorted' ? indexed.sort((a, b) => b.value - a.value || a.index - b.index) : indexed;
}

// The heads' terms only: [{ layer, head, label, value }].
export const headTerms = (terms) => terms.filter((t) => t.part === 'head');

// The head whose output, read straight off the unembedding, adds most to logit[target] − logit[baseline].
export function strongestHead(terms) {
  return headTerms(terms).reduce((best, t) => (t.value > best.value ? t : best));
}

// "predict which head matters most, then check": the learner's (layer, head) against strongestHead.
export function checkHeadGuess(terms, layer, head) {
  const best = strongestHead(terms);
  const guess = headTerms(terms).find((t) => t.layer === layer && t.head === head);
  if (!guess) return { correct: false, message: `The model has no head L${layer}H${head}.` };
  const say = (t) => `${t.label} (${signed(t.value)})`;
  return best === guess
    ? { correct: true, message: `Right: ${say(best)} adds more to the difference than any other head.` }
    : { correct: false, message: `Not this one: ${say(guess)}. The head that adds most is ${say(best)}.` };
}

// A term as the bars print it: its sign always shown.
export const signed = (x) => `${x > 0 ? '+' : ''}${formatNumber(x, 3)}`;
