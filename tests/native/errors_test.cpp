// Every kind of bad input throws attnlab::Error naming the function, the argument and the shapes,
// and leaves what it was called on usable.
#include <gtest/gtest.h>

#include <limits>

#include "attnlab/attnlab.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::kNaN;
using testing::kInf;

TEST(Errors, ErrorIsAnInvalidArgument) {
  static_assert(std::is_base_of_v<std::invalid_argument, Error>);
  EXPECT_THROW(softmax(Matrix()), std::invalid_argument);
}

TEST(Errors, AttentionShapeMismatches) {
  expect_error([] { scaled_dot_product_attention(Matrix::Ones(5, 8), Matrix::Ones(7, 16), Matrix::Ones(7, 16)); },
               "scaled_dot_product_attention: K is 7×16 but Q is 5×8 (d_k must match)");
  expect_error([] { scaled_dot_product_attention(Matrix::Ones(5, 8), Matrix::Ones(7, 8), Matrix::Ones(6, 8)); },
               "scaled_dot_product_attention: V is 6×8 but K is 7×8 (n_k must match)");
  expect_error([] { scaled_dot_product_attention(Matrix(0, 8), Matrix::Ones(7, 8), Matrix::Ones(7, 8)); },
               "scaled_dot_product_attention: Q is 0×8 (it must have at least one row and one column)");
}

TEST(Errors, MasksOfTheWrongShapeOrValues) {
  const Matrix q = Matrix::Ones(3, 4), k = Matrix::Ones(5, 4);
  const Matrix square = Matrix::Ones(3, 3);
  expect_error([&] { scaled_dot_product_attention(q, k, k, {.mask = &square}); },
               "scaled_dot_product_attention: mask is 3×3 but must be n_q×n_k = 3×5");
  Matrix half = Matrix::Ones(3, 5);
  half(1, 2) = 0.5f;
  expect_error([&] { scaled_dot_product_attention(q, k, k, {.mask = &half}); },
               "scaled_dot_product_attention: mask (3×5) must hold only 1 (may attend) and 0 (blocked), got 0.5 at (1, 2)");
  MultiHeadAttention mha({.d_model = 4, .num_heads = 2});
  expect_error([&] { mha.forward(q, k, k, {.mask = &square}); },
               "MultiHeadAttention::forward: mask is 3×3 but must be n_q×n_k = 3×5");
  expect_error([] { combine_masks(Matrix::Ones(2, 2), Matrix::Ones(2, 3)); },
               "combine_masks: b is 2×3 but must be n_q×n_k = 2×2");
}

TEST(Errors, NonFiniteInputs) {
  Matrix q = Matrix::Ones(2, 4);
  q(1, 3) = kNaN;
  expect_error([&] { scaled_dot_product_attention(q, Matrix::Ones(3, 4), Matrix::Ones(3, 4)); },
               "scaled_dot_product_attention: Q (2×4) contains NaN at (1, 3)");
  Matrix v = Matrix::Ones(3, 4);
  v(0, 0) = -kInf;
  expect_error([&] { scaled_dot_product_attention(Matrix::Ones(2, 4), Matrix::Ones(3, 4), v); },
               "scaled_dot_product_attention: V (3×4) contains -Inf at (0, 0)");
  expect_error([] { scaled_dot_product_attention(Matrix::Ones(2, 4), Matrix::Ones(3, 4), Matrix::Ones(3, 4),
                                                 {.scale = kInf}); },
               "scaled_dot_product_attention: scale must be finite, got inf");
  Matrix logits = Matrix::Zero(2, 2);
  logits(0, 1) = kInf;
  expect_error([&] { softmax(logits); }, "softmax: logits (2×2) contains +Inf at (0, 1)");
  MultiHeadAttention mha({.d_model = 4, .num_heads = 2});
  Matrix x = Matrix::Ones(3, 4);
  x(2, 1) = kInf;
  expect_error([&] { mha.forward(x); }, "MultiHeadAttention::forward: query (3×4) contains +Inf at (2, 1)");
  // Cross-attention with one memory as key and value: the memory is checked (once), under its first name.
  expect_error([&] { mha.forward(Matrix::Ones(2, 4), x, x); },
               "MultiHeadAttention::forward: key (3×4) contains +Inf at (2, 1)");
  expect_error([&] { mha.forward(Matrix::Ones(2, 4), Matrix::Ones(3, 4), x); },
               "MultiHeadAttention::forward: value (3×4) contains +Inf at (2, 1)");
  TransformerEncoderLayer layer({.d_model = 4, .num_heads = 2, .d_ff = 8});
  EXPECT_THROW(layer.forward(x), Error);
  EXPECT_TRUE(layer.forward(Matrix::Ones(3, 4)).allFinite());  // still usable
}

