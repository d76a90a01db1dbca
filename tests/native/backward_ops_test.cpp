// softmax_backward, cross_entropy and mean_pool(_backward) against (a) central differences of the
// forward written again in double precision here, (b) PyTorch autograd (tests/fixtures/grad_*.json),
// (c) values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attnlab/attention/backward.hpp"
#include "attnlab/training/loss.hpp"
#include "attnlab/tensor/rng.hpp"
#include "attnlab/attention/softmax.hpp"
#include "expect_error.hpp"
#include "finite_difference.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::kInf;
using testing::MatricesNear;
using testing::MatrixD;
using testing::fd::dot;
using testing::fd::GradientNear;
using testing::fd::numerical_gradient;

// ---------------------------------------------------------------------------------------------- softmax

// Row-wise softmax in double; −∞ entries get 0, a row of only −∞ gives zeros.
MatrixD reference_softmax(const MatrixD& x) {
  MatrixD w = MatrixD::Zero(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const double max = x.row(i).maxCoeff();
    if (max == -std::numeric_limits<double>::infinity()) continue;
    for (Eigen::Index j = 0; j < x.cols(); ++j) w(i, j) = std::exp(x(i, j) - max);
    w.row(i) /= w.row(i).sum();
  }
  return w;
}

TEST(SoftmaxBackward, MatchesFiniteDifferencesWithBlockedEntriesAndABlockedRow) {
  Matrix x = randn(4, 5, 30) * 2.0f;
  x(0, 3) = -kInf;
  x(2, 0) = x(2, 4) = -kInf;
  x.row(3).setConstant(-kInf);
  const Matrix d_weights = randn(4, 5, 31);
  const Matrix d_x = softmax_backward(softmax(x), d_weights);
  const MatrixD g = d_weights.cast<double>();
  EXPECT_TRUE(GradientNear(d_x, numerical_gradient([&](const MatrixD& xd) { return dot(reference_softmax(xd), g); },
                                                   x.cast<double>())));
  EXPECT_EQ(d_x(0, 3), 0.0f);
  EXPECT_EQ(d_x(2, 0), 0.0f);
  EXPECT_EQ(d_x.row(3), Matrix::Zero(1, 5));  // blocked row: zeros, not NaN
}

TEST(SoftmaxBackward, MatchesPyTorchAutograd) {
  const testing::Fixture f("grad_softmax");
  const Matrix x = f.matrix("x"), mask = f.matrix("mask");
  const Matrix logits = (mask.array() == 0.0f).select(-kInf, x);
  const Matrix weights = softmax(logits);
  ASSERT_TRUE(MatricesNear(weights, f.matrix("weights")));
  EXPECT_TRUE(MatricesNear(softmax_backward(weights, f.matrix("d_weights")), f.matrix("d_x")));
}

TEST(SoftmaxBackward, HandComputed) {
  // w = [½, ½], dw = [1, 0]: Σ dw·w = ½, so dx = [½·(1 − ½), ½·(0 − ½)] = [¼, −¼].
  Matrix w(2, 2), dw(2, 2), expected(2, 2);
  w << 0.5f, 0.5f, 1, 0;  // row 1 one-hot: the softmax is saturated, nothing flows back
  dw << 1, 0, 3, -7;
  expected << 0.25f, -0.25f, 0, 0;
  EXPECT_EQ(softmax_backward(w, dw), expected);
}

TEST(SoftmaxBackward, BadInputsAreErrors) {
  const Matrix w = Matrix::Constant(2, 2, 0.5f);
  expect_error([&] { softmax_backward(w, Matrix::Zero(2, 3)); }, "softmax_backward: d_weights is 2×3 but must be 2×2");
  Matrix not_weights(1, 2);
  not_weights << 0.5f, 2;
  expect_error([&] { softmax_backward(not_weights, Matrix::Zero(1, 2)); },
               "softmax_backward: weights (1×2) must be softmax rows, in [0, 1], got 2 at (0, 1)");
  Matrix infinite(2, 2);
  infinite << 0, 0, kInf, 0;
  expect_error([&] { softmax_backward(w, infinite); }, "softmax_backward: d_weights (2×2) contains +Inf at (1, 0)");
  expect_error([&] { softmax_backward(Matrix(), Matrix()); },
               "softmax_backward: weights is 0×0 (it must have at least one row and one column)");
}

