// Exercises: the page shows X (two decimals), the weights and scores with Q = K = V = X, the weights with
// the causal mask, the output's shape and the row sums; computed here with the package.
export const states = [{}, { seed: 0 }, { seed: 12345 }];

export async function expected(lab, state) {
  const tokens = lab.tokenize('the cat sat on the mat');
  const n = tokens.length;
  const x = lab.matrix(n, 8, Array.from(lab.embedTokens(tokens, 8, { seed: state.seed }).data, (v) => Math.round(v * 100) / 100));
  const { weights, scores } = lab.scaledDotProductAttention(x, x, x);
  const row = weights.data.slice(2 * n, 3 * n);
  // The first of the keys that share the largest weight, as argmax reports it.
  const best = row.indexOf(Math.max(...row));
  const sums = Array.from({ length: n }, (_, i) => weights.data.slice(i * n, (i + 1) * n).reduce((s, w) => s + w, 0));
  return {
    X: x.data,
    'weights of row 2': row,
    'most weight in row 2 goes to key': [best],
    'score[1][2]': [scores.data[1 * n + 2]],
    'weights with the causal mask': lab.scaledDotProductAttention(x, x, x, { causal: true }).weights.data,
    'output shape': [4, 8],
    'row sums': sums,
  };
}
