// Gradient checks by central differences in double precision, for the backward passes of the
// stateless operations (softmax, attention, loss, pooling). The test writes the forward pass again in
// double as a scalar function of one input; its numerical gradient is the reference the float
// backward must match.
#pragma once

#include <gtest/gtest.h>

#include <cmath>

#include "fixture.hpp"

namespace attnlab::testing::fd {

// ∂f/∂x_ij ≈ (f(x + h·e_ij) − f(x − h·e_ij)) / 2h for every entry. With h = 1e-6 and f of order 1 the
// truncation error (h²·f‴) and the rounding error (1e-16/h) are both below 1e-9.
template <typename Function>
MatrixD numerical_gradient(Function&& f, MatrixD x, double h = 1e-6) {
  MatrixD gradient(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double saved = x.data()[i];
    x.data()[i] = saved + h;
    const double up = f(x);
    x.data()[i] = saved - h;
    const double down = f(x);
    x.data()[i] = saved;
    gradient.data()[i] = (up - down) / (2 * h);
  }
  return gradient;
}

// Σ a ⊙ b: the scalar loss L = Σ output ⊙ G whose gradient with respect to output is G, so a backward
// pass given d_output = G must return ∂L/∂inputs.
inline double dot(const MatrixD& a, const MatrixD& b) { return a.cwiseProduct(b).sum(); }

// Entry by entry |actual − expected| ≤ rtol·(|expected| + 0.01·max|expected|): relative to the entry,
// with a floor at 1% of the largest so that entries near 0 (where float rounding of a cancelling sum
// dominates) are judged on the matrix's scale. A wrong scale, sign or missing term is far outside.
inline ::testing::AssertionResult GradientNear(const Matrix& actual, const MatrixD& expected, double rtol = 1e-3) {
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols())
    return ::testing::AssertionFailure() << "shape " << actual.rows() << "×" << actual.cols() << " != expected "
                                         << expected.rows() << "×" << expected.cols();
  const double floor = 0.01 * expected.cwiseAbs().maxCoeff();
  for (Eigen::Index r = 0; r < actual.rows(); ++r)
    for (Eigen::Index c = 0; c < actual.cols(); ++c) {
      const double a = actual(r, c), e = expected(r, c);
      if (!(std::fabs(a - e) <= rtol * (std::fabs(e) + floor) + 1e-12))
        return ::testing::AssertionFailure() << "at (" << r << ", " << c << "): " << a << " vs numerical " << e
                                             << " (diff " << std::fabs(a - e) << ")";
    }
  return ::testing::AssertionSuccess();
}

}  // namespace attnlab::testing::fd
