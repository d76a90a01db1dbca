// The memory budget: calls whose working memory would exceed it are refused with an Error before
// allocating. Byte counts below are worked by hand: n_q·n_k·4 bytes per float matrix.
#include <gtest/gtest.h>

#include "attnlab/attnlab.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

// Each test may change the budget; restore the default afterwards.
class Limits : public ::testing::Test {
 protected:
  void TearDown() override { set_memory_budget(kDefaultMemoryBudget); }
};

TEST_F(Limits, DefaultIs512MiB) { EXPECT_EQ(memory_budget(), 536870912u); }

TEST_F(Limits, WeightsForSeq100000AreRefusedBeforeAllocating) {
  // 4 matrices × 100000² × 4 bytes = 1.6e11 bytes = 149.01 GiB.
  const Matrix q = Matrix::Ones(100000, 1);
  expect_error([&] { scaled_dot_product_attention(q, q, q); },
               "scaled_dot_product_attention: needs about 149 GiB (the n_q×n_k scores, weights and the steps "
               "between: 4 × 100000×100000 floats) but the memory budget is 512 MiB (set_memory_budget raises it)");
  // With a causal mask a fifth matrix: 2.0e11 bytes = 186.3 GiB.
  expect_error([&] { scaled_dot_product_attention(q, q, q, {.causal = true}); },
               "scaled_dot_product_attention: needs about 186.3 GiB (the n_q×n_k scores, weights and the steps "
               "between: 5 × 100000×100000 floats) but the memory budget is 512 MiB (set_memory_budget raises it)");
}

TEST_F(Limits, OutputOnlyAttentionNeedsNoSquareMatrix) {
  // seq 4096 with weights: 4 × 4096² × 4 bytes = 256 MiB; under a 64 MiB budget only the online path fits.
  set_memory_budget(std::size_t{64} << 20);
  const Matrix q = randn(4096, 8, 1);
  EXPECT_THROW(scaled_dot_product_attention(q, q, q), Error);
  const Matrix out = attention_output(q, q, q);
  EXPECT_EQ(out.rows(), 4096);
  EXPECT_TRUE(out.allFinite());
}

TEST_F(Limits, BoundaryIsInclusive) {
  set_memory_budget(std::size_t{1} << 20);  // 1 MiB = 512 × 512 × 4 bytes exactly
  EXPECT_EQ(causal_mask(512).rows(), 512);
  expect_error([] { causal_mask(513); },
               "causal_mask: needs about 1.004 MiB (the mask: 1 × 513×513 floats) but the memory budget is 1 MiB (set_memory_budget raises it)");
}

TEST_F(Limits, SizesWhoseProductOverflowsInt32AreRefused) {
  // 65536² overflows a 32-bit index (wasm's Eigen::Index): refused before the product is formed.
  expect_error([] { causal_mask(65536, 65536); },
               "causal_mask: needs about 16 GiB (the mask: 1 × 65536×65536 floats) but the memory budget is 512 MiB (set_memory_budget raises it)");
  EXPECT_THROW(randn(2147483647, 2147483647, 0), Error);
  EXPECT_THROW(sinusoidal_encoding(100000, 100000), Error);
  EXPECT_THROW(alibi_bias(100000, 100000, 0.5f), Error);
  EXPECT_THROW(key_padding_mask(100000, 100000, 3), Error);
  // Found by fuzz_attention: the next power of two above 2^30 heads overflowed an int.
  EXPECT_THROW(alibi_slopes(2147483647), Error);
}

