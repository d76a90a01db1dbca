// The exercises' numbers and their checkers, apart from the page so that a test can run every
// checker over hundreds of seeds against an independent solution (tests/js/site-exercises.test.js).
// X is rounded to two decimals before anything is computed: the numbers the learner reads on the page
// are exactly the numbers attnlab uses, so an answer worked out from the page is right.

export const SENTENCE = 'the cat sat on the mat';
export const QUERY_ROW = 2;   // exercise 1's query
export const SCORE_AT = [1, 2];  // exercise 2's score[i][j]
const REAL_TOKENS = 4;  // the padding mask's unpadded keys
export const MASKS = [['none', 'no mask'], ['causal', 'causal mask'], ['padding', `padding mask (${REAL_TOKENS} real tokens)`]];
export const SHAPE = { q: [4, 8], k: [6, 8], v: [6, 8] };

const round2 = (v) => Math.round(v * 100) / 100;

// → { tokens, x [n×8], weights, scores [n×n], check: { key, score, mask, shape, rowSum } }; every
// check returns { correct, … what the page reveals }.
export function exerciseSet(lab, seed) {
  const tokens = lab.tokenize(SENTENCE);
  const n = tokens.length;
  const embedded = lab.embedTokens(tokens, 8, { seed });
  const x = lab.matrix(n, 8, Array.from(embedded.data, round2));
  const { weights, scores } = lab.scaledDotProductAttention(x, x, x);
  const at = (m, i, j) => m.data[i * m.cols + j];
  const row = Array.from({ length: n }, (_, j) => at(weights, QUERY_ROW, j));
  const largest = Math.max(...row);
  const best = row.indexOf(largest);

  const check = {
    // Exercise 1: the key (index) with the most weight in row QUERY_ROW. A repeated word ("the") is the
    // same key twice, so either copy is right (their weights are equal to the last bit).
    key(j) {
      return { correct: Number.isInteger(j) && row[j] === largest, best, weight: largest };
    },
    // Exercise 2: the raw score q_1 · k_2 typed to two decimals (rounded or cut off: within 0.01).
    score(text) {
      const truth = at(scores, ...SCORE_AT);
      const value = String(text).trim() === '' ? NaN : Number(text);
      return { correct: Number.isFinite(value) && Math.abs(value - truth) < 0.01, truth };
    },
    // Exercise 3: the mask that makes every weight above the diagonal exactly 0.
    mask(choice) {
      const mask = choice === 'causal' ? lab.causalMask(n) : choice === 'padding' ? lab.keyPaddingMask(n, n, REAL_TOKENS) : undefined;
      const masked = lab.scaledDotProductAttention(x, x, x, mask ? { mask } : {}).weights;
      let above = 0;
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (at(masked, i, j) !== 0) above++;
      return { correct: above === 0, above, weights: masked };
    },
    // Exercise 4: the output's shape for Q, K, V of SHAPE.
    shape(rows, cols) {
      const out = lab.scaledDotProductAttention(lab.randn(...SHAPE.q, 1), lab.randn(...SHAPE.k, 2), lab.randn(...SHAPE.v, 3)).output;
      return { correct: Number(rows) === out.rows && Number(cols) === out.cols, rows: out.rows, cols: out.cols };
    },
    // Exercise 5: what every row of the weights adds up to.
    rowSum(text) {
      const sums = Array.from({ length: n }, (_, i) => weights.data.slice(i * n, (i + 1) * n).reduce((s, w) => s + w, 0));
      const value = String(text).trim() === '' ? NaN : Number(text);
      return { correct: Math.abs(value - 1) < 1e-3, sums };
    },
  };
  return { tokens, x, weights, scores, check };
}
