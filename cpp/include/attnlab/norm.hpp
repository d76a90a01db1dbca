// Normalisation over the last dimension (each row of [n×d] on its own).
//   LayerNorm (nn.LayerNorm): y = (x − mean) / √(var + eps) · weight + bias, var biased (÷ d).
//   RMSNorm: y = x / √(mean(x²) + eps) · weight (no centring, no bias).
// Both start at weight = 1 (and bias = 0), as in PyTorch.
#pragma once

#include <cstdint>

#include "attnlab/matrix.hpp"

namespace attnlab {

class LayerNorm {
 public:
  explicit LayerNorm(int d, float eps = 1e-5f);
  Matrix forward(const Matrix& x) const;            // [n×d] → [n×d]
  void load(const Vector& weight, const Vector& bias);  // each [d]
  const Vector& weight() const { return weight_; }
  const Vector& bias() const { return bias_; }
  float eps() const { return eps_; }
  std::int64_t parameter_count() const { return weight_.size() + bias_.size(); }

 private:
  Vector weight_, bias_;
  float eps_;
};

class RMSNorm {
 public:
  explicit RMSNorm(int d, float eps = 1e-5f);
  Matrix forward(const Matrix& x) const;  // [n×d] → [n×d]
  void load(const Vector& weight);        // [d]
  const Vector& weight() const { return weight_; }
  float eps() const { return eps_; }
  std::int64_t parameter_count() const { return weight_.size(); }

 private:
  Vector weight_;
  float eps_;
};

}  // namespace attnlab
