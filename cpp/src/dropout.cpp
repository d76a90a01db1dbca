#include "attnlab/dropout.hpp"

#include "attnlab/rng.hpp"
#include "checks.hpp"

namespace attnlab {

Matrix dropout(const Matrix& x, float p, Rng& rng) {
  detail::require_probability("dropout", "p", p);
  if (p == 0.0f) return x;
  const float keep_scale = 1.0f / (1.0f - p);
  Matrix y(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.size(); ++i)
    y.data()[i] = rng.uniform() < p ? 0.0f : x.data()[i] * keep_scale;
  return y;
}

}  // namespace attnlab
