#include "attention/lean_attention.hpp"

#include <cmath>

#include "attention/block_mask.hpp"
#include "tensor/checks.hpp"
#include "kernels/kernels.hpp"

namespace attnlab::detail {

AttentionResult lean_attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionOptions& options) {
  // Q [n_q×d_k], K [n_k×d_k], V [n_k×d_v] → weights [n_q×n_k], output [n_q×d_v]
  if (options.bias || options.alibi_slope || options.dropout > 0.0f) return scaled_dot_product_attention(q, k, v, options);
  constexpr const char* fn = "scaled_dot_product_attention";
  const LargestEntries largest = check_attention_arguments(fn, q, k, v, options);
  require_attention_budget(fn, q, k, v, options, Tracer());
  const Eigen::Index n_q = q.rows(), n_k = k.rows();
  const float scale = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(q.cols())));

  AttentionResult r;
  r.weights.resize(n_q, n_k);
  kernels::gemm(q, kernels::pack(k, true), 0, 0, n_k, scale, false, r.weights.data(), n_k);
  if (!scaled_scores_fit_float(largest, q.cols(), scale)) require_finite_scores(fn, r.weights, 0, 0);
  mask_score_block(r.weights, options, 0, 0, n_q, n_k);
  kernels::softmax_rows(r.weights);
  r.output = kernels::matmul(r.weights, v);
  return r;
}

}  // namespace attnlab::detail
