// attention_output (online softmax over key blocks) against PyTorch and the full computation.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "attnlab/attention/attention.hpp"
#include "attnlab/tensor/error.hpp"
#include "attnlab/attention/mask.hpp"
#include "attnlab/attention/positional.hpp"
#include "attnlab/tensor/rng.hpp"
#include "tensor/checks.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::MatricesNear;

TEST(AttentionOutput, MatchesPyTorch) {
  for (const char* name : {"sdpa_basic", "sdpa_cross_mask", "sdpa_causal"}) {
    SCOPED_TRACE(name);
    const testing::Fixture f(name);
    const Matrix mask = f.has("mask") ? f.matrix("mask") : Matrix();
    const Matrix out = attention_output(f.matrix("q"), f.matrix("k"), f.matrix("v"),
                                        {.mask = f.has("mask") ? &mask : nullptr, .scale = static_cast<float>(f.number("scale"))});
    EXPECT_TRUE(MatricesNear(out, f.matrix("output")));
  }
}

TEST(AttentionOutput, EqualsTheFullComputationAcrossBlockBoundaries) {
  // Shapes that cut through the 128-query and 256-key blocks, with and without masks and biases.
  std::uint64_t seed = 1;
  for (auto [n_q, n_k] : {std::pair{1, 1}, {5, 7}, {128, 256}, {129, 257}, {260, 600}, {300, 40}}) {
    SCOPED_TRACE(std::to_string(n_q) + "×" + std::to_string(n_k));
    const Matrix q = randn(n_q, 16, seed++) * 2.0f, k = randn(n_k, 16, seed++) * 2.0f, v = randn(n_k, 12, seed++);
    EXPECT_TRUE(MatricesNear(attention_output(q, k, v), scaled_dot_product_attention(q, k, v).output, 1e-5f, 1e-4f));
    const Matrix causal = causal_mask(n_q, n_k);  // with n_q > n_k the first rows see no key
    const Matrix bias = alibi_bias(n_q, n_k, 0.25f);
    const AttentionOptions options{.mask = &causal, .scale = 0.3f, .bias = &bias};
    const Matrix flash = attention_output(q, k, v, options);
    EXPECT_TRUE(flash.allFinite());
    EXPECT_TRUE(MatricesNear(flash, scaled_dot_product_attention(q, k, v, options).output, 1e-5f, 1e-4f));
  }
}

TEST(AttentionOutput, CausalAndAlibiAsRulesEqualTheirMatrices) {
  // The causal flag and the ALiBi slope build no n×n matrix in attention_output; they must act
  // exactly like causal_mask() and alibi_bias() do in the full computation.
  std::uint64_t seed = 40;
  for (auto [n_q, n_k] : {std::pair{70, 70}, {3, 200}, {150, 90}}) {
    SCOPED_TRACE(std::to_string(n_q) + "×" + std::to_string(n_k));
    const Matrix q = randn(n_q, 8, seed++), k = randn(n_k, 8, seed++), v = randn(n_k, 8, seed++);
    const Matrix causal = causal_mask(n_q, n_k);
    const Matrix bias = alibi_bias(n_q, n_k, 0.125f);
    const Matrix expected = scaled_dot_product_attention(q, k, v, {.mask = &causal, .bias = &bias}).output;
    const AttentionOptions rules{.causal = true, .alibi_slope = 0.125f};
    EXPECT_TRUE(MatricesNear(attention_output(q, k, v, rules), expected, 1e-5f, 1e-4f));
    EXPECT_TRUE(MatricesNear(scaled_dot_product_attention(q, k, v, rules).output, expected, 1e-6f, 1e-5f));
  }
}

TEST(AttentionOutput, ScoresThatOverflowAreAnErrorNotNaN) {
  Matrix q = Matrix::Constant(2, 4, 1e20f), k = Matrix::Constant(3, 4, 1e20f);
  const Matrix v = Matrix::Ones(3, 4);
  EXPECT_THROW(attention_output(q, k, v), Error);
  EXPECT_THROW(scaled_dot_product_attention(q, k, v), Error);
  try {
    scaled_dot_product_attention(q, k, v);
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "scaled_dot_product_attention: the score at (0, 0) overflows float32 (Q·Kᵀ is too large: scale Q or K down)");
  }
}

