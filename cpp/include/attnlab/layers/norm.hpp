// Normalisation over the last dimension (each row of [n×d] on its own).
//   LayerNorm (nn.LayerNorm): y = (x − mean) / √(var + eps) · weight + bias, var biased (÷ d).
//   RMSNorm: y = x / √(mean(x²) + eps) · weight (no centring, no bias).
// Both start at weight = 1 (and bias = 0), as in PyTorch.
// backward(x, d_y) takes forward's input and ∂L/∂y, returns ∂L/∂x and adds ∂L/∂weight (and ∂L/∂bias)
// to the layer's gradients (accumulated until zero_grad, allocated on first use: parameter.hpp). Like
// forward, it recomputes each row's statistics in double precision.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

#include "attnlab/tensor/matrix.hpp"
#include "attnlab/tensor/parameter.hpp"

ATTNLAB_API_BEGIN
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

  Matrix backward(const Matrix& x, const Matrix& d_y);  // [n×d], [n×d] → ∂L/∂x [n×d]
  const Vector& weight_grad() const { return weight_grad_; }  // [d], empty before the first backward
  const Vector& bias_grad() const { return bias_grad_; }
  void zero_grad();
  std::vector<ParameterRef> parameters(std::string_view prefix = "");  // "<prefix>.weight", ".bias"

 private:
  Vector weight_, bias_;
  Vector weight_grad_, bias_grad_;
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

  Matrix backward(const Matrix& x, const Matrix& d_y);  // [n×d], [n×d] → ∂L/∂x [n×d]
  const Vector& weight_grad() const { return weight_grad_; }  // [d], empty before the first backward
  void zero_grad() { weight_grad_.setZero(); }
  std::vector<ParameterRef> parameters(std::string_view prefix = "");  // "<prefix>.weight"

 private:
  Vector weight_;
  Vector weight_grad_;
  float eps_;
};

}  // namespace attnlab
ATTNLAB_API_END
