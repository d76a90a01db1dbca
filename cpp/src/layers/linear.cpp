#include "attnlab/layers/linear.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attnlab/tensor/rng.hpp"
#include "tensor/checks.hpp"
#include "layers/gradients.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

Linear::Linear(int in_features, int out_features, bool bias, Rng& rng) {
  detail::require_positive("Linear", "in_features", in_features);
  detail::require_positive("Linear", "out_features", out_features);
  const float bound = 1.0f / std::sqrt(static_cast<float>(in_features));
  weights_.weight = rng.uniform_matrix(out_features, in_features, -bound, bound);
  if (bias) weights_.bias = rng.uniform_matrix(out_features, 1, -bound, bound);
  pack_weight();
}

void Linear::pack_weight() {
  if (weight_exposed_) return;
  packed_weight_t_ = std::make_shared<const kernels::PackedMatrix>(kernels::pack(weights_.weight, true));
}

Matrix Linear::forward(const Matrix& x) const {
  // x [n×in] · Wᵀ [in×out] + b → [n×out]
  if (x.cols() != weights_.weight.cols() || x.rows() == 0)
    detail::fail("Linear::forward", "x is ", shape_of(x), " but the layer takes n×", in_features(),
                 " (n ≥ 1)");
  detail::require_finite("Linear::forward", "x", x);
  Matrix y;
  if (packed_weight_t_) {
    y.resize(x.rows(), out_features());
    kernels::gemm(x, *packed_weight_t_, 0, 0, out_features(), 1.0f, false, y.data(), y.cols());
  } else {
    y = kernels::matmul_transposed(x, weights_.weight);
  }
  if (has_bias()) y.rowwise() += weights_.bias.transpose();
  detail::require_finite_result("Linear::forward", y, "x·Wᵀ + b is too large");
  return y;
}

void Linear::load(const LinearWeights& weights, std::string_view owner) {
  detail::require_shape(owner, "weight", weights.weight, out_features(), in_features());
  detail::require_finite(owner, "weight", weights.weight);
  if (has_bias() && weights.bias.size() == 0)
    detail::fail(owner, "bias is missing (the layer has a bias of ", out_features(), " entries)");
  if (!has_bias() && weights.bias.size() != 0)
    detail::fail(owner, "bias has ", weights.bias.size(), " entries but the layer was built without bias");
  if (has_bias()) {
    detail::require_size(owner, "bias", weights.bias, out_features());
    detail::require_finite(owner, "bias", weights.bias);
  }
  weights_ = weights;
  pack_weight();
}

Linear::Gradients Linear::gradients(const Matrix& x, const Matrix& d_y, std::string_view fn) const {
  // x [n×in], d_y [n×out] → d_x [n×in], d_weight [out×in], d_bias [out]
  if (x.cols() != weights_.weight.cols() || x.rows() == 0)
    detail::fail(fn, "x is ", shape_of(x), " but the layer takes n×", in_features(), " (n ≥ 1)");
  if (d_y.rows() != x.rows() || d_y.cols() != weights_.weight.rows())
    detail::fail(fn, "d_y is ", shape_of(d_y), " but must be n×out = ", x.rows(), "×", out_features(),
                 " (x is ", shape_of(x), ")");
  detail::require_finite(fn, "x", x);
  detail::require_finite(fn, "d_y", d_y);
  detail::require_within_budget(fn, 2, static_cast<double>(x.rows()), std::max(in_features(), out_features()),
                                "d_x and d_yᵀ");
  Gradients g;
  // y = x·Wᵀ + b  ⇒  ∂L/∂x = d_y·W
  g.d_x = kernels::matmul(d_y, weights_.weight);
  detail::require_finite_result(fn, g.d_x, "d_y·W is too large");
  // y = x·Wᵀ + b  ⇒  ∂L/∂W = d_yᵀ·x (each output row's gradient times the input it multiplied)
  g.d_weight = kernels::matmul(d_y.transpose(), x);
  detail::require_finite_sum(fn, "the weight's gradient d_yᵀ·x", grads_.weight, g.d_weight);
  if (has_bias()) {
    // y = x·Wᵀ + b  ⇒  ∂L/∂b = Σ_rows d_y (b is added to every row)
    g.d_bias = d_y.colwise().sum().transpose();
    detail::require_finite_sum(fn, "the bias's gradient Σ d_y", grads_.bias, g.d_bias);
  }
  return g;
}

void Linear::accumulate(const Gradients& g) {
  detail::accumulate(grads_.weight, g.d_weight);
  if (has_bias()) detail::accumulate(grads_.bias, g.d_bias);
}

Matrix Linear::backward(const Matrix& x, const Matrix& d_y) {
  Gradients g = gradients(x, d_y, "Linear::backward");
  accumulate(g);
  return std::move(g.d_x);
}

void Linear::zero_grad() {
  grads_.weight.setZero();
  grads_.bias.setZero();
}

std::vector<ParameterRef> Linear::parameters(std::string_view prefix) {
  weight_exposed_ = true;
  packed_weight_t_.reset();
  std::vector<ParameterRef> refs{make_parameter(parameter_name(prefix, "weight"), weights_.weight, grads_.weight)};
  if (has_bias()) refs.push_back(make_parameter(parameter_name(prefix, "bias"), weights_.bias, grads_.bias));
  return refs;
}

std::int64_t Linear::parameter_count() const {
  return static_cast<std::int64_t>(weights_.weight.size()) + weights_.bias.size();
}

}  // namespace attnlab
