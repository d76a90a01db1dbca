#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attnlab/softmax.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

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

}  // namespace
}  // namespace attnlab
