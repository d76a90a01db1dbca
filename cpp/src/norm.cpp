#include "attnlab/norm.hpp"

#include <cmath>

#include "checks.hpp"

namespace attnlab {

namespace {
void check_eps(std::string_view fn, float eps) {
  if (!(eps > 0.0f) || !std::isfinite(eps)) detail::fail(fn, "eps must be positive and finite, got ", eps);
}

void check_input(std::string_view fn, const Matrix& x, Eigen::Index d) {
  if (x.rows() == 0 || x.cols() != d) detail::fail(fn, "x is ", shape_of(x), " but the norm takes n×", d, " (n ≥ 1)");
  detail::require_finite(fn, "x", x);
}
}  // namespace

LayerNorm::LayerNorm(int d, float eps) : eps_(eps) {
  detail::require_positive("LayerNorm", "d", d);
  detail::require_within_budget("LayerNorm", 2, 1, d, "weight and bias");
  check_eps("LayerNorm", eps);
  weight_ = Vector::Ones(d);
  bias_ = Vector::Zero(d);
}

Matrix LayerNorm::forward(const Matrix& x) const {
  // x [n×d] → [n×d]; statistics accumulated in double so a learner's hand check agrees to float precision.
  check_input("LayerNorm::forward", x, weight_.size());
  Matrix y(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const auto row = x.row(r).cast<double>();
    const double mean = row.mean();
    const double variance = (row.array() - mean).square().mean();
    const double inv_std = 1.0 / std::sqrt(variance + eps_);
    y.row(r) = (((row.array() - mean) * inv_std).cast<float>() * weight_.transpose().array() +
                bias_.transpose().array());
  }
  detail::require_finite_result("LayerNorm::forward", y, "weight or bias too large");
  return y;
}

void LayerNorm::load(const Vector& weight, const Vector& bias) {
  detail::require_size("LayerNorm::load", "weight", weight, weight_.size());
  detail::require_size("LayerNorm::load", "bias", bias, bias_.size());
  detail::require_finite("LayerNorm::load", "weight", weight);
  detail::require_finite("LayerNorm::load", "bias", bias);
  weight_ = weight;
  bias_ = bias;
}

RMSNorm::RMSNorm(int d, float eps) : eps_(eps) {
  detail::require_positive("RMSNorm", "d", d);
  detail::require_within_budget("RMSNorm", 1, 1, d, "weight");
  check_eps("RMSNorm", eps);
  weight_ = Vector::Ones(d);
}

Matrix RMSNorm::forward(const Matrix& x) const {
  // x [n×d] → [n×d]
  check_input("RMSNorm::forward", x, weight_.size());
  Matrix y(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const auto row = x.row(r).cast<double>();
    const double inv_rms = 1.0 / std::sqrt(row.array().square().mean() + eps_);
    y.row(r) = (row.array() * inv_rms).cast<float>() * weight_.transpose().array();
  }
  detail::require_finite_result("RMSNorm::forward", y, "weight too large");
  return y;
}

void RMSNorm::load(const Vector& weight) {
  detail::require_size("RMSNorm::load", "weight", weight, weight_.size());
  detail::require_finite("RMSNorm::load", "weight", weight);
  weight_ = weight;
}

}  // namespace attnlab
