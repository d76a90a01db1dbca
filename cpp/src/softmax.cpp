#include "attnlab/softmax.hpp"

#include <cmath>

#include "checks.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

Matrix softmax(const Matrix& logits) {
  detail::require_non_empty("softmax", "logits", logits);
  for (Eigen::Index i = 0; i < logits.size(); ++i) {
    const float x = logits.data()[i];
    if (std::isnan(x) || x == INFINITY)  // −∞ is allowed: it is how a blocked entry is written
      detail::fail("softmax", "logits (", shape_of(logits), ") contains ", std::isnan(x) ? "NaN" : "+Inf",
                   " at (", i / logits.cols(), ", ", i % logits.cols(), ")");
  }
  Matrix weights = logits;
  kernels::softmax_rows(weights);
  return weights;
}

}  // namespace attnlab
