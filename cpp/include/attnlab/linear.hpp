// Linear layer in PyTorch's layout: weight [out×in], y = x·Wᵀ + b, so weights exported from
// nn.Linear load as they are. Initialised like nn.Linear: weight and bias uniform in ±1/√in.
#pragma once

#include <cstdint>
#include <string_view>

#include "attnlab/matrix.hpp"

namespace attnlab {

class Rng;

struct LinearWeights {
  Matrix weight;  // [out×in]
  Vector bias;    // [out], or empty for a layer without bias
};

class Linear {
 public:
  Linear(int in_features, int out_features, bool bias, Rng& rng);

  // x [n×in] → [n×out]
  Matrix forward(const Matrix& x) const;
  // Replaces the parameters; `owner` names the caller in error messages ("MultiHeadAttention::load").
  void load(const LinearWeights& weights, std::string_view owner = "Linear::load");

  int in_features() const { return static_cast<int>(weights_.weight.cols()); }
  int out_features() const { return static_cast<int>(weights_.weight.rows()); }
  bool has_bias() const { return weights_.bias.size() > 0; }
  const Matrix& weight() const { return weights_.weight; }
  const Vector& bias() const { return weights_.bias; }
  const LinearWeights& weights() const { return weights_; }
  std::int64_t parameter_count() const;

 private:
  LinearWeights weights_;
};

}  // namespace attnlab
