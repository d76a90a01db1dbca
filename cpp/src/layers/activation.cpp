#include "attnlab/layers/activation.hpp"

#include <cmath>

#include "tensor/checks.hpp"
#include "layers/gradients.hpp"

namespace attnlab {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kTanhCubic = 0.044715;

float gelu_exact(float x) { return static_cast<float>(0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)))); }

float gelu_tanh(float x) {
  const double k = std::sqrt(2.0 / kPi);
  const double xd = x;
  return static_cast<float>(0.5 * xd * (1.0 + std::tanh(k * (xd + kTanhCubic * xd * xd * xd))));
}

// The derivatives, in double precision.
double gelu_exact_derivative(double x) {
  // y = x·Φ(x)  ⇒  y′ = Φ(x) + x·φ(x), φ(x) = exp(−x²/2)/√(2π)
  return 0.5 * (1.0 + std::erf(x / std::sqrt(2.0))) + x * std::exp(-0.5 * x * x) / std::sqrt(2.0 * kPi);
}

double gelu_tanh_derivative(double x) {
  // y = ½x(1 + tanh u), u = k(x + 0.044715x³)  ⇒  y′ = ½(1 + tanh u) + ½x(1 − tanh²u)·k(1 + 3·0.044715x²)
  const double k = std::sqrt(2.0 / kPi);
  const double t = std::tanh(k * (x + kTanhCubic * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * kTanhCubic * x * x);
}
}  // namespace

Matrix activate(const Matrix& x, Activation activation) {
  switch (activation) {
    case Activation::gelu: return x.unaryExpr(&gelu_exact);
    case Activation::gelu_tanh: return x.unaryExpr(&gelu_tanh);
    case Activation::relu: return x.cwiseMax(0.0f);
  }
  detail::fail("activate", "unknown activation ", static_cast<int>(activation));
}

Matrix activation_backward(const Matrix& x, const Matrix& d_y, Activation activation) {
  return detail::activation_backward("activation_backward", x, d_y, activation);
}

Matrix detail::activation_backward(std::string_view fn, const Matrix& x, const Matrix& d_y, Activation activation) {
  // x [rows×cols], d_y [rows×cols] → d_x [rows×cols]
  if (d_y.rows() != x.rows() || d_y.cols() != x.cols())
    detail::fail(fn, "d_y is ", shape_of(d_y), " but must be shaped like x, ", shape_of(x));
  detail::require_finite(fn, "x", x);
  detail::require_finite(fn, "d_y", d_y);
  double (*derivative)(double) = nullptr;
  switch (activation) {
    case Activation::gelu: derivative = &gelu_exact_derivative; break;
    case Activation::gelu_tanh: derivative = &gelu_tanh_derivative; break;
    case Activation::relu: break;
  }
  if (!derivative && activation != Activation::relu)
    detail::fail(fn, "unknown activation ", static_cast<int>(activation));
  detail::require_within_budget(fn, 1, static_cast<double>(x.rows()), static_cast<double>(x.cols()), "d_x");
  Matrix d_x(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const float xi = x.data()[i];
    // relu(x) = max(x, 0)  ⇒  ∂L/∂x = d_y where x > 0, else 0
    d_x.data()[i] = derivative ? static_cast<float>(d_y.data()[i] * derivative(xi)) : (xi > 0.0f ? d_y.data()[i] : 0.0f);
  }
  detail::require_finite_result(fn, d_x, "d_y too large");
  return d_x;
}

}  // namespace attnlab
