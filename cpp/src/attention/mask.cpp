#include "attnlab/attention/mask.hpp"

#include "tensor/checks.hpp"

namespace attnlab {

Matrix causal_mask(int n) {
  detail::require_positive("causal_mask", "n", n);
  return causal_mask(n, n);
}

Matrix causal_mask(int n_q, int n_k) {
  detail::require_positive("causal_mask", "n_q", n_q);
  detail::require_positive("causal_mask", "n_k", n_k);
  detail::require_within_budget("causal_mask", 1, n_q, n_k, "the mask");
  const int offset = n_k - n_q;  // query i sits at sequence position i + offset
  Matrix mask(n_q, n_k);
  for (int i = 0; i < n_q; ++i)
    for (int j = 0; j < n_k; ++j) mask(i, j) = j <= i + offset ? 1.0f : 0.0f;
  return mask;
}

Matrix key_padding_mask(int n_q, int n_k, int valid_length) {
  detail::require_positive("key_padding_mask", "n_q", n_q);
  detail::require_positive("key_padding_mask", "n_k", n_k);
  if (valid_length < 0 || valid_length > n_k)
    detail::fail("key_padding_mask", "valid_length must be in 0 … n_k = 0 … ", n_k, ", got ", valid_length);
  detail::require_within_budget("key_padding_mask", 1, n_q, n_k, "the mask");
  Matrix mask = Matrix::Zero(n_q, n_k);
  mask.leftCols(valid_length).setOnes();
  return mask;
}

std::vector<Matrix> key_padding_masks(int n_q, int n_k, const std::vector<int>& valid_lengths) {
  if (valid_lengths.empty()) detail::fail("key_padding_masks", "valid_lengths is empty");
  std::vector<Matrix> masks;
  masks.reserve(valid_lengths.size());
  for (int length : valid_lengths) masks.push_back(key_padding_mask(n_q, n_k, length));
  return masks;
}

Matrix combine_masks(const Matrix& a, const Matrix& b) {
  detail::require_non_empty("combine_masks", "a", a);
  detail::require_mask("combine_masks", "a", a, a.rows(), a.cols());
  detail::require_mask("combine_masks", "b", b, a.rows(), a.cols());
  return a.cwiseProduct(b);
}

}  // namespace attnlab
