// attention_output (online softmax over key blocks) against PyTorch and the full computation.
#include <gtest/gtest.h>

#include <cmath>
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

// flash_attention_trace against the online-softmax formulas in double precision: after the block
// ending at key e, row i has m = max_{j<e} s_ij, l = Σ_{j<e} exp(s_ij − m), acc = Σ_{j<e} exp(s_ij − m)·v_j,
// and the rescale factor is exp(m_before − m); causal keys past a row's position count as absent.
TEST(FlashAttentionTrace, EveryBlockMatchesTheFormulaInDoublePrecision) {
  const Matrix q = randn(13, 8, 21) * 1.5f, k = randn(13, 8, 22) * 1.5f, v = randn(13, 6, 23);
  const double scale = 1.0 / std::sqrt(8.0);
  const testing::MatrixD s = q.cast<double>() * k.cast<double>().transpose() * scale;
  const testing::MatrixD vd = v.cast<double>();
  const double inf = std::numeric_limits<double>::infinity();
  for (const bool causal : {false, true}) {
    for (const Eigen::Index block : {1, 4, 5, 13, 40}) {
      SCOPED_TRACE(std::string(causal ? "causal" : "full") + ", block " + std::to_string(block));
      const FlashAttentionTrace trace = flash_attention_trace(q, k, v, block, {.causal = causal});
      ASSERT_EQ(trace.blocks.size(), static_cast<std::size_t>((13 + block - 1) / block));
      std::vector<double> previous_max(13, -inf);
      for (const FlashAttentionBlock& b : trace.blocks) {
        const Eigen::Index end = b.key_start + b.key_count;
        EXPECT_EQ(b.scores.rows(), 13);
        EXPECT_EQ(b.scores.cols(), b.key_count);
        for (Eigen::Index i = 0; i < 13; ++i) {
          const Eigen::Index seen = causal ? std::min(end, i + 1) : end;  // keys 0 … seen − 1
          for (Eigen::Index c = 0; c < b.key_count; ++c) {
            const Eigen::Index j = b.key_start + c;
            if (causal && j > i) EXPECT_EQ(b.scores(i, c), -std::numeric_limits<float>::infinity());
            else EXPECT_NEAR(b.scores(i, c), s(i, j), 1e-5);
          }
          double m = -inf;
          for (Eigen::Index j = 0; j < seen; ++j) m = std::max(m, s(i, j));
          double l = 0.0;
          Eigen::RowVectorXd acc = Eigen::RowVectorXd::Zero(6);
          for (Eigen::Index j = 0; j < seen; ++j) {
            l += std::exp(s(i, j) - m);
            acc += std::exp(s(i, j) - m) * vd.row(j);
          }
          if (seen == 0) {  // no key yet (only for causal rows is this impossible: key 0 is always first)
            EXPECT_EQ(b.running_max(i, 0), -std::numeric_limits<float>::infinity());
            EXPECT_EQ(b.running_sum(i, 0), 0.0f);
            continue;
          }
          EXPECT_NEAR(b.running_max(i, 0), m, 1e-5);
          EXPECT_NEAR(b.running_sum(i, 0), l, 1e-5 * l);
          EXPECT_NEAR(b.rescale(i, 0), std::exp(previous_max[static_cast<std::size_t>(i)] - m), 1e-5);
          for (Eigen::Index d = 0; d < 6; ++d) EXPECT_NEAR(b.accumulator(i, d), acc[d], 1e-5 * (1.0 + l));
          previous_max[static_cast<std::size_t>(i)] = m;
        }
      }
      // The last block's accumulator over its sum is the output, and that is softmax attention.
      const Matrix causal_mask_matrix = causal_mask(13, 13);
      const auto [weights, output] = testing::reference_attention(q.cast<double>(), k.cast<double>(), vd, scale,
                                                                  causal ? &causal_mask_matrix : nullptr);
      EXPECT_TRUE(MatricesNear(trace.output, output.cast<float>(), 1e-5f, 1e-4f));
      const Matrix& last = trace.blocks.back().accumulator;
      EXPECT_TRUE(MatricesNear(trace.output,
                               (last.array().colwise() / trace.blocks.back().running_sum.col(0).array()).matrix(),
                               1e-6f, 1e-5f));
    }
  }
}

TEST(FlashAttentionTrace, RunsTheSameStepsAsAttentionOutput) {
  // With attention_output's own key block (256) and at most 128 queries, the two run the same
  // arithmetic in the same order: the outputs are equal to the last bit.
  const Matrix q = randn(100, 16, 31), k = randn(300, 16, 32), v = randn(300, 12, 33);
  const Matrix bias = alibi_bias(100, 300, 0.2f);
  for (const AttentionOptions& options : {AttentionOptions{}, AttentionOptions{.causal = true, .bias = &bias}}) {
    const FlashAttentionTrace trace = flash_attention_trace(q, k, v, 256, options);
    ASSERT_EQ(trace.blocks.size(), 2u);
    EXPECT_TRUE(trace.output.cwiseEqual(attention_output(q, k, v, options)).all());
  }
  EXPECT_THROW(flash_attention_trace(q, k, v, 0), Error);
  EXPECT_THROW(flash_attention_trace(q, randn(300, 15, 1), v, 8), Error);
  Rng rng(1);
  EXPECT_THROW(flash_attention_trace(q, k, v, 8, {.dropout = 0.5f, .rng = &rng}), Error);
}

}  // namespace
}  // namespace attnlab
