#include "attnlab/attention/dropout.hpp"

#include "attnlab/tensor/rng.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

Matrix dropout(const Matrix& x, float p, Rng& rng) {
  Matrix scale;
  return dropout(x, p, rng, scale);
}

Matrix dropout(const Matrix& x, float p, Rng& rng, Matrix& scale) {
  // x [rows×cols] → x ⊙ scale, scale [rows×cols] of 0 or 1/(1−p)
  detail::require_probability("dropout", "p", p);
  scale = dropout_mask(x.rows(), x.cols(), p, rng);
  if (p == 0.0f) return x;
  // x·(1/(1−p)) where kept; +0 (never −0) where dropped
  return (scale.array() == 0.0f).select(0.0f, x.array() * scale.array());
}

Matrix dropout_mask(Eigen::Index rows, Eigen::Index cols, float p, Rng& rng) {
  // → [rows×cols], one uniform per entry in row-major order
  detail::require_probability("dropout_mask", "p", p);
  if (p == 0.0f) return Matrix();
  const float keep_scale = 1.0f / (1.0f - p);
  Matrix scale(rows, cols);
  for (Eigen::Index i = 0; i < scale.size(); ++i) scale.data()[i] = rng.uniform() < p ? 0.0f : keep_scale;
  return scale;
}

}  // namespace attnlab
