// Linear layer in PyTorch's layout: weight [out×in], y = x·Wᵀ + b, so weights exported from
// nn.Linear load as they are. Initialised like nn.Linear: weight and bias uniform in ±1/√in.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "attnlab/tensor/matrix.hpp"
#include "attnlab/tensor/parameter.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

class Rng;
namespace kernels {
struct PackedMatrix;
}

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

  // x [n×in] (forward's input), d_y [n×out] = ∂L/∂y → ∂L/∂x [n×in] = d_y·W. Adds d_yᵀ·x [out×in] to
  // grads().weight and the column sums of d_y [out] to grads().bias (accumulated until zero_grad).
  Matrix backward(const Matrix& x, const Matrix& d_y);
  // ∂L/∂weight and ∂L/∂bias summed over every backward since zero_grad; empty before the first
  // backward() or parameters() call (PyTorch's `.grad is None`).
  const LinearWeights& grads() const { return grads_; }
  void zero_grad();
  // "<prefix>.weight" and, with a bias, "<prefix>.bias" (allocates the grads if still empty).
  std::vector<ParameterRef> parameters(std::string_view prefix = "");

 private:
  friend class FeedForward;
  // One backward call's gradients, checked (finite, also once accumulated) but not yet added, so a
  // caller chaining several layers (FeedForward::backward) can add all or nothing.
  struct Gradients {
    Matrix d_x;       // [n×in]
    Matrix d_weight;  // [out×in]
    Vector d_bias;    // [out], empty without bias
  };
  Gradients gradients(const Matrix& x, const Matrix& d_y, std::string_view function) const;
  void accumulate(const Gradients& g);

  // Wᵀ laid out for the GEMM once (at construction and load), so forward() does not rearrange W on
  // every call. Dropped for good once parameters() hands out writable views: an optimizer then
  // changes W in place, and forward() packs W per call again.
  void pack_weight();
  std::shared_ptr<const kernels::PackedMatrix> packed_weight_t_;
  bool weight_exposed_ = false;

  LinearWeights weights_;
  LinearWeights grads_;  // empty until the first backward() or parameters()
};

}  // namespace attnlab
ATTNLAB_API_END
