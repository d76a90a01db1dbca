#include "attnlab/attention/backward.hpp"

#include <cmath>

#include "tensor/checks.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

namespace {

// In place: d holds ∂L/∂weights on entry and ∂L/∂logits on return. Row dot products in double: they
// sum products of either sign, and the difference dw − dot is where precision would go.
void softmax_backward_rows(const Matrix& weights, Matrix& d) {
  // weights [rows×cols], d [rows×cols]
  for (Eigen::Index r = 0; r < d.rows(); ++r) {
    double dot = 0.0;
    for (Eigen::Index c = 0; c < d.cols(); ++c) dot += static_cast<double>(d(r, c)) * weights(r, c);
    // A weight of 0 (a blocked logit, or every entry of a fully blocked row) gives exactly 0 here.
    for (Eigen::Index c = 0; c < d.cols(); ++c)
      d(r, c) = static_cast<float>(weights(r, c) * (static_cast<double>(d(r, c)) - dot));
  }
}

void check_backward_arguments(const char* function, const Matrix& q, const Matrix& k, const Matrix& v,
                              const AttentionResult& forward, const Matrix& d_output,
                              const AttentionOptions& options) {
  // The forward's checks of Q, K, V, mask, bias and scale, with the same messages. Backward draws no
  // random numbers, so dropout is checked here and the rng is not asked for.
  AttentionOptions without_dropout = options;
  without_dropout.dropout = 0.0f;
  detail::check_attention_arguments(function, q, k, v, without_dropout);
  detail::require_probability(function, "dropout", options.dropout);

  const auto n_q = q.rows(), n_k = k.rows();
  detail::require_shape(function, "forward.weights", forward.weights, n_q, n_k);
  detail::require_finite(function, "forward.weights", forward.weights);
  if (options.dropout > 0.0f) {
    if (forward.weights_before_dropout.size() == 0)
      detail::fail(function, "forward.weights_before_dropout is empty but dropout is ", options.dropout,
                   " (pass the result of the forward call made with these options)");
    detail::require_shape(function, "forward.weights_before_dropout", forward.weights_before_dropout, n_q, n_k);
    detail::require_finite(function, "forward.weights_before_dropout", forward.weights_before_dropout);
  } else if (forward.weights_before_dropout.size() != 0) {
    detail::fail(function, "forward holds weights_before_dropout (it ran with dropout) but dropout is 0 here ",
                 "(pass the same options as to the forward call)");
  }
  detail::require_shape(function, "d_output", d_output, n_q, v.cols());
  detail::require_finite(function, "d_output", d_output);
}

}  // namespace

Matrix softmax_backward(const Matrix& weights, const Matrix& d_weights) {
  // weights [rows×cols], d_weights [rows×cols] → d_logits [rows×cols]
  constexpr const char* kFunction = "softmax_backward";
  detail::require_non_empty(kFunction, "weights", weights);
  detail::require_shape(kFunction, "d_weights", d_weights, weights.rows(), weights.cols());
  for (Eigen::Index r = 0; r < weights.rows(); ++r)
    for (Eigen::Index c = 0; c < weights.cols(); ++c)
      if (!(weights(r, c) >= 0.0f && weights(r, c) <= 1.0f))
        detail::fail(kFunction, "weights (", shape_of(weights), ") must be softmax rows, in [0, 1], got ",
                     weights(r, c), " at (", r, ", ", c, ")");
  detail::require_finite(kFunction, "d_weights", d_weights);
  detail::require_within_budget(kFunction, 1, static_cast<double>(weights.rows()),
                                static_cast<double>(weights.cols()), "the gradient");
  Matrix d_logits = d_weights;
  softmax_backward_rows(weights, d_logits);
  detail::require_finite_result(kFunction, d_logits, "d_weights is too large (scale it down)");
  return d_logits;
}

