// Ranking heads by a score without crowning a winner the numbers cannot pick (issue 51): heads within TIE
// of the highest, as the page shows them, are a tie, and the pages say so and let the learner choose.
// DOM-free: tests/js/induction-ties.test.js runs it.
const name = ({ layer, head }) => `L${layer}H${head}`;

// Over 4 seeded sequences the induction scores move by about this much from one seed or length to the next
// (attnlab-kjv: L1H1 0.945, L1H0 0.938, L1H3 0.935 at length 30; L1H3 first at length 10), so calling one
// of heads this close "the strongest" would be the seed's choice, not the model's.
export const TIE = 0.01;

// Every head from layer `fromLayer` on by its value in `values` ([layers × heads], row-major), largest first,
// and those within TIE of the first as shown, to 3 decimals (0.945 and 0.935 tie):
// { ranked: [{ layer, head, score }], tied: [the first and its equals] }.
export function rankHeads(values, { numLayers, numHeads }, fromLayer = 0) {
  const ranked = [];
  for (let l = fromLayer; l < numLayers; l++) for (let h = 0; h < numHeads; h++) ranked.push({ layer: l, head: h, score: values[l * numHeads + h] });
  ranked.sort((a, b) => b.score - a.score);
  const shown = (x) => Math.round(x.score * 1000);
  return { ranked, tied: ranked.filter((x) => shown(ranked[0]) - shown(x) <= TIE * 1000) };
}

// The induction heads the induction circuit can have: outside layer 0, since they read a layer-0 head's output.
export const inductionRanking = (scores, config) => rankHeads(scores.induction, config, 1);

// The sentence naming the highest score ("induction score", say), and saying a tie when there is one; `then`
// tells the learner where to choose among the tied heads.
export function tieWords({ tied }, { score = 'induction score', then = 'choose the one to study below' } = {}) {
  const f3 = (x) => x.toFixed(3);
  const [first, ...equals] = tied;
  const best = `The highest ${score} is ${name(first)}’s, ${f3(first.score)}`;
  if (equals.length === 0) return `${best}, more than ${TIE} above any other head’s.`;
  const others = equals.map((x) => `${name(x)} (${f3(x.score)})`);
  return `${best}, but ${others.length === 1 ? others[0] : `${others.slice(0, -1).join(', ')} and ${others.at(-1)}`} ` +
    `${equals.length === 1 ? 'is' : 'are'} within ${TIE} of it: a tie. A measurement this close does not single out one ` +
    `head (another length or seed can put another first); ${then}.`;
}
