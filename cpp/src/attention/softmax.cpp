#include "attnlab/attention/softmax.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tensor/checks.hpp"
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
  SoftmaxBreakdown b{Matrix(logits.rows(), 1), logits, Matrix(logits.rows(), 1), Matrix()};
  std::vector<float> rescale(static_cast<std::size_t>(logits.rows()));
  std::fill(b.row_max.data(), b.row_max.data() + b.row_max.size(), -INFINITY);
  b.row_sum.setZero();
  // The reference step (scalar exp): the same passes the learner reads, in the plainest form.
  kernels::reference::online_softmax_step(b.exp, b.row_max.data(), b.row_sum.data(), rescale.data());
  b.weights = b.exp;
  kernels::divide_rows(b.weights, b.row_sum.data());
  return b;
}

}  // namespace attnlab
