// scaled_dot_product_attention_backward against (a) central differences of the forward written again
// in double precision here, (b) PyTorch autograd (tests/fixtures/grad_sdpa*.json), (c) a hand case.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "attnlab/attention/attention.hpp"
#include "attnlab/attention/backward.hpp"
#include "attnlab/attention/mask.hpp"
#include "attnlab/tensor/rng.hpp"
#include "expect_error.hpp"
#include "finite_difference.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::MatricesNear;
using testing::MatrixD;
using testing::fd::dot;
using testing::fd::GradientNear;
using testing::fd::numerical_gradient;

// softmax(Q·Kᵀ·scale + bias, blocked → −∞) ⊙ keep · V in double. open [n_q×n_k]: 1 = may attend;
// keep: each weight's dropout factor (0 or 1/(1−p); all 1 without dropout). A row with no open key
// gives weights 0.
MatrixD reference_output(const MatrixD& q, const MatrixD& k, const MatrixD& v, double scale, const MatrixD& bias,
                         const MatrixD& open, const MatrixD& keep) {
  // Q [n_q×d_k], K [n_k×d_k], V [n_k×d_v] → [n_q×d_v]
  const MatrixD scores = q * k.transpose() * scale + bias;
  MatrixD weights = MatrixD::Zero(scores.rows(), scores.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
    for (Eigen::Index j = 0; j < scores.cols(); ++j)
      if (open(i, j) != 0.0) max = std::max(max, scores(i, j));
    for (Eigen::Index j = 0; j < scores.cols(); ++j)
      if (open(i, j) != 0.0) sum += weights(i, j) = std::exp(scores(i, j) - max);
    if (sum > 0.0) weights.row(i) /= sum;
  }
  return weights.cwiseProduct(keep) * v;
}

// Runs forward and backward in float with `options` (dropout drawing from Rng(seed)), then checks
// every gradient against central differences of reference_output, whose mask, causal rule, ALiBi
// bias and dropout pattern are rebuilt here from their documented definitions.
AttentionGradients expect_matches_finite_differences(const Matrix& q, const Matrix& k, const Matrix& v,
                                                     AttentionOptions options, std::uint64_t seed = 1) {
  const Eigen::Index n_q = q.rows(), n_k = k.rows();
  Rng rng(seed);
  if (options.dropout > 0.0f) options.rng = &rng;
  const AttentionResult forward = scaled_dot_product_attention(q, k, v, options);
  const Matrix d_output = randn(static_cast<int>(n_q), static_cast<int>(v.cols()), seed + 100);
  const AttentionGradients g = scaled_dot_product_attention_backward(q, k, v, forward, d_output, options);

  // The scale as the forward forms it (in float), so the two evaluate the same function.
  const double scale = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(q.cols())));
  MatrixD open = options.mask ? MatrixD(options.mask->cast<double>()) : MatrixD::Ones(n_q, n_k);
  MatrixD bias = options.bias ? MatrixD(options.bias->cast<double>()) : MatrixD::Zero(n_q, n_k);
  for (Eigen::Index i = 0; i < n_q; ++i)
    for (Eigen::Index j = 0; j < n_k; ++j) {
      const Eigen::Index position = i + n_k - n_q;  // aligned to the last key
      if (options.causal && j > position) open(i, j) = 0.0;
      if (options.alibi_slope) bias(i, j) -= *options.alibi_slope * std::fabs(static_cast<double>(position - j));
    }
  MatrixD keep = MatrixD::Ones(n_q, n_k);
  if (options.dropout > 0.0f) {
    Rng replay(seed);  // dropout.hpp: one uniform per entry, row-major; zeroed when it is < p
    for (Eigen::Index i = 0; i < keep.size(); ++i)
      keep.data()[i] = replay.uniform() < options.dropout ? 0.0 : 1.0 / (1.0 - options.dropout);
  }

  const MatrixD qd = q.cast<double>(), kd = k.cast<double>(), vd = v.cast<double>(), gd = d_output.cast<double>();
  const auto loss = [&](const MatrixD& q_, const MatrixD& k_, const MatrixD& v_, const MatrixD& bias_) {
    return dot(reference_output(q_, k_, v_, scale, bias_, open, keep), gd);
  };
  EXPECT_TRUE(GradientNear(g.d_q, numerical_gradient([&](const MatrixD& x) { return loss(x, kd, vd, bias); }, qd)));
  EXPECT_TRUE(GradientNear(g.d_k, numerical_gradient([&](const MatrixD& x) { return loss(qd, x, vd, bias); }, kd)));
  EXPECT_TRUE(GradientNear(g.d_v, numerical_gradient([&](const MatrixD& x) { return loss(qd, kd, x, bias); }, vd)));
  if (options.bias)
    EXPECT_TRUE(
        GradientNear(g.d_bias, numerical_gradient([&](const MatrixD& x) { return loss(qd, kd, vd, x); }, bias)));
  else
    EXPECT_EQ(g.d_bias.size(), 0);
  EXPECT_TRUE(g.d_q.allFinite() && g.d_k.allFinite() && g.d_v.allFinite() && g.d_bias.allFinite());
  return g;
}

