// The induction circuit: the page finds the previous-token head (layer 0) and the induction head on seeded
// repeated random sequences, shows K-composition from the weights (model.compositionScores), every head's
// OV copying score (model.headCircuit) and the induction score with the previous-token head(s) knocked
// out; computed here with the package's own calls, not the page's code.
export const states = [
  { length: 30, seed: 0, mode: 'zero' },  // the defaults
  { length: 20, seed: 7, mode: 'mean' },
];

export async function expected(lab, { model }, state) {
  const { numLayers: L, numHeads: H, vocabSize } = model.config;
  const T = state.length, [low, high] = [256, vocabSize - 1];
  const scores = (ablate) => {
    const previous = new Float64Array(L * H), induction = new Float64Array(L * H);
    for (let s = 0; s < 4; s++) {
      const ids = lab.repeatedRandomTokens(T, { low, high, seed: state.seed + s });
      const { attention } = model.forward(ids, { attention: true, ...(ablate ? { ablate, ablation: state.mode } : {}) });
      attention.forEach((heads, l) => heads.forEach((a, h) => {
        for (let i = 1; i < 2 * T; i++) previous[l * H + h] += a.data[i * a.cols + i - 1] / (2 * T - 1) / 4;
        for (let i = T; i < 2 * T; i++) induction[l * H + h] += a.data[i * a.cols + i - T + 1] / T / 4;
      }));
    }
    return { previous, induction };
  };
  const intact = scores();
  const ranked = [0, 1, 2, 3].slice(0, H).sort((a, b) => intact.previous[b] - intact.previous[a]);
  let ind = H;
  for (let i = H; i < L * H; i++) if (intact.induction[i] > intact.induction[ind]) ind = i;
  const [il, ih] = [Math.floor(ind / H), ind % H];
  const { pairs } = model.compositionScores();
  const k = (a, l, h) => pairs.find((p) => p.from.layer === 0 && p.from.head === a && p.to.layer === l && p.to.head === h).k;
  const later = [];
  for (let l = 1; l < L; l++) for (let h = 0; h < H; h++) later.push([l, h]);
  const best = pairs.reduce((a, p) => (p.k > a.k ? p : a));
  const copying = [];
  for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) copying.push(model.headCircuit(l, h).copyingScore);
  const knocked = (heads) => scores(heads.map((head) => ({ layer: 0, head }))).induction[ind];
  return {
    'previous-token scores': intact.previous,
    'induction scores': intact.induction,
    'circuit (previous-token head, runner-up, induction head)': [0, ranked[0], 0, ranked[1], il, ih],
    'K-composition, layer-0 heads to later heads': Array.from({ length: H }, (_, a) => later.map(([l, h]) => k(a, l, h))).flat(),
    'K-composition, previous-token head to induction head': [k(ranked[0], il, ih)],
    'largest K-composition (from layer, head, to layer, head, score)': [best.from.layer, best.from.head, best.to.layer, best.to.head, best.k],
    'copying scores': copying,
    'induction score (intact, previous-token head out, both out)': [intact.induction[ind], knocked([ranked[0]]), knocked(ranked.slice(0, 2))],
    // Under TransformerLens's processing: raw, foldLn, foldLn + centreWriting, and centreUnembed too (copying only).
    'K-composition, previous-token head to induction head, under each processing': [{}, { foldLn: true }, { foldLn: true, centreWriting: true },
      { foldLn: true, centreWriting: true }].map((p) => model.compositionScores({ ...p, draws: 1 }).pairs
      .find((x) => x.from.layer === 0 && x.from.head === ranked[0] && x.to.layer === il && x.to.head === ih).k),
    "induction head's copying score, under each processing": [{}, { foldLn: true }, { foldLn: true, centreWriting: true },
      { foldLn: true, centreWriting: true, centreUnembed: true }].map((p) => model.copyingScores(p).data[ind]),
  };
}
