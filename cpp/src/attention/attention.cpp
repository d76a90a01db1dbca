#include "attnlab/attention/attention.hpp"

#include <cmath>
#include <limits>

#include "attnlab/attention/dropout.hpp"
#include "attnlab/attention/mask.hpp"
#include "attnlab/attention/positional.hpp"
#include "attnlab/attention/softmax.hpp"
#include "tensor/checks.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

namespace detail {

LargestEntries check_attention_arguments(const char* kFunction, const Matrix& q, const Matrix& k, const Matrix& v,
                                         const AttentionOptions& options) {
  detail::require_non_empty(kFunction, "Q", q);
  detail::require_non_empty(kFunction, "K", k);
  detail::require_non_empty(kFunction, "V", v);
  if (k.cols() != q.cols())
    detail::fail(kFunction, "K is ", shape_of(k), " but Q is ", shape_of(q), " (d_k must match)");
  if (v.rows() != k.rows())
    detail::fail(kFunction, "V is ", shape_of(v), " but K is ", shape_of(k), " (n_k must match)");
  // One pass over each gives both its finiteness (+∞ for NaN or ±Inf, then named with its position)
  // and its largest entry.
  const LargestEntries largest{detail::max_magnitude(q.data(), q.size()), detail::max_magnitude(k.data(), k.size()),
                               detail::max_magnitude(v.data(), v.size())};
  constexpr float kNotFinite = std::numeric_limits<float>::infinity();
  if (largest.q == kNotFinite) detail::require_finite(kFunction, "Q", q);
  if (largest.k == kNotFinite) detail::require_finite(kFunction, "K", k);
  if (largest.v == kNotFinite) detail::require_finite(kFunction, "V", v);
  if (options.mask) detail::require_mask(kFunction, "mask", *options.mask, q.rows(), k.rows());
  if (options.bias) {
    if (options.bias->rows() != q.rows() || options.bias->cols() != k.rows())
      detail::fail(kFunction, "bias is ", shape_of(*options.bias), " but must be n_q×n_k = ", q.rows(), "×",
                   k.rows());
    detail::require_finite(kFunction, "bias", *options.bias);
  }
  if (options.scale) detail::require_finite(kFunction, "scale", *options.scale);
  if (options.alibi_slope) detail::require_finite(kFunction, "alibi_slope", *options.alibi_slope);
  detail::require_probability(kFunction, "dropout", options.dropout);
  if (options.dropout > 0.0f && !options.rng) detail::fail(kFunction, "dropout > 0 needs an rng");
  // The output mixes value rows with weights summing to 1 (1/(1−p) after dropout), but the online path
  // sums them first with unnormalised weights of up to 1 each: |V| · n_k / (1 − p) must stay inside
  // float32 for either to be exact.
  if (static_cast<double>(largest.v) * static_cast<double>(v.rows()) / (1.0 - options.dropout) >
      std::numeric_limits<float>::max())
    detail::fail(kFunction, "V's largest entry ", static_cast<double>(largest.v), " × n_k = ", v.rows(),
                 options.dropout > 0.0f ? " / (1 − dropout)" : "", " overflows float32 when the values are summed (scale V down)");
  return largest;
}

void require_attention_budget(const char* function, const Matrix& q, const Matrix& k, const Matrix& v,
                              const AttentionOptions& options, const Tracer& tracer) {
  // scores, scaled, masked and weights, plus the mask and the bias when built and the weights before
  // dropout when kept; a trace keeps copies of each step's tensors (about ten n_q×n_k matrices more).
  const int score_matrices = 4 + (options.mask || options.causal ? 1 : 0) + (options.dropout > 0.0f ? 1 : 0) +
                             (options.bias || options.alibi_slope ? 1 : 0) + (tracer.enabled() ? 10 : 0);
  require_within_budget(function, score_matrices, static_cast<double>(q.rows()), static_cast<double>(k.rows()),
                        "the n_q×n_k scores, weights and the steps between");
  require_within_budget(function, 1, static_cast<double>(q.rows()), static_cast<double>(v.cols()), "the output");
}

void require_finite_scores(const char* function, const Eigen::Ref<const Matrix>& scores, Eigen::Index row0,
                           Eigen::Index col0) {
  if (all_finite(scores.data(), scores.size())) return;
  for (Eigen::Index r = 0; r < scores.rows(); ++r)
    for (Eigen::Index c = 0; c < scores.cols(); ++c)
      if (!std::isfinite(scores(r, c)))
        fail(function, "the score at (", row0 + r, ", ", col0 + c, ") overflows float32 (Q·Kᵀ is too large: ",
             "scale Q or K down)");
}

bool scaled_scores_fit_float(const LargestEntries& largest, Eigen::Index d_k, float scale) {
  // The sums are formed before scaling (the GEMM applies scale at the end), so both must fit.
  // |q·k| ≤ ‖q‖‖k‖ ≤ d_k · max|Q| · max|K| (Cauchy–Schwarz, then each norm ≤ √d_k · the largest entry):
  // looser than the row norms, but it needs only the largest entries the argument checks found, and
  // inputs past it only cost a check of each score block, not a wrong answer. The product in double.
  const double bound = std::max(1.0, std::abs(static_cast<double>(scale))) * static_cast<double>(d_k) *
                       static_cast<double>(largest.q) * static_cast<double>(largest.k);
  return bound < std::numeric_limits<float>::max() / 4.0;
}

}  // namespace detail