TEST(AttentionBackward, SelfAttentionMatchesFiniteDifferences) {
  expect_matches_finite_differences(randn(4, 3, 1), randn(4, 3, 2), randn(4, 3, 3), {});
}

TEST(AttentionBackward, CrossAttentionWithCustomScaleMatchesFiniteDifferences) {
  // n_q ≠ n_k and d_v ≠ d_k, and a scale other than 1/√d_k.
  expect_matches_finite_differences(randn(3, 4, 4), randn(5, 4, 5), randn(5, 6, 6), {.scale = 0.7f});
}

TEST(AttentionBackward, MaskAndFullyBlockedRowGiveZerosNotNaN) {
  Matrix mask(3, 4);
  mask << 1, 0, 1, 1,
          0, 0, 0, 0,  // query 1 sees no key
          1, 1, 0, 1;
  const Matrix bias = randn(3, 4, 7);
  const AttentionGradients g =
      expect_matches_finite_differences(randn(3, 2, 8), randn(4, 2, 9), randn(4, 3, 10), {.mask = &mask, .bias = &bias});
  EXPECT_EQ(g.d_q.row(1).cwiseAbs().sum(), 0.0f);
  for (Eigen::Index i = 0; i < mask.rows(); ++i)
    for (Eigen::Index j = 0; j < mask.cols(); ++j)
      if (mask(i, j) == 0.0f) {
        EXPECT_EQ(g.d_bias(i, j), 0.0f) << "blocked (" << i << ", " << j << ")";
      }
}

TEST(AttentionBackward, CausalWithBiasMatchesFiniteDifferences) {
  const Matrix bias = randn(5, 5, 11);
  expect_matches_finite_differences(randn(5, 3, 12), randn(5, 3, 13), randn(5, 2, 14), {.causal = true, .bias = &bias});
}

TEST(AttentionBackward, CausalCrossAttentionAlignedToTheLastKeyMatchesFiniteDifferences) {
  // 3 queries over 5 keys: query i may attend keys 0..i + 2.
  expect_matches_finite_differences(randn(3, 4, 15), randn(5, 4, 16), randn(5, 3, 17), {.causal = true});
}

TEST(AttentionBackward, AlibiMatchesFiniteDifferences) {
  expect_matches_finite_differences(randn(4, 2, 18), randn(6, 2, 19), randn(6, 2, 20),
                                    {.causal = true, .alibi_slope = 0.5f});
}

TEST(AttentionBackward, DropoutMatchesFiniteDifferencesWithTheSameSeededPattern) {
  expect_matches_finite_differences(randn(5, 3, 21), randn(6, 3, 22), randn(6, 4, 23), {.dropout = 0.3f}, 7);
  Matrix mask = key_padding_mask(4, 5, 3);
  mask.row(2).setZero();
  expect_matches_finite_differences(randn(4, 3, 24), randn(5, 3, 25), randn(5, 4, 26),
                                    {.mask = &mask, .scale = 2.0f, .dropout = 0.5f}, 8);
}

TEST(AttentionBackward, ForwardKeepsTheWeightsBeforeDropoutOnlyWithDropout) {
  const Matrix q = randn(4, 3, 27), k = randn(5, 3, 28), v = randn(5, 2, 29);
  const AttentionResult plain = scaled_dot_product_attention(q, k, v);
  EXPECT_EQ(plain.weights_before_dropout.size(), 0);
  Rng rng(3);
  const AttentionResult dropped = scaled_dot_product_attention(q, k, v, {.dropout = 0.25f, .rng = &rng});
  EXPECT_EQ(dropped.weights_before_dropout, plain.weights);
}

// (b) PyTorch autograd on softmax(QKᵀ·scale (+ bias), masked)·V, evaluated in float64.
// Forward and backward on the fixture's q, k, v with `options`, against PyTorch's output and gradients.
AttentionGradients expect_matches_fixture(const testing::Fixture& f, const AttentionOptions& options) {
  const Matrix q = f.matrix("q"), k = f.matrix("k"), v = f.matrix("v");
  const AttentionResult forward = scaled_dot_product_attention(q, k, v, options);
  EXPECT_TRUE(MatricesNear(forward.output, f.matrix("output")));
  const AttentionGradients g = scaled_dot_product_attention_backward(q, k, v, forward, f.matrix("d_output"), options);
  EXPECT_TRUE(MatricesNear(g.d_q, f.matrix("d_q")));
  EXPECT_TRUE(MatricesNear(g.d_k, f.matrix("d_k")));
  EXPECT_TRUE(MatricesNear(g.d_v, f.matrix("d_v")));
  return g;
}

