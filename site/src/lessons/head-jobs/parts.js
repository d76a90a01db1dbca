// What a head with no job would score: one that spreads each row's weight evenly over the keys the
// causal mask lets it see (row i sees keys 0 … i, each with weight 1/(i + 1)). A head score is only
// news when it is far above this.

// The induction score (the mean over the second copy's rows i = T … 2T − 1 of A[i, i − T + 1]) of an
// even spread on random tokens of length T repeated twice: (1/T) · Σ 1/(i + 1), about ln 2 / T.
export function evenSpreadInduction(T) {
  let sum = 0;
  for (let i = T; i < 2 * T; i++) sum += 1 / (i + 1);
  return sum / T;
}
