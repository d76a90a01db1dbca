// Batched scaled dot-product attention: every slice equal to the 2-D call on it (to the bit), the
// masks' conventions and broadcasting, every error with its exact message, and PyTorch in the
// tutorials' shapes (tests/fixtures/make_batched_attention_fixtures.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "attnlab/attention/attention.hpp"
#include "attnlab/attention/batched_attention.hpp"
#include "attnlab/attention/mask.hpp"
#include "attnlab/tensor/rng.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"
#include "tensor_fixture.hpp"

namespace attnlab {
namespace {

using testing::kInf;

using testing::randn_tensor;

// The tutorials' split: (batch, seq, d_model) → (batch, heads, seq, d_k).
Tensor split_into_heads(const Tensor& x, std::int64_t num_heads) {
  return x.view({x.size(0), x.size(1), num_heads, x.size(2) / num_heads}).transpose(1, 2);
}

// ---------------------------------------------------------------------------------------------
// Each slice is the 2-D call

// q (2, 3, 5, 4), k (2, 3, 6, 4), v (2, 3, 6, 3): two sequences, three heads, 5 queries over 6 keys.
struct Inputs {
  Tensor q = randn_tensor({2, 3, 5, 4}, 1), k = randn_tensor({2, 3, 6, 4}, 2), v = randn_tensor({2, 3, 6, 3}, 3);
};

// Expects result slice [b, h] to equal, bit for bit, the 2-D call the test builds for that slice.
template <typename SliceOptions>
void expect_slices_are_2d_calls(const Inputs& in, const BatchedAttentionResult& result, SliceOptions slice_options) {
  ASSERT_EQ(result.output.shape(), (Shape{2, 3, 5, 3}));
  ASSERT_EQ(result.weights.shape(), (Shape{2, 3, 5, 6}));
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t h = 0; h < 3; ++h) {
      SCOPED_TRACE("slice [" + std::to_string(b) + ", " + std::to_string(h) + "]");
      const std::int64_t slice = b * 3 + h;
      const AttentionResult expected = slice_options(b, h, in.q.matrix(slice), in.k.matrix(slice), in.v.matrix(slice));
      EXPECT_EQ(result.weights.matrix(slice), expected.weights);
      EXPECT_EQ(result.output.matrix(slice), expected.output);
    }
}

TEST(BatchedAttention, NoMaskEachSliceIsThe2dCall) {
  const Inputs in;
  expect_slices_are_2d_calls(in, scaled_dot_product_attention(in.q, in.k, in.v),
                             [](auto, auto, const Matrix& q, const Matrix& k, const Matrix& v) {
                               return scaled_dot_product_attention(q, k, v);
                             });
}

TEST(BatchedAttention, ScaleAndCausalEachSliceIsThe2dCall) {
  const Inputs in;
  expect_slices_are_2d_calls(in, scaled_dot_product_attention(in.q, in.k, in.v, {.causal = true, .scale = 0.3f}),
                             [](auto, auto, const Matrix& q, const Matrix& k, const Matrix& v) {
                               return scaled_dot_product_attention(q, k, v, {.causal = true, .scale = 0.3f});
                             });
}

TEST(BatchedAttention, OutputOnlyEachSliceIsThe2dOutputOnlyCallAndNoWeights) {
  const Inputs in;
  const Tensor padding({2, 6}, {0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0});
  const BatchedAttentionResult r =
      scaled_dot_product_attention(in.q, in.k, in.v, {.causal = true, .key_padding_mask = &padding, .need_weights = false});
  EXPECT_TRUE(r.weights.empty());
  const BatchedAttentionResult full =
      scaled_dot_product_attention(in.q, in.k, in.v, {.causal = true, .key_padding_mask = &padding});
  ASSERT_EQ(r.output.shape(), full.output.shape());
  for (std::int64_t s = 0; s < r.output.matrix_count(); ++s) {
    const std::int64_t b = s / (r.output.matrix_count() / 2);
    Matrix keep = Matrix::Ones(in.q.size(-2), in.k.size(-2));
    for (std::int64_t j = 0; j < keep.cols(); ++j)
      if (padding.at({b, j}) == 1.0f) keep.col(j).setZero();
    const Matrix alone = attention_output(in.q.matrix(s), in.k.matrix(s), in.v.matrix(s), {.mask = &keep, .causal = true});
    EXPECT_EQ(r.output.matrix(s), alone) << "slice " << s;
    EXPECT_TRUE(testing::MatricesNear(r.output.matrix(s), full.output.matrix(s), 1e-6f, 0.0f)) << "slice " << s;
  }
}

TEST(BatchedAttention, BinaryMaskCausalAndPaddingEachSliceIsThe2dCall) {
  // A per-head mask (3, 5, 6) broadcast over the batch, the causal rule, and key padding: sequence 0
  // has 6 real keys, sequence 1 has 4 (PyTorch's 1 = PAD).
  const Inputs in;
  Tensor mask = randn_tensor({3, 5, 6}, 4);
  for (std::int64_t h = 0; h < 3; ++h)
    for (std::int64_t i = 0; i < 5; ++i)
      for (std::int64_t j = 0; j < 6; ++j) mask.at({h, i, j}) = mask.at({h, i, j}) > -0.8f ? 1.0f : 0.0f;
  const Tensor padding(Shape{2, 6}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1});
  const int lengths[] = {6, 4};
  const BatchedAttentionResult result = scaled_dot_product_attention(
      in.q, in.k, in.v, {.mask = &mask, .causal = true, .key_padding_mask = &padding});
  expect_slices_are_2d_calls(in, result, [&](std::int64_t b, std::int64_t h, const Matrix& q, const Matrix& k,
                                             const Matrix& v) {
    const Matrix keep = combine_masks(mask.matrix(h), key_padding_mask(5, 6, lengths[b]));
    return scaled_dot_product_attention(q, k, v, {.mask = &keep, .causal = true});
  });
}