TEST_F(Limits, ResultsThatWouldOverflowFloat32AreRefused) {
  // Found by fuzz_attention: a finite slope times a distance can exceed FLT_MAX ≈ 3.4e38.
  expect_error([] { alibi_bias(3, 3, 2e38f); }, "alibi_bias: slope 2e+38 × distance 2 overflows float32");
  EXPECT_EQ(alibi_bias(3, 3, 1e38f)(0, 2), -2e38f);
  // Summing two value rows of 2e38 (before or after normalising) would pass FLT_MAX.
  expect_error([] { scaled_dot_product_attention(Matrix::Ones(1, 1), Matrix::Ones(2, 1), Matrix::Constant(2, 1, 2e38f)); },
               "scaled_dot_product_attention: V's largest entry 2e+38 × n_k = 2 overflows float32 when the values are "
               "summed (scale V down)");
  EXPECT_EQ(attention_output(Matrix::Ones(1, 1), Matrix::Ones(2, 1), Matrix::Constant(2, 1, 1e38f))(0, 0), 1e38f);
  // Found by fuzz_layers: finite weights of 3e38 times a normalised entry of about ±1 (x = [−1, 1]
  // normalises to [−1, 1]) plus a bias of 3e38 gives 6e38 — over FLT_MAX.
  LayerNorm norm(2);
  norm.load(Vector::Constant(2, 3e38f), Vector::Constant(2, 3e38f));
  Matrix pair(1, 2);
  pair << -1, 1;
  expect_error([&] { norm.forward(pair); },
               "LayerNorm::forward: the result overflows float32 at (0, 1): weight or bias too large");
  Rng rng(0);
  Linear linear(2, 1, false, rng);
  linear.load({Matrix::Constant(1, 2, 3e38f), Vector()});
  expect_error([&] { linear.forward(Matrix::Ones(1, 2)); },
               "Linear::forward: the result overflows float32 at (0, 0): x·Wᵀ + b is too large");
  // Rotating (3e38, 3e38) by 45° would give a coordinate of 3e38·√2 ≈ 4.2e38 > FLT_MAX. Row 1 of a
  // 2-column x turns by exactly 1 radian: cos 1 − sin 1 < 0, cos 1 + sin 1 ≈ 1.38 — over.
  Matrix x(2, 2);
  x << 1, 1, 3e38f, 3e38f;
  expect_error([&] { apply_rotary(x); },
               "apply_rotary: rotating x's row 1, columns 0–1 overflows float32 (entries near 3.4e38 are too large)");
}

TEST_F(Limits, LayersTooLargeForTheBudgetAreRefused) {
  // 8 × 16384² × 4 bytes = 8 GiB for the projections (and their copies while loading).
  expect_error([] { MultiHeadAttention({.d_model = 16384, .num_heads = 8}); },
               "MultiHeadAttention: needs about 8 GiB (W_q, W_k, W_v, W_o: 8 × 16384×16384 floats) but the memory "
               "budget is 512 MiB (set_memory_budget raises it)");
  EXPECT_THROW(TransformerEncoderLayer({.d_model = 64, .num_heads = 4, .d_ff = 1 << 30}), Error);
}

TEST_F(Limits, MultiHeadWeightsCountEveryHead) {
  // 8 heads at seq 2048: (8 + 1 + 6) × 2048² × 4 bytes = 240 MiB — over a 128 MiB budget with weights,
  // fine without them.
  set_memory_budget(std::size_t{128} << 20);
  MultiHeadAttention mha({.d_model = 16, .num_heads = 8});
  const Matrix x = randn(2048, 16, 3);
  expect_error([&] { mha.forward(x); },
               "MultiHeadAttention::forward: needs about 240 MiB (each head's n_q×n_k weights, their average and one "
               "head's scores: 15 × 2048×2048 floats) but the memory budget is 128 MiB (set_memory_budget raises it)");
  const MultiHeadAttentionOutput out = mha.forward(x, {.need_weights = false});
  EXPECT_EQ(out.output.rows(), 2048);
  EXPECT_TRUE(out.head_weights.empty());
}

TEST_F(Limits, ARefusedCallLeavesTheLibraryUsable) {
  const Matrix q = Matrix::Ones(100000, 1);
  EXPECT_THROW(scaled_dot_product_attention(q, q, q), Error);
  const Matrix small = Matrix::Ones(2, 2);
  EXPECT_FLOAT_EQ(scaled_dot_product_attention(small, small, small).weights(0, 0), 0.5f);
}

TEST_F(Limits, ZeroBudgetIsAnError) {
  expect_error([] { set_memory_budget(0); }, "set_memory_budget: bytes must be positive, got 0");
  EXPECT_EQ(memory_budget(), kDefaultMemoryBudget);
}

}  // namespace
}  // namespace attnlab
