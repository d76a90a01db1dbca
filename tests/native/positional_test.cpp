#include <gtest/gtest.h>

#include <cmath>

#include "attnlab/layers/embedding.hpp"
#include "attnlab/attention/positional.hpp"
#include "attnlab/tensor/rng.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

TEST(SinusoidalEncoding, MatchesTheFormulaInDoublePrecision) {
  // The tutorials' heatmap: 50 positions × 128 dims.
  const Matrix pe = sinusoidal_encoding(50, 128);
  for (int p = 0; p < 50; ++p)
    for (int i = 0; i < 64; ++i) {
      const double angle = p / std::pow(10000.0, 2.0 * i / 128.0);
      ASSERT_NEAR(pe(p, 2 * i), std::sin(angle), 1e-7) << p << "," << i;
      ASSERT_NEAR(pe(p, 2 * i + 1), std::cos(angle), 1e-7) << p << "," << i;
    }
}

TEST(SinusoidalEncoding, HandValues) {
  const Matrix pe = sinusoidal_encoding(3, 5);  // odd d_model ends on a sin column
  for (int c = 0; c < 5; ++c) EXPECT_EQ(pe(0, c), c % 2 == 0 ? 0.0f : 1.0f);  // position 0: sin 0, cos 0
  EXPECT_FLOAT_EQ(pe(1, 0), 0.84147098f);   // sin(1)
  EXPECT_FLOAT_EQ(pe(1, 1), 0.54030231f);   // cos(1)
  EXPECT_NEAR(pe(2, 2), 0.0502166f, 1e-7f);   // sin(2 / 10000^(2/5)) = sin(0.0502377)
  EXPECT_NEAR(pe(1, 4), 0.00063096f, 1e-8f);  // sin(1 / 10000^(4/5))
}

TEST(SinusoidalEncoding, PositionsOneTwoAndOneHundredAreDistinguishable) {
  const Matrix pe = sinusoidal_encoding(101, 8);
  EXPECT_GT((pe.row(1) - pe.row(2)).norm(), 0.1f);
  EXPECT_GT((pe.row(1) - pe.row(100)).norm(), 0.1f);
  EXPECT_GT((pe.row(2) - pe.row(100)).norm(), 0.1f);
}

TEST(Rotary, RotatesPairsByPositionTimesFrequency) {
  Matrix x(2, 4);
  x << 1, 0, 1, 0,  //
      1, 0, 1, 0;
  const Matrix r = apply_rotary(x);
  // Row 0 (position 0) is unchanged; row 1 rotates pair 0 by 1 rad and pair 1 by 10000^(-1/2) = 0.01 rad.
  EXPECT_EQ(r.row(0), x.row(0));
  EXPECT_NEAR(r(1, 0), std::cos(1.0), 1e-7);
  EXPECT_NEAR(r(1, 1), std::sin(1.0), 1e-7);
  EXPECT_NEAR(r(1, 2), std::cos(0.01), 1e-7);
  EXPECT_NEAR(r(1, 3), std::sin(0.01), 1e-7);
  EXPECT_NEAR(apply_rotary(x, 5)(0, 1), std::sin(5.0), 1e-7);  // offset shifts every position
}

TEST(Rotary, PreservesNormsAndMakesDotProductsRelative) {
  const Matrix q = randn(1, 8, 1), k = randn(1, 8, 2);
  const Matrix q3 = apply_rotary(q, 3), k1 = apply_rotary(k, 1), q7 = apply_rotary(q, 7), k5 = apply_rotary(k, 5);
  EXPECT_NEAR(q3.norm(), q.norm(), 1e-5f);
  EXPECT_NEAR(q3.row(0).dot(k1.row(0)), q7.row(0).dot(k5.row(0)), 1e-5f);  // both have distance 2
}

TEST(Alibi, SlopesFollowTheReferenceCode) {
  const std::vector<float> eight = alibi_slopes(8);  // 1/2, 1/4, …, 1/256
  for (int h = 0; h < 8; ++h) EXPECT_FLOAT_EQ(eight[h], std::pow(0.5f, static_cast<float>(h + 1)));
  // 6 heads: the 4-head slopes, then every other slope of the 8-head sequence.
  const std::vector<float> six = alibi_slopes(6);
  const std::vector<float> expected{0.25f, 0.0625f, 0.015625f, 0.00390625f, 0.5f, 0.125f};
  EXPECT_EQ(six, expected);
}

TEST(Alibi, BiasIsMinusSlopeTimesDistance) {
  const Matrix bias = alibi_bias(2, 4, 0.5f);  // queries at positions 2 and 3
  Matrix expected(2, 4);
  expected << -1, -0.5, 0, -0.5,  //
      -1.5, -1, -0.5, 0;
  EXPECT_EQ(bias, expected);
}

TEST(LearnedPositionalEmbedding, ReturnsTheFirstRowsOfItsTable) {
  Rng rng(4);
  LearnedPositionalEmbedding positions(16, 8, rng);
  const Matrix first = positions.forward(5);
  EXPECT_EQ(first, positions.table().topRows(5));
  EXPECT_EQ(positions.forward(16), positions.table());  // seq_len may equal max_len
  EXPECT_EQ(positions.parameter_count(), 128);
}

TEST(Rotary, PositionsPastInt32MaxDoNotWrap) {
  // Found by the JS fuzz: in wasm32 (32-bit Eigen::Index) row + offset wrapped to −2^31. Row 1 at
  // offset 2^31 − 1 is position 2^31; (1, 0) rotated by 2^31 radians (θ_0 = 1) is (cos 2^31, sin 2^31).
  Matrix x(2, 2);
  x << 1, 0, 1, 0;
  const Matrix y = apply_rotary(x, 2147483647);
  EXPECT_NEAR(y(1, 0), std::cos(2147483648.0), 1e-6);
  EXPECT_NEAR(y(1, 1), std::sin(2147483648.0), 1e-6);
  EXPECT_LT(y(1, 1), -0.97f);  // the wrapped position −2^31 gives +0.971
}

}  // namespace
}  // namespace attnlab
