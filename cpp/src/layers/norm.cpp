#include "attnlab/layers/norm.hpp"

#include <cmath>

#include "tensor/checks.hpp"
#include "layers/gradients.hpp"

namespace attnlab {

namespace {
void check_eps(std::string_view fn, float eps) {
  if (!(eps > 0.0f) || !std::isfinite(eps)) detail::fail(fn, "eps must be positive and finite, got ", eps);
}

void check_input(std::string_view fn, const Matrix& x, Eigen::Index d) {
  if (x.rows() == 0 || x.cols() != d) detail::fail(fn, "x is ", shape_of(x), " but the norm takes n×", d, " (n ≥ 1)");
  detail::require_finite(fn, "x", x);
}

// backward's d_y must be shaped like x (checked already) and finite; d_x [n×d] fits the budget.
void check_gradient(std::string_view fn, const Matrix& d_y, const Matrix& x) {
  if (d_y.rows() != x.rows() || d_y.cols() != x.cols())
    detail::fail(fn, "d_y is ", shape_of(d_y), " but must be shaped like x, ", shape_of(x));
  detail::require_finite(fn, "d_y", d_y);
  detail::require_within_budget(fn, 1, static_cast<double>(x.rows()), static_cast<double>(x.cols()), "d_x");
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

Matrix LayerNorm::backward(const Matrix& x, const Matrix& d_y) {
  // x [n×d], d_y [n×d] → d_x [n×d]; adds Σ_rows d_y·x̂ to weight_grad [d] and Σ_rows d_y to bias_grad [d]
  const char* fn = "LayerNorm::backward";
  check_input(fn, x, weight_.size());
  check_gradient(fn, d_y, x);
  const Eigen::Index d = x.cols();
  const Eigen::ArrayXd weight = weight_.cast<double>().array();
  Eigen::ArrayXd d_weight = Eigen::ArrayXd::Zero(d), d_bias = Eigen::ArrayXd::Zero(d);
  Matrix d_x(x.rows(), d);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    // 1. The row's statistics again, exactly as forward computed them.
    const Eigen::ArrayXd row = x.row(r).transpose().cast<double>().array();
    const double mean = row.mean();
    const double inv_std = 1.0 / std::sqrt((row - mean).square().mean() + eps_);
    const Eigen::ArrayXd x_hat = (row - mean) * inv_std;
    const Eigen::ArrayXd g = d_y.row(r).transpose().cast<double>().array();
    // 2. y = x̂·weight + bias  ⇒  ∂L/∂weight += d_y·x̂, ∂L/∂bias += d_y, ∂L/∂x̂ = d_y·weight
    d_weight += g * x_hat;
    d_bias += g;
    const Eigen::ArrayXd d_x_hat = g * weight;
    // 3. x̂ = (x − mean)/√(var + eps), mean and var taken over the row  ⇒
    //    ∂L/∂x = (∂L/∂x̂ − mean(∂L/∂x̂) − x̂·mean(∂L/∂x̂·x̂)) / √(var + eps)
    d_x.row(r) = ((d_x_hat - d_x_hat.mean() - x_hat * (d_x_hat * x_hat).mean()) * inv_std).cast<float>().transpose();
  }
  detail::require_finite_result(fn, d_x, "d_y too large");
  const Vector d_weight_f = d_weight.cast<float>().matrix(), d_bias_f = d_bias.cast<float>().matrix();
  detail::require_finite_sum(fn, "the weight's gradient Σ d_y·x̂", weight_grad_, d_weight_f);
  detail::require_finite_sum(fn, "the bias's gradient Σ d_y", bias_grad_, d_bias_f);
  detail::accumulate(weight_grad_, d_weight_f);
  detail::accumulate(bias_grad_, d_bias_f);
  return d_x;
}

void LayerNorm::zero_grad() {
  weight_grad_.setZero();
  bias_grad_.setZero();
}

std::vector<ParameterRef> LayerNorm::parameters(std::string_view prefix) {
  return {make_parameter(parameter_name(prefix, "weight"), weight_, weight_grad_),
          make_parameter(parameter_name(prefix, "bias"), bias_, bias_grad_)};
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

Matrix RMSNorm::backward(const Matrix& x, const Matrix& d_y) {
  // x [n×d], d_y [n×d] → d_x [n×d]; adds Σ_rows d_y·x̂ to weight_grad [d]
  const char* fn = "RMSNorm::backward";
  check_input(fn, x, weight_.size());
  check_gradient(fn, d_y, x);
  const Eigen::ArrayXd weight = weight_.cast<double>().array();
  Eigen::ArrayXd d_weight = Eigen::ArrayXd::Zero(x.cols());
  Matrix d_x(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    // 1. The row's root mean square again, exactly as forward computed it.
    const Eigen::ArrayXd row = x.row(r).transpose().cast<double>().array();
    const double inv_rms = 1.0 / std::sqrt(row.square().mean() + eps_);
    const Eigen::ArrayXd x_hat = row * inv_rms;
    const Eigen::ArrayXd g = d_y.row(r).transpose().cast<double>().array();
    // 2. y = x̂·weight  ⇒  ∂L/∂weight += d_y·x̂, ∂L/∂x̂ = d_y·weight
    d_weight += g * x_hat;
    const Eigen::ArrayXd d_x_hat = g * weight;
    // 3. x̂ = x/√(mean(x²) + eps)  ⇒  ∂L/∂x = (∂L/∂x̂ − x̂·mean(∂L/∂x̂·x̂)) / √(mean(x²) + eps)
    d_x.row(r) = ((d_x_hat - x_hat * (d_x_hat * x_hat).mean()) * inv_rms).cast<float>().transpose();
  }
  detail::require_finite_result(fn, d_x, "d_y too large");
  const Vector d_weight_f = d_weight.cast<float>().matrix();
  detail::require_finite_sum(fn, "the weight's gradient Σ d_y·x̂", weight_grad_, d_weight_f);
  detail::accumulate(weight_grad_, d_weight_f);
  return d_x;
}

std::vector<ParameterRef> RMSNorm::parameters(std::string_view prefix) {
  return {make_parameter(parameter_name(prefix, "weight"), weight_, weight_grad_)};
}

void RMSNorm::load(const Vector& weight) {
  detail::require_size("RMSNorm::load", "weight", weight, weight_.size());
  detail::require_finite("RMSNorm::load", "weight", weight);
  weight_ = weight;
}

}  // namespace attnlab