// ------------------------------------------------------------------------------------------ cross_entropy

// Mean over the counted rows of log Σ exp(x) − x_target, in double.
double reference_cross_entropy(const MatrixD& logits, const std::vector<int>& targets, int ignore_index) {
  double total = 0.0;
  int count = 0;
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    const int t = targets[static_cast<std::size_t>(i)];
    if (t == ignore_index) continue;
    const double max = logits.row(i).maxCoeff();
    total += max + std::log((logits.row(i).array() - max).exp().sum()) - logits(i, t);
    ++count;
  }
  return total / count;
}

TEST(CrossEntropy, HandComputedTwoEqualLogits) {
  // softmax([0, 0]) = [½, ½]: loss −ln ½ = ln 2, gradient [½ − 1, ½]. The ignored row changes nothing.
  Matrix logits(2, 2), d_logits(2, 2);
  logits << 0, 0, 5, -5;
  d_logits << -0.5f, 0.5f, 0, 0;
  const CrossEntropyResult r = cross_entropy(logits, {0, -100});
  EXPECT_FLOAT_EQ(r.loss, static_cast<float>(std::log(2.0)));
  EXPECT_EQ(r.d_logits, d_logits);
}

TEST(CrossEntropy, MatchesFiniteDifferencesIncludingLargeLogitsAndIgnoredRows) {
  Matrix logits = randn(5, 4, 32) * 3.0f;
  logits.row(1).array() += 1e4f;  // log-sum-exp with the maximum taken out
  const std::vector<int> targets{2, 0, -100, 3, 1};
  const CrossEntropyResult r = cross_entropy(logits, targets);
  const MatrixD x = logits.cast<double>();
  EXPECT_NEAR(r.loss, reference_cross_entropy(x, targets, -100), 1e-6 * std::fabs(r.loss));
  EXPECT_TRUE(GradientNear(
      r.d_logits, numerical_gradient([&](const MatrixD& xd) { return reference_cross_entropy(xd, targets, -100); }, x)));
  EXPECT_EQ(r.d_logits.row(2), Matrix::Zero(1, 4));
}

TEST(CrossEntropy, MatchesPyTorch) {
  const testing::Fixture f("grad_cross_entropy");  // nn.CrossEntropyLoss(), one row ignored, one near 1e4
  const CrossEntropyResult r = cross_entropy(f.matrix("logits"), f.json().at("targets").get<std::vector<int>>(),
                                             f.json().at("ignore_index").get<int>());
  EXPECT_NEAR(r.loss, f.number("loss"), 1e-6);
  EXPECT_TRUE(MatricesNear(r.d_logits, f.matrix("d_logits")));
}

TEST(CrossEntropy, EveryRowIgnoredGivesZeroNotNaN) {
  const CrossEntropyResult r = cross_entropy(randn(3, 4, 33), {-100, -100, -100});
  EXPECT_EQ(r.loss, 0.0f);
  EXPECT_EQ(r.d_logits, Matrix::Zero(3, 4));
}

TEST(CrossEntropy, IgnoreIndexMayBeAClass) {
  // As in PyTorch: with ignore_index = 1, rows whose target is 1 are padding.
  Matrix logits(2, 2);
  logits << 0, 0, 3, 1;
  const CrossEntropyResult r = cross_entropy(logits, {0, 1}, 1);
  EXPECT_FLOAT_EQ(r.loss, static_cast<float>(std::log(2.0)));
  EXPECT_EQ(r.d_logits.row(1), Matrix::Zero(1, 2));
}

TEST(CrossEntropy, BadInputsAreErrors) {
  const Matrix logits = randn(2, 5, 34);
  expect_error([&] { cross_entropy(logits, {1, 2, 3}); },
               "cross_entropy: targets has 3 entries but logits is 2×5 (one target per row)");
  expect_error([&] { cross_entropy(logits, {1, 5}); },
               "cross_entropy: targets[1] = 5 is not a class of logits 2×5 (0..4) nor ignore_index = -100");
  expect_error([&] { cross_entropy(logits, {-1, 0}); },
               "cross_entropy: targets[0] = -1 is not a class of logits 2×5 (0..4) nor ignore_index = -100");
  Matrix nan = logits;
  nan(0, 1) = std::numeric_limits<float>::quiet_NaN();
  expect_error([&] { cross_entropy(nan, {0, 0}); }, "cross_entropy: logits (2×5) contains NaN at (0, 1)");
  Matrix huge(1, 2);
  huge << 3e38f, -3e38f;
  expect_error([&] { cross_entropy(huge, {1}); },
               "cross_entropy: the loss 6e+38 overflows float32 (logits 1×2 differ by more than 3.4e38 within a "
               "row: scale them down)");
}