TEST(BatchedAttention, AdditiveMaskEachSliceIsThe2dCallWithBiasAndMask) {
  // torch's float attn_mask: finite values are added, −∞ blocks. Per (batch, 1) here: (2, 1, 5, 6).
  const Inputs in;
  Tensor additive = randn_tensor({2, 1, 5, 6}, 5);
  additive.at({0, 0, 1, 2}) = additive.at({1, 0, 4, 0}) = -kInf;
  const BatchedAttentionResult result =
      scaled_dot_product_attention(in.q, in.k, in.v, {.mask = &additive, .mask_kind = MaskKind::additive});
  expect_slices_are_2d_calls(in, result, [&](std::int64_t b, auto, const Matrix& q, const Matrix& k, const Matrix& v) {
    Matrix bias = additive.matrix(b), keep = Matrix::Ones(5, 6);
    if (b == 0) bias(1, 2) = keep(1, 2) = 0.0f;
    if (b == 1) bias(4, 0) = keep(4, 0) = 0.0f;
    return scaled_dot_product_attention(q, k, v, {.mask = &keep, .bias = &bias});
  });
  EXPECT_EQ(result.weights.at({0, 2, 1, 2}), 0.0f);
  EXPECT_EQ(result.weights.at({1, 1, 4, 0}), 0.0f);
}

TEST(BatchedAttention, DropoutDrawsSliceAfterSlice) {
  const Inputs in;
  Rng batched_rng(7), loop_rng(7);
  const BatchedAttentionResult result =
      scaled_dot_product_attention(in.q, in.k, in.v, {.dropout = 0.25f, .rng = &batched_rng});
  expect_slices_are_2d_calls(in, result, [&](auto, auto, const Matrix& q, const Matrix& k, const Matrix& v) {
    return scaled_dot_product_attention(q, k, v, {.dropout = 0.25f, .rng = &loop_rng});
  });
  EXPECT_EQ(batched_rng.next_u32(), loop_rng.next_u32());  // the same number of draws
}

// ---------------------------------------------------------------------------------------------
// Broadcasting and conventions

