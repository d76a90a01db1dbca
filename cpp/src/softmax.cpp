#include "attnlab/softmax.hpp"

#include <cmath>

#include "checks.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

namespace {
void check_logits(std::string_view function, const Matrix& logits) {
  detail::require_non_empty(function, "logits", logits);
  for (Eigen::Index i = 0; i < logits.size(); ++i) {
    const float x = logits.data()[i];
    if (std::isnan(x) || x == INFINITY)  // −∞ is allowed: it is how a blocked entry is written
      detail::fail(function, "logits (", shape_of(logits), ") contains ", std::isnan(x) ? "NaN" : "+Inf",
                   " at (", i / logits.cols(), ", ", i % logits.cols(), ")");
  }
}
}  // namespace

Matrix softmax(const Matrix& logits) {
  check_logits("softmax", logits);
  Matrix weights = logits;
  kernels::softmax_rows(weights);
  return weights;
}

SoftmaxBreakdown softmax_breakdown(const Matrix& logits) {
  // logits [rows×cols] → row_max, row_sum [rows×1]; exp, weights [rows×cols]
  check_logits("softmax_breakdown", logits);
  SoftmaxBreakdown b{logits.rowwise().maxCoeff(), Matrix(logits.rows(), logits.cols()), Matrix(logits.rows(), 1),
                     Matrix(logits.rows(), logits.cols())};
  for (Eigen::Index r = 0; r < logits.rows(); ++r) {
    const bool blocked = b.row_max(r, 0) == -INFINITY;
    for (Eigen::Index c = 0; c < logits.cols(); ++c)
      b.exp(r, c) = blocked ? 0.0f : std::exp(logits(r, c) - b.row_max(r, 0));
    b.row_sum(r, 0) = b.exp.row(r).sum();
    b.weights.row(r) = blocked ? Eigen::RowVectorXf::Zero(logits.cols()) : Eigen::RowVectorXf(b.exp.row(r) / b.row_sum(r, 0));
  }
  return b;
}

}  // namespace attnlab