namespace {


std::string format_number(float x) {
  std::string text;
  detail::append(text, x);
  return text;
}

}  // namespace

AttentionResult scaled_dot_product_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                             const AttentionOptions& options, const Tracer& tracer) {
  // Q [n_q×d_k], K [n_k×d_k], V [n_k×d_v] → output [n_q×d_v], weights [n_q×n_k]
  detail::check_attention_arguments("scaled_dot_product_attention", q, k, v, options);
  detail::require_attention_budget("scaled_dot_product_attention", q, k, v, options, tracer);
  const auto d_k = q.cols();
  const float scale = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(d_k)));
  AttentionResult r;

  // 1. Raw scores: how well each query matches each key.
  r.scores = kernels::matmul_transposed(q, k);
  if (tracer.enabled())
    tracer.record("scores", "Scores QKᵀ",
                "Each query row is dotted with every key row: " + detail::bracketed_shape(q) + "·" + detail::bracketed_shape(k) + "ᵀ → " +
                    detail::bracketed_shape(r.scores) + ".",
                {{"Q", q}, {"K", k}, {"scores", r.scores}});

  // 2. Scale (and add a positional bias such as ALiBi).
  r.scaled_scores = r.scores * scale;
  if (tracer.enabled())
    tracer.record("scaled_scores", "Scale",
                options.scale ? "Scores multiplied by the chosen scale " + format_number(scale) + "."
                              : "Scores divided by √d_k = √" + std::to_string(d_k) +
                                    " so their spread does not grow with d_k.",
                {{"scores", r.scores}, {"scaled_scores", r.scaled_scores}});
  if (options.bias || options.alibi_slope) {
    Matrix bias = options.bias ? *options.bias : Matrix::Zero(q.rows(), k.rows());
    if (options.alibi_slope) bias += alibi_bias(static_cast<int>(q.rows()), static_cast<int>(k.rows()), *options.alibi_slope);
    r.scaled_scores += bias;
    tracer.record("bias", "Add positional bias",
                  options.alibi_slope ? "ALiBi: −slope × distance is added, so far-away keys score lower."
                                      : "A fixed bias per (query, key) pair is added to the scaled scores.",
                  {{"bias", bias}, {"scaled_scores", r.scaled_scores}});
  }
  detail::require_finite_scores("scaled_dot_product_attention", r.scaled_scores, 0, 0);

  // 3. Mask: blocked scores become −∞, so exp gives exactly 0.
  r.masked_scores = r.scaled_scores;
  if (options.mask || options.causal) {
    Matrix mask = options.causal ? causal_mask(static_cast<int>(q.rows()), static_cast<int>(k.rows())) : *options.mask;
    if (options.causal && options.mask) mask = combine_masks(mask, *options.mask);
    r.masked_scores = (mask.array() == 0.0f).select(-std::numeric_limits<float>::infinity(), r.scaled_scores);
    tracer.record("masked_scores", "Mask",
                  "Where the mask is 0 the score becomes −∞, so that key gets weight exactly 0.",
                  {{"mask", mask}, {"masked_scores", r.masked_scores}});
  }

  // 4. Softmax row by row (a fully blocked row gives zeros, not NaN).
  if (tracer.enabled()) {
    // Traced: the three passes are kept, and these very numbers give the weights (what the learner
    // sees is what was computed). Untraced: the kernel's fused softmax.
    SoftmaxBreakdown parts = softmax_breakdown(r.masked_scores);
    tracer.record("softmax_exp", "Softmax: exp and row sums",
                  "Each score minus its row's maximum (for stability), exponentiated; each row's sum divides "
                  "it next. Blocked (−∞) entries give exp = 0.",
                  {{"row_max", parts.row_max}, {"exp", parts.exp}, {"row_sum", parts.row_sum}});
    r.weights = std::move(parts.weights);
  } else {
    r.weights = r.masked_scores;
    kernels::softmax_rows(r.weights);
  }
  tracer.record("weights", "Softmax",
                "Each row: exp(score − row max), divided by the row's sum, so each row sums to 1.",
                {{"masked_scores", r.masked_scores}, {"weights", r.weights}});
  if (options.dropout > 0.0f) {
    r.weights_before_dropout = std::move(r.weights);
    r.weights = dropout(r.weights_before_dropout, options.dropout, *options.rng);
    if (tracer.enabled())
      tracer.record("dropout", "Dropout on the weights",
                  "Training only: each weight is zeroed with probability " + format_number(options.dropout) +
                      ", survivors scaled by 1/(1−p).",
                  {{"weights", r.weights}});
  }

  // 5. Weighted sum of the values.
  r.output = kernels::matmul(r.weights, v);
  if (tracer.enabled())
    tracer.record("output", "Weighted sum of values",
                "Each output row mixes the value rows by that query's weights: " + detail::bracketed_shape(r.weights) + "·" +
                    detail::bracketed_shape(v) + " → " + detail::bracketed_shape(r.output) + ".",
                {{"weights", r.weights}, {"V", v}, {"output", r.output}});
  return r;
}

}  // namespace attnlab
