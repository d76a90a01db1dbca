// The induction circuit lesson's measurements and its Try-this check, DOM-free (tests/js run them): the
// heads' scores on seeded repeated random sequences, the circuit's two heads, and which layer-0 head's
// output the induction head's keys read most (K-composition). Ties among the heads: head-ties.js.
export const SAMPLES = 4;  // repeated sequences per score, as head-jobs measures them

// Two scores of each head over SAMPLES seeded random sequences of `length` tokens in [low, high) repeated once, with
// `options` passed to forward (an ablation): previous, the mean weight from each position i ≥ 1 on i − 1;
// induction, the mean weight from each token of the second copy on the token after its first occurrence
// (model.headScores' induction score when nothing is knocked out). Float64Array [layers × heads] each.
export function repeatScores(lab, model, { length, seed, low, high }, options = {}) {
  const { numLayers, numHeads } = model.config;
  const previous = new Float64Array(numLayers * numHeads), induction = new Float64Array(numLayers * numHeads);
  for (let s = 0; s < SAMPLES; s++) {
    const ids = lab.repeatedRandomTokens(length, { low, high, seed: seed + s });
    const { attention } = model.forward(ids, { ...options, attention: true, logits: 'none' });
    for (let l = 0; l < numLayers; l++) for (let h = 0; h < numHeads; h++) {
      const a = attention[l][h];
      let back = 0, ahead = 0;
      for (let i = 1; i < 2 * length; i++) back += a.data[i * a.cols + i - 1];
      for (let i = length; i < 2 * length; i++) ahead += a.data[i * a.cols + i - length + 1];
      previous[l * numHeads + h] += back / (2 * length - 1) / SAMPLES;
      induction[l * numHeads + h] += ahead / length / SAMPLES;
    }
  }
  return { previous, induction };
}

// The layer-0 heads ranked by previous-token score, and the later head with the largest induction score.
export function circuitHeads(scores, { numLayers, numHeads }) {
  const previous = Array.from({ length: numHeads }, (_, h) => ({ layer: 0, head: h, score: scores.previous[h] }))
    .sort((a, b) => b.score - a.score);
  let induction = { layer: 1, head: 0, score: -Infinity };
  for (let l = 1; l < numLayers; l++) for (let h = 0; h < numHeads; h++) {
    const score = scores.induction[l * numHeads + h];
    if (score > induction.score) induction = { layer: l, head: h, score };
  }
  return { previous, induction };
}

const name = ({ layer, head }) => `L${layer}H${head}`;

// The Try-this: is `guess` (a layer-0 head) the one whose output the induction head's keys read most?
// pairs: model.compositionScores().pairs. → { correct, message }.
export function checkKeyReader(pairs, induction, guess) {
  const into = pairs.filter((p) => p.from.layer === 0 && p.to.layer === induction.layer && p.to.head === induction.head)
    .sort((a, b) => b.k - a.k);
  const rank = into.findIndex((p) => p.from.head === guess);
  if (rank === 0) {
    return { correct: true, message: `Yes: L0H${guess}’s output is the one ${name(induction)}’s keys read most, K-composition ${into[0].k.toFixed(3)}.` };
  }
  return { correct: false, message: `Not quite: L0H${guess} ranks ${rank + 1} of ${into.length} (K-composition ${into[rank].k.toFixed(3)}); ` +
    `the largest into ${name(induction)} is from L0H${into[0].from.head}, ${into[0].k.toFixed(3)}.` };
}