// -------------------------------------------------------------------------------------------- mean_pool

TEST(MeanPool, HandComputedWithPadding) {
  Matrix x(3, 2), pooled(1, 2), d_pooled(1, 2), d_x(3, 2);
  x << 1, 2, 3, 4, 100, 100;
  pooled << 2, 3;
  d_pooled << 1, -2;
  d_x << 0.5f, -1, 0.5f, -1, 0, 0;
  EXPECT_EQ(mean_pool(x, {1, 1, 0}), pooled);
  EXPECT_EQ(mean_pool_backward(3, d_pooled, {1, 1, 0}), d_x);
}

TEST(MeanPool, MatchesFiniteDifferences) {
  const Matrix x = randn(5, 3, 35), d_pooled = randn(1, 3, 36);
  const MatrixD g = d_pooled.cast<double>();
  for (const std::vector<int>& valid : {std::vector<int>{}, std::vector<int>{0, 1, 1, 0, 1}}) {
    const auto pool = [&](const MatrixD& xd) {
      MatrixD sum = MatrixD::Zero(1, xd.cols());
      int count = 0;
      for (Eigen::Index i = 0; i < xd.rows(); ++i)
        if (valid.empty() || valid[static_cast<std::size_t>(i)] == 1) {
          sum += xd.row(i);
          ++count;
        }
      return dot(sum / count, g);
    };
    EXPECT_TRUE(GradientNear(mean_pool_backward(5, d_pooled, valid), numerical_gradient(pool, x.cast<double>())));
  }
}

TEST(MeanPool, MatchesPyTorchAutograd) {
  const testing::Fixture f("grad_mean_pool");
  const std::vector<int> valid = f.json().at("valid").get<std::vector<int>>();
  EXPECT_TRUE(MatricesNear(mean_pool(f.matrix("x"), valid), f.matrix("pooled")));
  EXPECT_TRUE(MatricesNear(mean_pool_backward(5, f.matrix("d_pooled"), valid), f.matrix("d_x")));
}

TEST(MeanPool, NoValidRowGivesZerosNotNaN) {
  EXPECT_EQ(mean_pool(randn(2, 3, 37), {0, 0}), Matrix::Zero(1, 3));
  EXPECT_EQ(mean_pool_backward(2, randn(1, 3, 38), {0, 0}), Matrix::Zero(2, 3));
}

TEST(MeanPool, BadInputsAreErrors) {
  const Matrix x = randn(3, 2, 39);
  expect_error([&] { mean_pool(x, {1, 0}); },
               "mean_pool: valid has 2 entries but x is 3×2 (one 1/0 per row, or none for every row)");
  expect_error([&] { mean_pool(x, {1, 2, 0}); }, "mean_pool: valid[1] = 2 must be 1 (a real row) or 0 (padding)");
  expect_error([&] { mean_pool_backward(3, Matrix::Zero(2, 2)); },
               "mean_pool_backward: d_pooled is 2×2 but must be 1×d (one row, as mean_pool returns)");
  expect_error([&] { mean_pool_backward(0, Matrix::Zero(1, 2)); }, "mean_pool_backward: n must be positive, got 0");
  expect_error([&] { mean_pool_backward(3, Matrix::Zero(1, 2), {1, 1}); },
               "mean_pool_backward: valid has 2 entries but n is 3 (one 1/0 per row, or none for every row)");
  Matrix nan = Matrix::Zero(1, 2);
  nan(0, 1) = std::numeric_limits<float>::quiet_NaN();
  expect_error([&] { mean_pool_backward(3, nan); }, "mean_pool_backward: d_pooled (1×2) contains NaN at (0, 1)");
}

}  // namespace
}  // namespace attnlab
