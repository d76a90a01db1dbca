// How <attn-stepper> shows each named tensor of a trace step — palette, axis titles, which axis
// carries token labels — and which parts of the operands made a cell of the step's result. The
// names are the trace's (Q, K, V, scores, mask, weights, W_o, …: see Step in web/index.d.ts). Going
// by name rather than shape matters: with 4 tokens and d_k = 4, Q and the scores are both 4×4, yet
// only the scores have keys along their columns.

// n_q × n_k matrices: queries down, keys across.
const ATTENTION_SHAPED = /^(scores|scaled_scores|masked_scores|mask|weights|exp)$/;
// Rows are key (or value) tokens.
const KEY_ROWS = /^(K|V|K_h|V_h)$/;
// Parameter matrices in PyTorch layout [out × in]: no token axis.
const PARAMETER = /^W_/;
// Values in [0, 1]: the sequential palette on a fixed domain, so heads and steps compare at a glance.
const PROBABILITY = /(^|_)(weights|mask)$/;

// A mask is 0 (blocked) or 1 (kept): printed as such, not as 0.00 / 1.00.
const DECIMALS = (name) => (name === 'mask' ? 0 : 2);

// The site's colour language (web/README.md, "Colours"): a sequential palette on [0, 1] for
// probabilities, a diverging one centred on 0 for everything signed.
export const DEFAULT_PALETTES = Object.freeze({ weights: 'YlOrRd', signed: 'RdBu' });

// → { palette, domain, decimals, rowTitle, colTitle, rowLabels, colLabels } for one tensor.
// labels: { rows?: query tokens, cols?: key tokens (default: the query tokens, as in self-attention) };
// palettes: { weights, signed } palette names.
export function tensorView(name, matrix, labels = {}, palettes = DEFAULT_PALETTES) {
  const queries = labels.rows;
  const keys = labels.cols ?? labels.rows;
  const fit = (list, n) => (Array.isArray(list) && list.length === n ? list : null);
  const colour = {
    ...(PROBABILITY.test(name) ? { palette: palettes.weights, domain: [0, 1] } : { palette: palettes.signed, domain: null }),
    decimals: DECIMALS(name),
  };
  if (ATTENTION_SHAPED.test(name)) {
    return { ...colour, rowTitle: 'Query', colTitle: 'Key', rowLabels: fit(queries, matrix.rows), colLabels: fit(keys, matrix.cols) };
  }
  if (PARAMETER.test(name)) {
    return { ...colour, rowTitle: 'Output dim', colTitle: 'Input dim', rowLabels: null, colLabels: null };
  }
  const tokens = KEY_ROWS.test(name) ? fit(keys, matrix.rows) : fit(queries, matrix.rows) ?? fit(keys, matrix.rows);
  return { ...colour, rowTitle: KEY_ROWS.test(name) ? 'Key' : 'Token', colTitle: 'Dimension', rowLabels: tokens, colLabels: null };
}

const row = (i) => ({ rows: [i] });
const cell = (i, j) => ({ cells: [[i, j]] });

// OPERANDS[result][operand](i, j): the operand's part that cell (i, j) of the result depends on.
const OPERANDS = {
  scores: { Q: row, K: (i, j) => row(j) }, // scores[i][j] = Q[i] · K[j]
  scaled_scores: { scores: cell }, // divided by √d_k
  masked_scores: { mask: cell, scaled_scores: cell },
  weights: { masked_scores: row, scaled_scores: row }, // softmax normalises the whole row
  output: { weights: row, V: (i, j) => ({ cols: [j] }), W_o: (i, j) => row(j) }, // Σ_t w[i][t]·V[t][j]; concat[i]·W_o[j]
  sum: { attention: cell, ffn: cell }, // residual: x + sublayer(x)
};

// The highlight for `operand` when cell (i, j) of `result` is picked, or null.
export function operandHighlight(result, operand, i, j) {
  return OPERANDS[result]?.[operand]?.(i, j) ?? null;
}

// A step that belongs to one head has a "head<h>" part in its id ("head1.scores",
// "attn.head0.weights"); → h, or null for a step every head shares (the projections, the concat).
export function headOfStep(step) {
  const match = /(?:^|\.)head(\d+)(?:\.|$)/.exec(step?.id ?? '');
  return match ? Number(match[1]) : null;
}