TEST(BatchedAttention, LeadingDimsBroadcast) {
  // One (n_k, d_k) K and a per-head V (3, 6, 3) serve q (2, 3, 5, 4): slice [b, h] uses K and V[h].
  const Tensor q = randn_tensor({2, 3, 5, 4}, 1), k = randn_tensor({6, 4}, 2), v = randn_tensor({3, 6, 3}, 3);
  const BatchedAttentionResult result = scaled_dot_product_attention(q, k, v);
  ASSERT_EQ(result.output.shape(), (Shape{2, 3, 5, 3}));
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t h = 0; h < 3; ++h) {
      const AttentionResult expected = scaled_dot_product_attention(q.matrix(b * 3 + h), k.matrix(), v.matrix(h));
      EXPECT_EQ(result.output.matrix(b * 3 + h), expected.output);
    }
  // And a 2-D call through Tensors is the 2-D call.
  const Tensor q2 = randn_tensor({5, 4}, 8);
  const BatchedAttentionResult plain = scaled_dot_product_attention(q2, k, k);
  EXPECT_EQ(plain.weights.shape(), (Shape{5, 6}));
  EXPECT_EQ(plain.output.matrix(), scaled_dot_product_attention(q2.matrix(), k.matrix(), k.matrix()).output);
}

TEST(BatchedAttention, CausalFlagEqualsCausalMaskViewedOneOneSeqSeq) {
  const Inputs in;
  const Tensor q = randn_tensor({2, 3, 6, 4}, 9);  // n_q = n_k = 6
  const Tensor tril = Tensor(causal_mask(6)).view({1, 1, 6, 6});
  const BatchedAttentionResult by_flag = scaled_dot_product_attention(q, in.k, in.v, {.causal = true});
  const BatchedAttentionResult by_mask = scaled_dot_product_attention(q, in.k, in.v, {.mask = &tril});
  EXPECT_EQ(by_flag.weights.to_vector(), by_mask.weights.to_vector());
  EXPECT_EQ(by_flag.output.to_vector(), by_mask.output.to_vector());
}

TEST(BatchedAttention, KeyPaddingIsTheOppositeOfABinaryMask) {
  // PyTorch's key_padding_mask (batch, n_k), 1 = PAD, is the binary mask 1 − it viewed (batch, 1, 1, n_k).
  const Inputs in;
  const std::vector<float> pad = {0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1};
  std::vector<float> attend(pad.size());
  std::transform(pad.begin(), pad.end(), attend.begin(), [](float p) { return 1.0f - p; });
  const Tensor padding(Shape{2, 6}, pad), mask = Tensor(Shape{2, 6}, attend).view({2, 1, 1, 6});
  const BatchedAttentionResult by_padding = scaled_dot_product_attention(in.q, in.k, in.v, {.key_padding_mask = &padding});
  const BatchedAttentionResult by_mask = scaled_dot_product_attention(in.q, in.k, in.v, {.mask = &mask});
  EXPECT_EQ(by_padding.weights.to_vector(), by_mask.weights.to_vector());
  EXPECT_EQ(by_padding.output.to_vector(), by_mask.output.to_vector());
  EXPECT_EQ(by_padding.weights.at({0, 2, 4, 3}), 0.0f);  // sequence 0's key 3 is padding
  EXPECT_GT(by_padding.weights.at({1, 2, 4, 3}), 0.0f);  // sequence 1's is not
}

