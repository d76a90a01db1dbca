// Scaling: the page shows one draw's weights and largest weight, and over 200 draws the spread of the
// scores and the largest weight's mean and standard deviation; computed here with the package.
export const states = [{}, { dk: 1024, scale: 'none', seed: 11 }, { dk: 16, scale: 'custom', custom: 3, seed: 4 }];

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs) => { const m = mean(xs); return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1)); };

export async function expected(lab, state) {
  const scale = state.scale === 'none' ? 1 : state.scale === 'custom' ? 1 / state.custom : undefined;
  const scores = [], largest = [];
  let first;
  for (let d = 0; d < 200; d++) {
    const s = state.seed + 3 * d;
    const r = lab.scaledDotProductAttention(lab.randn(1, state.dk, s), lab.randn(5, state.dk, s + 1), lab.randn(5, state.dk, s + 2),
      scale === undefined ? {} : { scale });
    first ??= r.weights.data;
    scores.push(...r.scaledScores.data);
    largest.push(Math.max(...r.weights.data));
  }
  return {
    'weights (this draw)': first,
    'largest weight (this draw)': [largest[0]],
    'spread of the scores': [sd(scores)],
    'largest weight, mean over draws': [mean(largest)],
    'largest weight, standard deviation': [sd(largest)],
  };
}
