// The encoder layer over a batch (issue 31): each sequence equal to TransformerEncoderLayer::forward of
// that sequence alone, bit for bit; nn.TransformerEncoderLayer(batch_first=True) with
// src_key_padding_mask and a causal src_mask (tests/fixtures/make_batched_encoder_fixtures.py); errors.
#include <gtest/gtest.h>

#include <string>

#include "attnlab/layers/batched_encoder_layer.hpp"
#include "attnlab/layers/encoder_layer.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"
#include "tensor_fixture.hpp"

namespace attnlab {
namespace {

using testing::agreement_of;
using testing::fixture_tensor;
using testing::randn_tensor;

TransformerEncoderLayer from_fixture(const testing::Fixture& f) {
  TransformerEncoderLayer layer({.d_model = static_cast<int>(f.number("d_model")),
                                 .num_heads = static_cast<int>(f.number("num_heads")),
                                 .d_ff = static_cast<int>(f.number("d_ff")),
                                 .activation = Activation::gelu,
                                 .norm_first = f.flag("norm_first")});
  layer.load(f.encoder_weights());
  return layer;
}

void expect_batched_layer_matches_torch(const std::string& name) {
  SCOPED_TRACE(name);
  const testing::Fixture f(name);
  TransformerEncoderLayer layer = from_fixture(f);
  const Tensor padding = fixture_tensor(f, "key_padding_mask");
  const Tensor out = encoder_layer_forward(layer, fixture_tensor(f, "x"), {.causal = f.flag("causal"), .key_padding_mask = &padding});
  const testing::Agreement agreement = agreement_of(out, fixture_tensor(f, "output"));
  EXPECT_TRUE(agreement.within) << agreement.describe();
}

TEST(BatchedEncoderTorch, PostNormWithPadding) { expect_batched_layer_matches_torch("batched_encoder_post_padding"); }
TEST(BatchedEncoderTorch, PreNormWithPaddingAndCausal) { expect_batched_layer_matches_torch("batched_encoder_pre_padding_causal"); }

TEST(BatchedEncoder, EachSequenceIsThe2dForwardWithItsMaskBitForBit) {
  TransformerEncoderLayer layer({.d_model = 16, .num_heads = 4, .d_ff = 32, .seed = 3});
  const Tensor x = randn_tensor({3, 5, 16}, 4);
  const Tensor padding({3, 5}, {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1});
  // One (seq, seq) mask for every sequence: query 4 may not see key 0.
  Tensor mask({5, 5}, std::vector<float>(25, 1.0f));
  mask.at({4, 0}) = 0.0f;
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "not causal");
    const Tensor out = encoder_layer_forward(layer, x, {.mask = &mask, .causal = causal, .key_padding_mask = &padding});
    ASSERT_EQ(out.shape(), (Shape{3, 5, 16}));
    for (std::int64_t b = 0; b < 3; ++b) {
      Matrix keep = Matrix::Ones(5, 5);
      keep(4, 0) = 0.0f;
      for (std::int64_t i = 0; i < 5; ++i)
        for (std::int64_t j = 0; j < 5; ++j)
          if (padding.at({b, j}) == 1.0f) keep(i, j) = 0.0f;
      const Matrix alone = layer.forward(x.matrix(b), {.mask = &keep, .causal = causal});
      EXPECT_TRUE(out.matrix(b) == alone) << "sequence " << b;
    }
  }
}

TEST(BatchedEncoder, NoMasksIsThe2dForwardOfEachSequence) {
  TransformerEncoderLayer layer({.d_model = 8, .num_heads = 2, .d_ff = 16, .seed = 5});
  const Tensor x = randn_tensor({2, 3, 8}, 6);
  const Tensor out = encoder_layer_forward(layer, x);
  for (std::int64_t b = 0; b < 2; ++b) EXPECT_TRUE(out.matrix(b) == layer.forward(x.matrix(b))) << "sequence " << b;
}

TEST(BatchedEncoderErrors, ShapesAndValuesAreNamed) {
  TransformerEncoderLayer layer({.d_model = 8, .num_heads = 2, .d_ff = 16});
  const Tensor x = randn_tensor({2, 4, 8}, 1);
  expect_error([&] { encoder_layer_forward(layer, randn_tensor({4, 8}, 1)); },
               "encoder_layer_forward: x (4, 8) must be (batch, seq, d_model) = (batch, seq, 8)");
  expect_error([&] { encoder_layer_forward(layer, randn_tensor({2, 4, 6}, 1)); },
               "encoder_layer_forward: x (2, 4, 6) must be (batch, seq, d_model) = (batch, seq, 8)");
  const Tensor wide(Shape{4, 5});
  expect_error([&] { encoder_layer_forward(layer, x, {.mask = &wide}); },
               "encoder_layer_forward: mask (4, 5) does not broadcast to (batch, seq, seq) = (2, 4, 4)");
  const Tensor padding(Shape{3, 4});
  expect_error([&] { encoder_layer_forward(layer, x, {.key_padding_mask = &padding}); },
               "encoder_layer_forward: key_padding_mask (3, 4) must be (batch, seq) = (2, 4)");
  Tensor half({4, 4}, std::vector<float>(16, 1.0f));
  half.at({1, 2}) = 0.5f;
  expect_error([&] { encoder_layer_forward(layer, x, {.mask = &half}); },
               "encoder_layer_forward: mask (4, 4) must hold only 1 and 0, got 0.5 at (0, 1, 2) of (batch, seq, seq)");
}

}  // namespace
}  // namespace attnlab
