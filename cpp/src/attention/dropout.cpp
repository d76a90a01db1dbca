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
  scale = Matrix();
  if (p == 0.0f) return x;
  const float keep_scale = 1.0f / (1.0f - p);
  scale.resize(x.rows(), x.cols());
  Matrix y(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const bool dropped = rng.uniform() < p;
    scale.data()[i] = dropped ? 0.0f : keep_scale;
    y.data()[i] = dropped ? 0.0f : x.data()[i] * keep_scale;  // +0, never −0, where dropped
  }
  return y;
}

}  // namespace attnlab
