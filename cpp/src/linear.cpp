#include "attnlab/linear.hpp"

#include <cmath>
#include <string>

#include "attnlab/rng.hpp"
#include "checks.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

Linear::Linear(int in_features, int out_features, bool bias, Rng& rng) {
  detail::require_positive("Linear", "in_features", in_features);
  detail::require_positive("Linear", "out_features", out_features);
  const float bound = 1.0f / std::sqrt(static_cast<float>(in_features));
  weights_.weight = rng.uniform_matrix(out_features, in_features, -bound, bound);
  if (bias) weights_.bias = rng.uniform_matrix(out_features, 1, -bound, bound);
}

Matrix Linear::forward(const Matrix& x) const {
  // x [n×in] · Wᵀ [in×out] + b → [n×out]
  if (x.cols() != weights_.weight.cols() || x.rows() == 0)
    detail::fail("Linear::forward", "x is ", shape_of(x), " but the layer takes n×", in_features(),
                 " (n ≥ 1)");
  detail::require_finite("Linear::forward", "x", x);
  Matrix y = kernels::matmul_transposed(x, weights_.weight);
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
}

std::int64_t Linear::parameter_count() const {
  return static_cast<std::int64_t>(weights_.weight.size()) + weights_.bias.size();
}

}  // namespace attnlab