TEST(BatchedAttention, AllKeysBlockedGivesZerosNotNaN) {
  const Inputs in;
  const Tensor padding(Shape{2, 6}, {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1});  // sequence 1 is all padding
  const BatchedAttentionResult r = scaled_dot_product_attention(in.q, in.k, in.v, {.key_padding_mask = &padding});
  for (std::int64_t h = 0; h < 3; ++h) {
    EXPECT_EQ(r.weights.matrix(3 + h), Matrix::Zero(5, 6));
    EXPECT_EQ(r.output.matrix(3 + h), Matrix::Zero(5, 3));
    EXPECT_NEAR(r.weights.matrix(h).row(0).sum(), 1.0f, 1e-6f);
  }
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(BatchedAttentionErrors, ShapesAreNamedAsTuples) {
  const Tensor q = randn_tensor({2, 8, 10, 4}, 1), k = randn_tensor({2, 8, 10, 4}, 2), v = randn_tensor({2, 8, 10, 4}, 3);
  const Tensor mask(Shape{1, 1, 10, 9});
  expect_error([&] { scaled_dot_product_attention(q, k, v, {.mask = &mask}); },
               "scaled_dot_product_attention: mask (1, 1, 10, 9) does not broadcast to scores (2, 8, 10, 10)");
  const Tensor too_many(Shape{1, 2, 8, 10, 10});
  expect_error([&] { scaled_dot_product_attention(q, k, v, {.mask = &too_many}); },
               "scaled_dot_product_attention: mask (1, 2, 8, 10, 10) does not broadcast to scores (2, 8, 10, 10)");
  expect_error([&] { scaled_dot_product_attention(q, randn_tensor({2, 8, 10, 3}, 4), v); },
               "scaled_dot_product_attention: K is (2, 8, 10, 3) but Q is (2, 8, 10, 4) (d_k must match)");
  expect_error([&] { scaled_dot_product_attention(q, k, randn_tensor({2, 8, 9, 4}, 4)); },
               "scaled_dot_product_attention: V is (2, 8, 9, 4) but K is (2, 8, 10, 4) (n_k must match)");
  expect_error([&] { scaled_dot_product_attention(q, randn_tensor({3, 8, 10, 4}, 4), v); },
               "scaled_dot_product_attention: the leading dims of Q (2, 8, 10, 4), K (3, 8, 10, 4) and V (2, 8, 10, 4) "
               "do not broadcast (aligned from the right, each must be equal or 1)");
  expect_error([&] { scaled_dot_product_attention(randn_tensor({4}, 1), k, v); },
               "scaled_dot_product_attention: Q (4,) needs at least 2 dims (…, n_q, d_k)");
  expect_error([&] { scaled_dot_product_attention(q, Tensor(), v); },
               "scaled_dot_product_attention: K is empty (default-constructed)");
}

TEST(BatchedAttentionErrors, MaskValuesAreNamedByIndex) {
  const Inputs in;
  Tensor binary(Shape{1, 1, 5, 6});
  binary.at({0, 0, 1, 2}) = 0.5f;
  expect_error([&] { scaled_dot_product_attention(in.q, in.k, in.v, {.mask = &binary}); },
               "scaled_dot_product_attention: mask (1, 1, 5, 6) must hold only 1 (may attend) and 0 (blocked), got "
               "0.5 at (0, 0, 1, 2)");
  Tensor additive(Shape{5, 6});
  additive.at({3, 1}) = kInf;
  expect_error([&] { scaled_dot_product_attention(in.q, in.k, in.v, {.mask = &additive, .mask_kind = MaskKind::additive}); },
               "scaled_dot_product_attention: additive mask (5, 6) must hold only finite values and -inf (blocked), "
               "got inf at (3, 1)");
  Tensor padding(Shape{2, 6});
  padding.at({1, 5}) = 2.0f;
  expect_error([&] { scaled_dot_product_attention(in.q, in.k, in.v, {.key_padding_mask = &padding}); },
               "scaled_dot_product_attention: key_padding_mask (2, 6) must hold only 1 (pad) and 0 (real token), got "
               "2 at (1, 5)");
}

TEST(BatchedAttentionErrors, KeyPaddingMaskMustBeBatchByKeys) {
  const Inputs in;
  const Tensor wrong_batch(Shape{3, 6}), wrong_keys(Shape{2, 5}), three_dims(Shape{2, 1, 6});
  for (const Tensor* padding : {&wrong_batch, &wrong_keys, &three_dims})
    expect_error([&] { scaled_dot_product_attention(in.q, in.k, in.v, {.key_padding_mask = padding}); },
                 "scaled_dot_product_attention: key_padding_mask " + shape_text(*padding) +
                     " must be (batch, n_k) = (2, 6) for scores (2, 3, 5, 6)");
  const Tensor padding(Shape{1, 6});
  const Tensor q(in.q.matrix()), k(in.k.matrix()), v(in.v.matrix());  // 2-D: no batch to pad
  expect_error([&] { scaled_dot_product_attention(q, k, v, {.key_padding_mask = &padding}); },
               "scaled_dot_product_attention: key_padding_mask (1, 6) needs scores with a batch dim, but the scores "
               "are (5, 6)");
}

TEST(BatchedAttentionErrors, OptionsAndSliceValues) {
  const Inputs in;
  expect_error([&] { scaled_dot_product_attention(in.q, in.k, in.v, {.dropout = 0.1f}); },
               "scaled_dot_product_attention: dropout > 0 needs an rng");
  Rng rng(1);
  expect_error([&] { scaled_dot_product_attention(in.q, in.k, in.v, {.dropout = 1.0f, .rng = &rng}); },
               "scaled_dot_product_attention: dropout must be in [0, 1), got 1");
  expect_error([&] { scaled_dot_product_attention(in.q, in.k, in.v, {.scale = std::nanf("")}); },
               "scaled_dot_product_attention: scale must be finite, got nan");
  // A value the 2-D call refuses is named inside its slice, and the slice within the batch.
  Tensor q = in.q.contiguous();
  q.at({1, 0, 2, 3}) = std::nanf("");
  expect_error([&] { scaled_dot_product_attention(q, in.k, in.v); },
               "scaled_dot_product_attention: Q (5×4) contains NaN at (2, 3) (in slice (1, 0) of the batch (2, 3))");
}

// ---------------------------------------------------------------------------------------------
// PyTorch, in the tutorials' shapes

using testing::agreement_of;
using testing::fixture_tensor;

void expect_matches_torch(const std::string& name) {
  SCOPED_TRACE(name);
  const testing::Fixture f(name);
  const std::int64_t heads = static_cast<std::int64_t>(f.number("num_heads"));
  const Tensor x_q = fixture_tensor(f, "x_q");
  const std::int64_t batch = x_q.size(0), seq = x_q.size(1), d_model = x_q.size(2);
  const Tensor q = split_into_heads(x_q, heads), k = split_into_heads(fixture_tensor(f, "x_k"), heads),
               v = split_into_heads(fixture_tensor(f, "x_v"), heads);
  if (f.has("q_heads")) {
    EXPECT_EQ(q.to_vector(), fixture_tensor(f, "q_heads").to_vector());  // torch's own split
  }

  BatchedAttentionOptions options{.causal = f.has("causal") && f.flag("causal"),
                                  .scale = static_cast<float>(f.number("scale"))};
  Tensor mask, padding;
  if (f.has("mask")) mask = fixture_tensor(f, "mask").view({1, 1, seq, seq});
  if (f.has("additive_finite")) {
    // torch's float attn_mask: its finite part, −∞ where it blocks.
    mask = fixture_tensor(f, "additive_finite");
    const Tensor blocked = fixture_tensor(f, "additive_blocked");
    for (std::int64_t h = 0; h < mask.size(0); ++h)
      for (std::int64_t i = 0; i < seq; ++i)
        for (std::int64_t j = 0; j < seq; ++j)
          if (blocked.at({h, i, j}) == 1.0f) mask.at({h, i, j}) = -kInf;
    options.mask_kind = MaskKind::additive;
  }
  if (!mask.empty()) options.mask = &mask;
  if (f.has("key_padding_mask")) {
    padding = fixture_tensor(f, "key_padding_mask");
    options.key_padding_mask = &padding;
  }
  const BatchedAttentionResult r = scaled_dot_product_attention(q, k, v, options);

  const testing::Agreement weights = agreement_of(r.weights, fixture_tensor(f, "weights"));
  const testing::Agreement output = agreement_of(r.output, fixture_tensor(f, "output"));
  // Within 1e-5 relative, or 1e-6 absolute for entries near 0.
  EXPECT_TRUE(weights.within) << weights.describe();
  EXPECT_TRUE(output.within) << output.describe();
  std::printf("%-28s weights: %s\n%-28s output:  %s\n", name.c_str(), weights.describe().c_str(), "",
              output.describe().c_str());
  if (f.has("output_combined")) {
    // Heads back together: transpose(1, 2).contiguous().view(batch, seq, d_model), as torch's reshape.
    const Tensor combined = r.output.transpose(1, 2).contiguous().view({batch, seq, d_model});
    EXPECT_TRUE(agreement_of(combined, fixture_tensor(f, "output_combined")).within);
  }
}

TEST(BatchedAttentionTorch, CausalMaskViewedOneOneSeqSeq) { expect_matches_torch("batched_sdpa_causal"); }
TEST(BatchedAttentionTorch, KeyPaddingFourAndTwoTokens) { expect_matches_torch("batched_sdpa_padding"); }
TEST(BatchedAttentionTorch, KeyPaddingWithCausal) { expect_matches_torch("batched_sdpa_padding_causal"); }
TEST(BatchedAttentionTorch, AdditiveFloatMaskPerHead) { expect_matches_torch("batched_sdpa_additive"); }
TEST(BatchedAttentionTorch, TutorialExercise2x10x512EightHeadsCausal) { expect_matches_torch("batched_sdpa_tutorial"); }

}  // namespace
}  // namespace attnlab