AttentionGradients scaled_dot_product_attention_backward(const Matrix& q, const Matrix& k, const Matrix& v,
                                                         const AttentionResult& forward, const Matrix& d_output,
                                                         const AttentionOptions& options) {
  // Q [n_q×d_k], K [n_k×d_k], V [n_k×d_v], forward.weights [n_q×n_k], d_output [n_q×d_v]
  //   → d_q [n_q×d_k], d_k [n_k×d_k], d_v [n_k×d_v], d_bias [n_q×n_k] (with options.bias)
  constexpr const char* kFunction = "scaled_dot_product_attention_backward";
  check_backward_arguments(kFunction, q, k, v, forward, d_output, options);
  const double n_q = static_cast<double>(q.rows()), n_k = static_cast<double>(k.rows());
  // d_scores, the two transposed copies the products read, and d_bias.
  detail::require_within_budget(kFunction, 3 + (options.bias ? 1 : 0), n_q, n_k,
                                "the n_q×n_k gradients of the weights and scores");
  detail::require_within_budget(kFunction, 1, 1,
                                n_q * static_cast<double>(q.cols()) + n_k * static_cast<double>(k.cols()) +
                                    n_k * static_cast<double>(v.cols()),
                                "the gradients of Q, K and V");
  const float scale = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(q.cols())));  // as forward
  AttentionGradients g;

  // 5. Undo `output = weights·V`: d_V = weightsᵀ·d_output, d_weights = d_output·Vᵀ.
  g.d_v = kernels::matmul(Matrix(forward.weights.transpose()), d_output);
  detail::require_finite_result(kFunction, g.d_v, "d_V = weightsᵀ·d_output (scale d_output down)");
  Matrix d_scores = kernels::matmul_transposed(d_output, v);  // ∂L/∂weights for now, ∂L/∂scores at the end
  detail::require_finite_result(kFunction, d_scores, "d_weights = d_output·Vᵀ (scale d_output down)");

  // 4b. Undo `weights = dropout(weights, p)`: a survivor was multiplied by 1/(1−p), so its gradient
  // is too; a dropped weight (0 in forward.weights) passes nothing back. The scale is computed as
  // dropout() computes it. (A softmax weight of 0 that survived reads as dropped: its gradient is 0
  // in the softmax step below either way.)
  if (options.dropout > 0.0f) {
    const float keep_scale = 1.0f / (1.0f - options.dropout);
    for (Eigen::Index i = 0; i < d_scores.size(); ++i)
      d_scores.data()[i] = forward.weights.data()[i] == 0.0f ? 0.0f : d_scores.data()[i] * keep_scale;
    detail::require_finite_result(kFunction, d_scores, "d_weights / (1 − dropout) (scale d_output down)");
  }

  // 4a. Undo `weights = softmax(masked_scores)`: d_masked = w ⊙ (d_w − rowsum(d_w ⊙ w)).
  softmax_backward_rows(options.dropout > 0.0f ? forward.weights_before_dropout : forward.weights, d_scores);
  detail::require_finite_result(kFunction, d_scores, "the softmax gradient (scale d_output down)");

  // 3. Undo `masked_scores = scaled_scores, blocked → −∞`: a blocked entry has weight 0, so step 4a
  // already gave it gradient 0; an open one passes through. No second look at the mask is needed.

  // 2. Undo `scaled_scores = scores·scale (+ bias)`: the bias receives the gradient unchanged.
  if (options.bias) g.d_bias = d_scores;
  d_scores *= scale;

  // 1. Undo `scores = Q·Kᵀ`: d_Q = d_scores·K, d_K = d_scoresᵀ·Q.
  g.d_q = kernels::matmul(d_scores, k);
  g.d_k = kernels::matmul(Matrix(d_scores.transpose()), q);
  detail::require_finite_result(kFunction, g.d_q, "d_Q = d_scores·K (scale d_output or K down)");
  detail::require_finite_result(kFunction, g.d_k, "d_K = d_scoresᵀ·Q (scale d_output or Q down)");
  return g;
}

}  // namespace attnlab