TEST(AttentionBackward, MatchesPyTorchAutograd) {
  const testing::Fixture f("grad_sdpa");  // cross-attention 3×4 / 5×4 / 5×6, padding mask, 1/√d_k
  const Matrix mask = f.matrix("mask");
  expect_matches_fixture(f, {.mask = &mask});
}

TEST(AttentionBackward, CausalWithBiasMatchesPyTorchAutograd) {
  const testing::Fixture f("grad_sdpa_causal_bias");  // 5×4, causal, scale 0.3, additive bias
  const Matrix bias = f.matrix("bias");
  ASSERT_EQ(f.matrix("mask"), causal_mask(5));  // the rule, not the stored mask, is what runs here
  const AttentionGradients g =
      expect_matches_fixture(f, {.causal = true, .scale = static_cast<float>(f.number("scale")), .bias = &bias});
  EXPECT_TRUE(MatricesNear(g.d_bias, f.matrix("d_bias")));
}

// (c) By hand: with a single key every weight is 1 whatever Q and K are, so output_i = v_0 for each
// query: d_V = Σ_i d_output_i, and Q and K get no gradient at all.
TEST(AttentionBackward, HandComputedSingleKey) {
  Matrix q(2, 2), k(1, 2), v(1, 3), d_output(2, 3), d_v(1, 3);
  q << 1, 2, -3, 0.5f;
  k << 0.25f, -1;
  v << 7, 8, 9;
  d_output << 1, 2, 3, 4, 5, 6;
  d_v << 5, 7, 9;
  const AttentionResult forward = scaled_dot_product_attention(q, k, v);
  const AttentionGradients g = scaled_dot_product_attention_backward(q, k, v, forward, d_output);
  EXPECT_EQ(g.d_v, d_v);
  EXPECT_EQ(g.d_q, Matrix::Zero(2, 2));
  EXPECT_EQ(g.d_k, Matrix::Zero(1, 2));
}

TEST(AttentionBackward, BadInputsAreErrorsNamingTheShapes) {
  const Matrix q = randn(3, 4, 1), k = randn(5, 4, 2), v = randn(5, 6, 3);
  const AttentionResult forward = scaled_dot_product_attention(q, k, v);
  const Matrix d_output = randn(3, 6, 4);
  const std::string prefix = "scaled_dot_product_attention_backward: ";
  expect_error([&] { scaled_dot_product_attention_backward(q, k, v, forward, randn(3, 5, 4)); },
               prefix + "d_output is 3×5 but must be 3×6");
  expect_error([&] { scaled_dot_product_attention_backward(q, randn(5, 3, 2), v, forward, d_output); },
               prefix + "K is 5×3 but Q is 3×4 (d_k must match)");
  const AttentionResult other = scaled_dot_product_attention(q, randn(4, 4, 5), randn(4, 6, 6));
  expect_error([&] { scaled_dot_product_attention_backward(q, k, v, other, d_output); },
               prefix + "forward.weights is 3×4 but must be 3×5");
  Matrix nan_output = d_output;
  nan_output(1, 2) = std::numeric_limits<float>::quiet_NaN();
  expect_error([&] { scaled_dot_product_attention_backward(q, k, v, forward, nan_output); },
               prefix + "d_output (3×6) contains NaN at (1, 2)");
  expect_error([&] { scaled_dot_product_attention_backward(q, k, v, forward, d_output, {.dropout = 0.3f}); },
               prefix + "forward.weights_before_dropout is empty but dropout is 0.3 (pass the result of the "
                        "forward call made with these options)");
  Rng rng(1);
  const AttentionResult dropped = scaled_dot_product_attention(q, k, v, {.dropout = 0.3f, .rng = &rng});
  expect_error([&] { scaled_dot_product_attention_backward(q, k, v, dropped, d_output); },
               prefix + "forward holds weights_before_dropout (it ran with dropout) but dropout is 0 here (pass "
                        "the same options as to the forward call)");
  const Matrix bad_bias = Matrix::Zero(3, 4);
  expect_error([&] { scaled_dot_product_attention_backward(q, k, v, forward, d_output, {.bias = &bad_bias}); },
               prefix + "bias is 3×4 but must be n_q×n_k = 3×5");
}

TEST(AttentionBackward, GradientsThatOverflowFloat32AreErrors) {
  // d_weights = d_output·Vᵀ = 1e38 · 10 does not fit in float32.
  const Matrix q = Matrix::Ones(1, 1), k = Matrix::Ones(1, 1), v = Matrix::Constant(1, 1, 10.0f);
  const AttentionResult forward = scaled_dot_product_attention(q, k, v);
  expect_error([&] { scaled_dot_product_attention_backward(q, k, v, forward, Matrix::Constant(1, 1, 1e38f)); },
               "scaled_dot_product_attention_backward: the result overflows float32 at (0, 0): d_weights = "
               "d_output·Vᵀ (scale d_output down)");
}

}  // namespace
}  // namespace attnlab
