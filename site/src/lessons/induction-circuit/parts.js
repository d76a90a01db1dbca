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

// TransformerLens's processing steps, in the order it applies them, and what each row of the lesson's table
// computes under: the composition scores take foldLn and centreWriting; centreUnembed changes only the copying
// score (it shifts every logit by the same amount, which no composition of heads reads).
export const PROCESSINGS = [
  { label: 'raw weights', composition: {}, copying: {} },
  { label: 'LayerNorms folded', composition: { foldLn: true }, copying: { foldLn: true } },
  { label: 'folded, writing weights centred', composition: { foldLn: true, centreWriting: true }, copying: { foldLn: true, centreWriting: true } },
  { label: 'and the unembedding centred', composition: { foldLn: true, centreWriting: true }, copying: { foldLn: true, centreWriting: true, centreUnembed: true } },
];

// One row per processing: the circuit's three readings of the weights under it. compositions[i]: model.compositionScores
// (PROCESSINGS[i].composition); copyings[i]: model.copyingScores(PROCESSINGS[i].copying).data (layers × heads).
// prev, induction: the circuit's heads. → [{ label, ratio (prev → induction's K-composition over the baseline),
// keyReader (the layer-0 head whose output the induction head's keys read most), copying (the induction head's
// score), higher (heads scoring higher) }].
export function processingRows(compositions, copyings, prev, induction, numHeads) {
  return PROCESSINGS.map(({ label }, i) => {
    const { pairs, baseline } = compositions[i];
    const into = pairs.filter((p) => p.from.layer === 0 && p.to.layer === induction.layer && p.to.head === induction.head);
    const link = into.find((p) => p.from.head === prev.head);
    const keyReader = into.reduce((a, p) => (p.k > a.k ? p : a)).from;
    const scores = Array.from(copyings[i]);
    const copying = scores[induction.layer * numHeads + induction.head];
    return { label, ratio: link.k / baseline, keyReader, copying, higher: scores.filter((s) => s > copying).length };
  });
}

// Which of the lesson's readings hold under every processing, in words, from processingRows' rows.
export function processingWords(rows, prev, induction) {
  const all = (test) => rows.every(test);
  const link = all((r) => r.keyReader.head === prev.head)
    ? `${name(prev)} is the layer-0 head whose output ${name(induction)}’s keys read most under every processing`
    : `${name(prev)} is the layer-0 head ${name(induction)}’s keys read most only with ${rows.filter((r) => r.keyReader.head === prev.head).map((r) => r.label).join(', ') || 'none of them'}`;
  const two = (x) => x.toFixed(2).replace('-', '−');
  const ratios = rows.map((r) => r.ratio);
  const [low, high] = [Math.min(...ratios), Math.max(...ratios)];
  const span = low.toFixed(2) === high.toFixed(2) ? two(low) : `${two(low)} to ${two(high)}`;
  const above = `its K-composition is ${span} times the random baseline` +
    (low > 1 ? ', above it under each' : high < 1 ? ', below it under each' : ', above it under some and not others');
  const signs = new Set(rows.map((r) => Math.sign(r.copying)));
  const copying = signs.size > 1
    ? `the copying score of ${name(induction)} changes sign between them (${rows.map((r) => two(r.copying)).join(', ')}), so it says nothing on its own`
    : `the copying score of ${name(induction)} keeps its sign (${rows.map((r) => two(r.copying)).join(', ')})` +
      (new Set(rows.map((r) => r.higher)).size > 1 ? ' but not its rank among the heads' : ' and its rank among the heads');
  return `${link}; ${above}; ${copying}. What holds under every processing is a finding about the model; what moves is a finding about the convention.`;
}