// Without a bias, the per-block overflow check is skipped when ‖q‖·‖k‖·scale cannot overflow: the
// bound must be exact enough to admit large-but-safe inputs and to refuse ones that could overflow.
TEST(AttentionOutput, TheOverflowBoundAdmitsOnlyScoresThatFit) {
  // The bound is d_k · max|Q| · max|K| (≥ ‖q‖·‖k‖ ≥ |q·k|), with the largest entries that checking
  // the arguments found: here 4 · 1e18 · 1e18 = 4e36 < FLT_MAX / 4.
  const auto fits = [](const Matrix& q, const Matrix& k, float scale) {
    const detail::LargestEntries largest =
        detail::check_attention_arguments("test", q, k, Matrix::Constant(k.rows(), 1, -3.0f), {});
    EXPECT_EQ(largest.q, q.cwiseAbs().maxCoeff());
    EXPECT_EQ(largest.k, k.cwiseAbs().maxCoeff());
    EXPECT_EQ(largest.v, 3.0f);
    return detail::scaled_scores_fit_float(largest, q.cols(), scale);
  };
  const Matrix big = Matrix::Constant(2, 4, 1e18f);
  EXPECT_TRUE(fits(big, big, 0.5f));
  // Every score is 4e36 · ½: equal, so the output is the mean of V's rows.
  Matrix v(2, 4);
  v << 1, 2, 3, 4, 5, 6, 7, 8;
  const Matrix out = attention_output(big, big, v);
  EXPECT_NEAR(out(0, 0), 3.0f, 1e-6f);
  EXPECT_NEAR(out(1, 3), 6.0f, 1e-6f);
  // 4 · 1.5e19 · 1e19 = 6e38 is over FLT_MAX / 4, so the blocks are checked; the actual scores,
  // 1.5e38 (before the ½), fit, and the result is exact.
  Matrix lopsided = Matrix::Zero(1, 4);
  lopsided(0, 0) = 1.5e19f;
  const Matrix keys = Matrix::Constant(2, 4, 1e19f);
  EXPECT_FALSE(fits(lopsided, -keys, 0.5f));
  EXPECT_NEAR(attention_output(lopsided, keys, v)(0, 1), 4.0f, 1e-6f);
  // A scale above 1 counts too: 4e36 · 10 is still fine, 4e36 · 1e3 is not.
  EXPECT_TRUE(fits(big, big, 10.0f));
  EXPECT_FALSE(fits(big, big, 1e3f));
}

TEST(Checks, MaxMagnitudeIsTheLargestAbsoluteValueOrInfinity) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> mixed = {0.5f, -3.25f, 2.0f, -0.0f, 1e-40f /* subnormal */};
  EXPECT_EQ(detail::max_magnitude(mixed.data(), 5), 3.25f);
  EXPECT_EQ(detail::max_magnitude(mixed.data() + 3, 2), 1e-40f);
  EXPECT_EQ(detail::max_magnitude(mixed.data(), 0), 0.0f);
  const std::vector<float> large = {-std::numeric_limits<float>::max(), 1.0f};
  EXPECT_EQ(detail::max_magnitude(large.data(), 2), std::numeric_limits<float>::max());
  for (const float special : {std::numeric_limits<float>::quiet_NaN(), inf, -inf}) {
    const std::vector<float> values = {1.0f, special, 2.0f};
    EXPECT_EQ(detail::max_magnitude(values.data(), 3), inf);
  }
}

TEST(AttentionOutput, MatchesTheFormulaInDoublePrecision) {
  const Matrix q = randn(70, 8, 3), k = randn(150, 8, 4), v = randn(150, 8, 5);
  const auto [weights, output] = testing::reference_attention(q.cast<double>(), k.cast<double>(), v.cast<double>(),
                                                              1.0 / std::sqrt(8.0));
  EXPECT_TRUE(MatricesNear(attention_output(q, k, v), output.cast<float>(), 1e-5f, 1e-4f));
}

TEST(AttentionOutput, TracesEveryBlockAndChecksItsArguments) {
  Trace trace;
  attention_output(randn(130, 4, 1), randn(260, 4, 2), randn(260, 4, 3), {}, Tracer(trace));
  std::vector<std::string> ids;
  for (const TraceStep& s : trace.steps()) ids.push_back(s.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"block0.0", "block0.1", "block1.0", "block1.1", "output"}));
  EXPECT_EQ(trace.tensor("block1.1", "exp").rows(), 2);   // queries 128…129
  EXPECT_EQ(trace.tensor("block1.1", "exp").cols(), 4);   // keys 256…259
  EXPECT_THROW(attention_output(randn(2, 4, 1), randn(3, 5, 2), randn(3, 4, 3)), Error);
  Rng rng(1);
  EXPECT_THROW(attention_output(randn(2, 4, 1), randn(3, 4, 2), randn(3, 4, 3), {.dropout = 0.5f, .rng = &rng}), Error);
}

}  // namespace
}  // namespace attnlab
