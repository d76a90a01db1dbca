// Ablation: the page shows each head's induction score, the next-token distribution with every head and
// with the chosen ones knocked out (zero or mean) and their KL, the repeated sequence's losses, and the
// second copy's loss as the induction heads go one more at a time; computed here with the package.
const DEFAULT_PROMPT = 'Now the serpent was more subtil than any beast of the field. And the serpent said unto the woman, Ye shall not surely die: ' +
  'for God doth know that in the day ye eat thereof, then your eyes shall be opened. And the';
export const states = [
  { prompt: DEFAULT_PROMPT, heads: '', mode: 'zero', length: 30, seed: 0 },  // the defaults
  { heads: '1.2,3.0', mode: 'zero', length: 20, seed: 4 },
  { prompt: 'And Moses said unto Aaron, Take a censer, and put fire therein', heads: '2.1,9.9,2.3', mode: 'mean', length: 40, seed: 2 },
];
// The heads of the states above that are inside the 4 × 4 model, written out by hand.
const KNOCKED = { '': [], '1.2,3.0': [[1, 2], [3, 0]], '2.1,9.9,2.3': [[2, 1], [2, 3]] };

export async function expected(lab, { model, tokenizer }, state) {
  let ids = Array.from(tokenizer.encode(state.prompt));
  if (ids.length === 0) ids = Array.from(tokenizer.encode(DEFAULT_PROMPT));
  const T = state.length, [low, high] = [256, model.config.vocabSize - 1];
  const induction = model.headScores(tokenizer.encode('In the beginning'), { repeatLength: T, samples: 4, seed: state.seed, tokenLow: low, tokenHigh: high })
    .induction;
  const ablate = KNOCKED[state.heads].map(([layer, head]) => ({ layer, head }));
  const options = ablate.length ? { ablate, ablation: state.mode } : {};
  const next = (opts) => lab.sample(model.forward(ids, { ...opts, logits: 'last' }).logits.data, { temperature: 1 }).probabilities;
  const [p0, p1] = [next({}), next(options)];
  let kl = 0;
  for (let i = 0; i < p0.length; i++) if (p0[i] > 0) kl += p0[i] * Math.log(p0[i] / Math.max(p1[i], 1e-30));
  const repeated = lab.repeatedRandomTokens(T, { low, high, seed: state.seed });
  const copies = (opts) => {
    const losses = model.tokenLosses(repeated, opts);
    const mean = (from, to) => losses.slice(from, to).reduce((a, b) => a + b, 0) / (to - from);
    return [mean(0, T - 1), mean(T, 2 * T - 1)];
  };
  const ranked = Array.from(induction.data.keys()).filter((i) => induction.data[i] >= 0.3).sort((a, b) => induction.data[b] - induction.data[a])
    .map((i) => ({ layer: Math.floor(i / induction.cols), head: i % induction.cols }));
  return {
    'induction scores': induction.data, 'all heads': p0, 'knocked out': p1, KL: [kl],
    'all heads, first copy and second': copies(undefined),
    ...(ablate.length ? { 'knocked out, first copy and second': copies(options) } : {}),
    'induction heads, best first': ranked.flatMap(({ layer, head }) => [layer, head]),
    'second copy, the first k knocked out (k = 0, 1, …)': ranked.map((_, k) => k).concat(ranked.length)
      .map((k) => copies(k ? { ablate: ranked.slice(0, k), ablation: state.mode } : undefined)[1]),
  };
}