TEST(Errors, EveryEntryPointRejectsNonFiniteValues) {
  Matrix k = Matrix::Ones(3, 4);
  k(2, 0) = kNaN;
  expect_error([&] { scaled_dot_product_attention(Matrix::Ones(2, 4), k, Matrix::Ones(3, 4)); },
               "scaled_dot_product_attention: K (3×4) contains NaN at (2, 0)");
  Matrix bias = Matrix::Zero(2, 3);
  bias(0, 1) = kNaN;
  expect_error([&] { scaled_dot_product_attention(Matrix::Ones(2, 4), Matrix::Ones(3, 4), Matrix::Ones(3, 4),
                                                  {.bias = &bias}); },
               "scaled_dot_product_attention: bias (2×3) contains NaN at (0, 1)");
  Rng rng(0);
  Linear linear(4, 2, true, rng);
  Vector linear_bias = Vector::Zero(2);
  linear_bias(1) = kNaN;
  expect_error([&] { linear.load({Matrix::Ones(2, 4), linear_bias}); }, "Linear::load: bias (2) contains NaN at (1, 0)");
  Vector norm_bias = Vector::Zero(4);
  norm_bias(1) = kInf;
  LayerNorm layer_norm(4);
  expect_error([&] { layer_norm.load(Vector::Ones(4), norm_bias); }, "LayerNorm::load: bias (4) contains +Inf at (1, 0)");
  Embedding embedding(5, 4, rng);
  Matrix table = Matrix::Zero(5, 4);
  table(3, 1) = kNaN;
  expect_error([&] { embedding.load(table); }, "Embedding::load: table (5×4) contains NaN at (3, 1)");
  Matrix x = Matrix::Ones(1, 4);
  x(0, 2) = kNaN;
  expect_error([&] { apply_rotary(x); }, "apply_rotary: x (1×4) contains NaN at (0, 2)");
  expect_error([&] { linear.forward(x); }, "Linear::forward: x (1×4) contains NaN at (0, 2)");
  expect_error([&] { layer_norm.forward(x); }, "LayerNorm::forward: x (1×4) contains NaN at (0, 2)");
  expect_error([&] { RMSNorm(4).forward(x); }, "RMSNorm::forward: x (1×4) contains NaN at (0, 2)");
}

TEST(Errors, SizesMustBePositive) {
  expect_error([] { causal_mask(0); }, "causal_mask: n must be positive, got 0");
  expect_error([] { causal_mask(3, -1); }, "causal_mask: n_k must be positive, got -1");
  expect_error([] { key_padding_mask(2, 3, 4); }, "key_padding_mask: valid_length must be in 0 … n_k = 0 … 3, got 4");
  expect_error([] { sinusoidal_encoding(-5, 8); }, "sinusoidal_encoding: seq_len must be positive, got -5");
  expect_error([] { randn(3, 0, 1); }, "Rng::normal_matrix: cols must be positive, got 0");
  expect_error([] { MultiHeadAttention({.d_model = 0, .num_heads = 1}); },
               "MultiHeadAttention: d_model must be positive, got 0");
  expect_error([] { TransformerEncoderLayer({.d_model = 8, .num_heads = 2, .d_ff = -1}); },
               "TransformerEncoderLayer: d_ff must be ≥ 0 (0 = attention only), got -1");
  expect_error([] { LayerNorm(0); }, "LayerNorm: d must be positive, got 0");
  Rng rng(0);
  expect_error([&] { Linear(3, -2, true, rng); }, "Linear: out_features must be positive, got -2");
  expect_error([&] { Embedding(0, 4, rng); }, "Embedding: num_embeddings must be positive, got 0");
}

TEST(Errors, HeadsMustDivideDModel) {
  expect_error([] { MultiHeadAttention({.d_model = 10, .num_heads = 4}); },
               "MultiHeadAttention: d_model = 10 is not divisible by num_heads = 4 (each head gets d_k = d_model / "
               "num_heads columns)");
  expect_error([] { TransformerEncoderLayer({.d_model = 10, .num_heads = 3, .d_ff = 8}); },
               "MultiHeadAttention: d_model = 10 is not divisible by num_heads = 3 (each head gets d_k = d_model / "
               "num_heads columns)");
  expect_error([] { split_heads(Matrix::Ones(2, 6), 4); },
               "split_heads: x is 2×6 but its 6 columns do not divide into 4 heads");
  expect_error([] { MultiHeadAttention({.d_model = 6, .num_heads = 2, .positions = PositionalScheme::rotary}); },
               "MultiHeadAttention: rotary positions need an even d_k, but d_k = 3");
}

