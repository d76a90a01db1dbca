#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attnlab/attention/softmax.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::kInf;

TEST(Softmax, MatchesHandComputation) {
  // softmax([1, 2, 3]) = e^x / (e + e² + e³), by hand: 0.0900306, 0.2447285, 0.6652410.
  Matrix logits(1, 3);
  logits << 1, 2, 3;
  Matrix expected(1, 3);
  expected << 0.09003057f, 0.24472847f, 0.66524096f;
  EXPECT_TRUE(testing::MatricesNear(softmax(logits), expected, 1e-7f));
}

TEST(Softmax, LargeLogitsStayFiniteAndMatchPyTorch) {
  const testing::Fixture f("softmax_large");
  const Matrix weights = softmax(f.matrix("logits"));
  EXPECT_TRUE(weights.allFinite());
  EXPECT_TRUE(testing::MatricesNear(weights, f.matrix("weights"), 1e-7f));
}

TEST(Softmax, RowsSumToOneAndShiftDoesNotMatter) {
  Matrix logits(2, 4);
  logits << 0.5f, -1.0f, 3.0f, 2.0f, -7.0f, 0.0f, 0.0f, 1e-3f;
  const Matrix weights = softmax(logits);
  for (Eigen::Index r = 0; r < weights.rows(); ++r) EXPECT_NEAR(weights.row(r).sum(), 1.0f, 1e-6f);
  const Matrix shifted = softmax((logits.array() + 100.0f).matrix());
  EXPECT_TRUE(testing::MatricesNear(shifted, weights, 1e-6f));
}

TEST(Softmax, MinusInfinityIsBlockedAndAFullyBlockedRowIsZeroNotNaN) {
  Matrix logits(2, 3);
  logits << 0.0f, -kInf, 0.0f, -kInf, -kInf, -kInf;
  const Matrix weights = softmax(logits);
  EXPECT_FLOAT_EQ(weights(0, 0), 0.5f);
  EXPECT_EQ(weights(0, 1), 0.0f);
  EXPECT_FLOAT_EQ(weights(0, 2), 0.5f);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(weights(1, c), 0.0f);
}

TEST(Softmax, BreakdownByHand) {
  // [1, 2, 3]: max 3; exp(x − 3) = [e⁻², e⁻¹, 1] = [0.1353353, 0.3678794, 1]; sum 1.5032147.
  Matrix logits(2, 3);
  logits << 1, 2, 3, -kInf, -kInf, -kInf;
  const SoftmaxBreakdown b = softmax_breakdown(logits);
  Matrix exp(1, 3), weights(1, 3);
  exp << 0.13533528f, 0.36787944f, 1.0f;
  weights << 0.09003057f, 0.24472847f, 0.66524096f;
  EXPECT_EQ(b.row_max(0, 0), 3.0f);
  EXPECT_TRUE(testing::MatricesNear(b.exp.topRows(1), exp, 1e-7f));
  EXPECT_NEAR(b.row_sum(0, 0), 1.50321472f, 1e-6f);
  EXPECT_TRUE(testing::MatricesNear(b.weights.topRows(1), weights, 1e-7f));
  EXPECT_EQ(b.row_sum(1, 0), 0.0f);  // fully blocked row: zeros, not NaN
  EXPECT_EQ(b.weights.row(1).cwiseAbs().sum(), 0.0f);
}

TEST(Softmax, ManySmallTermsBesideOneLargeDoNotRoundTheSumUp) {
  // One logit 0 and 23 at ln(6.107e-8): each small exp is just over half a float ulp of the running
  // sum (≈1), so a plain float sum rounds each one up to a whole ulp and the sum ends 1.4e-6 too high.
  // Expected, in double: the first weight is 1 / (1 + 23·e^x), e^x the float exp of that logit.
  constexpr int kSmall = 23;
  Matrix logits = Matrix::Constant(1, kSmall + 1, -16.611f);
  logits(0, 0) = 0.0f;
  const double small = std::exp(static_cast<double>(-16.611f));
  const double first = 1.0 / (1.0 + kSmall * small);
  // The reference step (what a trace shows) sums in double: within float rounding of the result.
  const SoftmaxBreakdown reference = softmax_breakdown(logits);
  EXPECT_NEAR(reference.weights(0, 0), first, 2e-7);
  EXPECT_NEAR(reference.weights(0, 1), small * first, 1e-13);
  EXPECT_NEAR(reference.row_sum(0, 0), 1.0 + kSmall * small, 2e-7);
  // The SIMD kernels keep one float partial sum per lane: with 4 lanes (wasm SIMD) the lane holding the
  // 1 adds 5 of the small terms, each rounded by up to an ulp, 3e-7 in all (AVX-512's 32 partial sums
  // add none). A plain float sum would be 1.4e-6 off.
  const Matrix kernel = softmax(logits);
  EXPECT_NEAR(kernel(0, 0), first, 4e-7);
  EXPECT_NEAR(kernel(0, 1), small * first, 1e-13);
}

}  // namespace
}  // namespace attnlab
