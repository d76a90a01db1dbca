#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "attnlab/attention/attention.hpp"
#include "attnlab/attention/mask.hpp"
#include "attnlab/tensor/rng.hpp"
#include "attnlab/tensor/error.hpp"
#include "fixture.hpp"
#include "attention/lean_attention.hpp"

namespace attnlab {
namespace {

using testing::MatricesNear;

// Every SDPA fixture: PyTorch's scores, scaled scores, weights and output (scale as stored).
void expect_matches_fixture(const std::string& name) {
  SCOPED_TRACE(name);
  const testing::Fixture f(name);
  const Matrix mask = f.has("mask") ? f.matrix("mask") : Matrix();
  const AttentionResult r = scaled_dot_product_attention(
      f.matrix("q"), f.matrix("k"), f.matrix("v"),
      {.mask = f.has("mask") ? &mask : nullptr, .scale = static_cast<float>(f.number("scale"))});
  EXPECT_TRUE(MatricesNear(r.scores, f.matrix("scores")));
  EXPECT_TRUE(MatricesNear(r.scaled_scores, f.matrix("scaled_scores")));
  EXPECT_TRUE(MatricesNear(r.weights, f.matrix("weights")));
  EXPECT_TRUE(MatricesNear(r.output, f.matrix("output")));
}

TEST(ScaledDotProductAttention, MatchesPyTorch) {
  expect_matches_fixture("sdpa_basic");
  expect_matches_fixture("sdpa_cross_mask");
  expect_matches_fixture("sdpa_causal");
}

TEST(ScaledDotProductAttention, DefaultScaleIsOneOverRootDk) {
  const testing::Fixture f("sdpa_basic");  // d_k = 8, stored with scale 1/√8
  const AttentionResult r = scaled_dot_product_attention(f.matrix("q"), f.matrix("k"), f.matrix("v"));
  EXPECT_TRUE(MatricesNear(r.scaled_scores, f.matrix("scaled_scores")));
  EXPECT_TRUE(MatricesNear(r.output, f.matrix("output")));
}

TEST(ScaledDotProductAttention, HandComputedTwoKeys) {
  // q = [1, 0]; keys [1, 0] and [0, 1]; scores [1, 0]; scaled by 1/√2 → [0.70711, 0];
  // weights = [e^0.70711, 1] / (e^0.70711 + 1) = [0.66976, 0.33024]; output = 0.66976·[1,2] + 0.33024·[3,4].
  Matrix q(1, 2), k(2, 2), v(2, 2);
  q << 1, 0;
  k << 1, 0, 0, 1;
  v << 1, 2, 3, 4;
  const AttentionResult r = scaled_dot_product_attention(q, k, v);
  Matrix weights(1, 2), output(1, 2);
  weights << 0.669762f, 0.330238f;
  output << 1.660476f, 2.660476f;
  EXPECT_TRUE(MatricesNear(r.weights, weights, 1e-6f));
  EXPECT_TRUE(MatricesNear(r.output, output, 1e-6f));
}

TEST(ScaledDotProductAttention, CrossAttentionWithDvNotDkMatchesDoublePrecisionFormula) {
  // The tutorials' cross-attention shapes: 3 queries over 5 keys; d_k 4, d_v 6; a custom scale.
  const Matrix q = randn(3, 4, 1), k = randn(5, 4, 2), v = randn(5, 6, 3);
  for (float scale : {0.5f, 1.0f, 0.0f}) {
    const AttentionResult r = scaled_dot_product_attention(q, k, v, {.scale = scale});
    const auto [weights, output] =
        testing::reference_attention(q.cast<double>(), k.cast<double>(), v.cast<double>(), scale);
    EXPECT_EQ(r.output.rows(), 3);
    EXPECT_EQ(r.output.cols(), 6);
    EXPECT_TRUE(MatricesNear(r.weights, weights.cast<float>()));
    EXPECT_TRUE(MatricesNear(r.output, output.cast<float>()));
  }
}

TEST(ScaledDotProductAttention, TryThisShapesAndRowsSumToOne) {
  // "Scaled dot-product attention from scratch on Q 4×8, K 6×8, V 6×8: output 4×8, weight rows sum to 1."
  const AttentionResult r = scaled_dot_product_attention(randn(4, 8, 10), randn(6, 8, 11), randn(6, 8, 12));
  EXPECT_EQ(r.output.rows(), 4);
  EXPECT_EQ(r.output.cols(), 8);
  EXPECT_EQ(r.weights.rows(), 4);
  EXPECT_EQ(r.weights.cols(), 6);
  for (Eigen::Index i = 0; i < 4; ++i) EXPECT_NEAR(r.weights.row(i).sum(), 1.0f, 1e-6f);
}

TEST(ScaledDotProductAttention, CausalUpperTriangleIsExactlyZero) {
  const Matrix mask = causal_mask(6);
  const AttentionResult r = scaled_dot_product_attention(randn(6, 8, 1), randn(6, 8, 2), randn(6, 8, 3),
                                                         {.mask = &mask});
  for (int i = 0; i < 6; ++i)
    for (int j = i + 1; j < 6; ++j) EXPECT_EQ(r.weights(i, j), 0.0f) << i << "," << j;
  EXPECT_TRUE(std::isinf(r.masked_scores(0, 5)) && r.masked_scores(0, 5) < 0);
}

TEST(ScaledDotProductAttention, FullyBlockedRowGivesZeroWeightsAndZeroOutput) {
  Matrix mask = Matrix::Ones(3, 4);
  mask.row(1).setZero();
  const AttentionResult r = scaled_dot_product_attention(randn(3, 2, 4), randn(4, 2, 5), randn(4, 3, 6),
                                                         {.mask = &mask});
  EXPECT_TRUE(r.weights.allFinite());
  EXPECT_TRUE(r.output.allFinite());
  EXPECT_EQ(r.weights.row(1).cwiseAbs().sum(), 0.0f);
  EXPECT_EQ(r.output.row(1).cwiseAbs().sum(), 0.0f);
  EXPECT_NEAR(r.weights.row(0).sum(), 1.0f, 1e-6f);
}

TEST(ScaledDotProductAttention, BiasIsAddedAfterScaling) {
  const Matrix q = randn(2, 4, 7), k = randn(3, 4, 8), v = randn(3, 4, 9);
  Matrix bias(2, 3);
  bias << 0, -1, -2, -1, 0, -1;
  const AttentionResult r = scaled_dot_product_attention(q, k, v, {.bias = &bias});
  const Matrix expected_scaled = ((q * k.transpose()).cast<double>() * 0.5 + bias.cast<double>()).cast<float>();
  EXPECT_TRUE(MatricesNear(r.scaled_scores, expected_scaled));
}

TEST(ScaledDotProductAttention, DropoutZeroesWeightsAndRescalesSurvivors) {
  const Matrix q = randn(32, 8, 1), k = randn(32, 8, 2), v = randn(32, 8, 3);
  const AttentionResult plain = scaled_dot_product_attention(q, k, v);
  Rng rng(5);
  const AttentionResult dropped = scaled_dot_product_attention(q, k, v, {.dropout = 0.25f, .rng = &rng});
  int zeros = 0;
  for (Eigen::Index i = 0; i < plain.weights.size(); ++i) {
    const float w = dropped.weights.data()[i];
    if (w == 0.0f)
      ++zeros;
    else
      EXPECT_FLOAT_EQ(w, plain.weights.data()[i] / 0.75f);
  }
  EXPECT_NEAR(zeros / 1024.0, 0.25, 0.05);  // 1024 Bernoulli(0.25) draws: 5σ ≈ 0.068, 3σ ≈ 0.04
  Rng same_seed(5);
  const AttentionResult again = scaled_dot_product_attention(q, k, v, {.dropout = 0.25f, .rng = &same_seed});
  EXPECT_EQ(again.weights, dropped.weights);
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

// MultiHeadAttention's weights-only path must give exactly what the full function gives (the same
// products, scaled where they are stored), for every kind of masking; the intermediates stay empty.
TEST(LeanAttention, EqualsScaledDotProductAttentionBitForBit) {
  const Matrix q = randn(5, 8, 21), k = randn(7, 8, 22), v = randn(7, 3, 23);
  Matrix mask = Matrix::Ones(5, 7);
  mask(1, 2) = mask(4, 0) = 0.0f;
  mask.row(3).setZero();  // a fully blocked row: zeros, not NaN
  const std::vector<AttentionOptions> cases = {
      {}, {.mask = &mask}, {.causal = true}, {.mask = &mask, .causal = true}, {.scale = 0.3f}, {.alibi_slope = 0.5f}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const AttentionResult full = scaled_dot_product_attention(q, k, v, cases[i]);
    const AttentionResult lean = detail::lean_attention(q, k, v, cases[i]);
    EXPECT_EQ(lean.weights, full.weights);
    EXPECT_EQ(lean.output, full.output);
    if (!cases[i].alibi_slope) {
      EXPECT_EQ(lean.scores.size(), 0);
    }
  }
  EXPECT_THROW(detail::lean_attention(q, randn(7, 4, 1), v, {}), Error);
}

}  // namespace
}  // namespace attnlab