TEST(Errors, ForwardInputsOfTheWrongWidth) {
  MultiHeadAttention mha({.d_model = 8, .num_heads = 2});
  expect_error([&] { mha.forward(Matrix::Ones(3, 6)); },
               "MultiHeadAttention::forward: query is 3×6 but the layer takes n×d_model = n×8 (n ≥ 1)");
  expect_error([&] { mha.forward(Matrix::Ones(3, 8), Matrix::Ones(4, 8), Matrix::Ones(5, 8)); },
               "MultiHeadAttention::forward: value is 5×8 but key is 4×8 (n_k must match)");
  Rng rng(0);
  Linear linear(4, 2, true, rng);
  expect_error([&] { linear.forward(Matrix::Ones(2, 5)); }, "Linear::forward: x is 2×5 but the layer takes n×4 (n ≥ 1)");
  expect_error([] { LayerNorm(4).forward(Matrix::Ones(1, 3)); }, "LayerNorm::forward: x is 1×3 but the norm takes n×4 (n ≥ 1)");
  expect_error([] { apply_rotary(Matrix::Ones(2, 3)); },
               "apply_rotary: x is 2×3 but RoPE rotates column pairs, so d must be even");
}

TEST(Errors, WeightsOfTheWrongShapeLeaveTheModuleUnchanged) {
  const testing::Fixture f("mha_self");
  MultiHeadAttention mha({.d_model = 16, .num_heads = 4});
  mha.load(f.attention_weights());
  MultiHeadAttentionWeights bad = f.attention_weights();
  bad.in_proj_weight = Matrix::Zero(40, 16);
  expect_error([&] { mha.load(bad); }, "MultiHeadAttention::load: in_proj_weight is 40×16 but must be 48×16");
  bad = f.attention_weights();
  bad.in_proj_bias = Vector::Zero(16);
  expect_error([&] { mha.load(bad); },
               "MultiHeadAttention::load: in_proj_bias has 16 entries but must have 48 (3·d_model)");
  bad = f.attention_weights();
  bad.out_proj_bias = Vector();
  expect_error([&] { mha.load(bad); },
               "MultiHeadAttention::load (out_proj): bias is missing (the layer has a bias of 16 entries)");
  bad = f.attention_weights();
  bad.out_proj_weight(3, 3) = kNaN;
  expect_error([&] { mha.load(bad); },
               "MultiHeadAttention::load (out_proj): weight (16×16) contains NaN at (3, 3)");
  EXPECT_TRUE(testing::MatricesNear(mha.forward(f.matrix("query")).output, f.matrix("output")));
}

TEST(Errors, AFailedLoadLeavesEveryProjectionUnchanged) {
  // A fresh layer (not the fixture's weights), so a half-applied load would show.
  const testing::Fixture f("mha_self");
  MultiHeadAttention mha({.d_model = 16, .num_heads = 4, .seed = 21});
  const Matrix x = f.matrix("query");
  const Matrix before = mha.forward(x).output;
  MultiHeadAttentionWeights bad = f.attention_weights();
  bad.out_proj_bias = Vector();  // the last piece checked
  EXPECT_THROW(mha.load(bad), Error);
  EXPECT_EQ(mha.forward(x).output, before);
}

TEST(Errors, LookupsAndProbabilities) {
  Rng rng(0);
  Embedding embedding(5, 4, rng);
  expect_error([&] { embedding.forward({1, 5}); },
               "Embedding::forward: ids[1] = 5 is outside the table's rows 0 … 4 (table is 5×4)");
  LearnedPositionalEmbedding positions(8, 4, rng);
  expect_error([&] { positions.forward(9); },
               "LearnedPositionalEmbedding::forward: seq_len must be in 1..max_len = 1..8, got 9");
  expect_error([&] { dropout(Matrix::Ones(2, 2), 1.0f, rng); }, "dropout: p must be in [0, 1), got 1");
  expect_error([] { MultiHeadAttention({.d_model = 4, .num_heads = 1, .dropout = -0.1f}); },
               "MultiHeadAttention: dropout must be in [0, 1), got -0.1");
}

}  // namespace
}  // namespace attnlab
