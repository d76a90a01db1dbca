// Head jobs: the page shows the package's four head scores (headScores: previous-token and first-token
// on the prompt, induction and duplicate-token on 4 seeded repeated random sequences, each a mean over
// exactly T rows) and the induction demo (one head's weights and tokenLosses on the seed's sequence).
const DEFAULT_PROMPT = 'And the LORD spake unto Moses, saying, Speak unto the children of Israel, and say unto them, ' +
  'When a man shall vow a vow unto the LORD, he shall not break his word.';
export const states = [
  { prompt: DEFAULT_PROMPT, length: 30, seed: 0, layer: -1, head: -1 },  // the defaults
  { prompt: 'In the beginning was the Word, and the Word was with God.', length: 12, seed: 7, layer: 1, head: 2 },
  { prompt: '', length: 64, seed: 3, layer: -1, head: -1 },  // the longest T, an empty box
];

export async function expected(lab, { model, tokenizer }, state) {
  let ids = Array.from(tokenizer.encode(state.prompt));
  if (ids.length === 0) ids = Array.from(tokenizer.encode(DEFAULT_PROMPT));
  const T = Math.max(2, Math.min(state.length, Math.floor(model.config.contextLength / 2)));
  const [low, high] = [256, model.config.vocabSize - 1];
  const scores = model.headScores(ids, { repeatLength: T, samples: 4, seed: state.seed, tokenLow: low, tokenHigh: high });
  let best = 0;
  scores.induction.data.forEach((v, i) => { if (v > scores.induction.data[best]) best = i; });
  const { numHeads } = model.config;
  const [layer, head] = state.layer < 0 ? [Math.floor(best / numHeads), best % numHeads] : [state.layer, state.head];
  const repeated = lab.repeatedRandomTokens(T, { low, high, seed: state.seed });
  const { attention } = model.forward(repeated, { attention: true, logits: 'none' });
  const losses = model.tokenLosses(repeated);
  const mean = (from, to) => losses.slice(from, to).reduce((a, b) => a + b, 0) / (to - from);
  return {
    'previous-token': scores.previousToken.data, 'first-token': scores.firstToken.data,
    induction: scores.induction.data, 'duplicate-token': scores.duplicateToken.data,
    'demo head': [layer, head], stripe: attention[layer][head].data, losses,
    'first copy, second copy (mean loss)': [mean(0, T - 1), mean(T, 2 * T - 1)],
  };
}
