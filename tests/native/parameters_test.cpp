// PyTorch's gradient semantics in the layers: backward() accumulates until zero_grad(), gradients
// exist only after a backward or parameters() call, ParameterRef names follow state_dict, the FFN's
// cached forward equals the plain one, and a failing backward changes no gradient.
#include <gtest/gtest.h>

#include <limits>

#include "attnlab/layers/embedding.hpp"
#include "attnlab/layers/feed_forward.hpp"
#include "attnlab/layers/linear.hpp"
#include "attnlab/layers/norm.hpp"
#include "attnlab/tensor/parameter.hpp"
#include "attnlab/tensor/rng.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::kNaN;
using testing::row;
using testing::MatricesNear;

TEST(Parameters, GradientsAccumulateUntilZeroGrad) {
  Rng rng(1);
  Linear linear(4, 3, true, rng);
  const Matrix x1 = randn(2, 4, 2), x2 = randn(5, 4, 3), d1 = randn(2, 3, 4), d2 = randn(5, 3, 5);
  EXPECT_EQ(linear.grads().weight.size(), 0);  // like PyTorch's .grad is None before any backward
  linear.backward(x1, d1);
  const LinearWeights first = linear.grads();
  linear.backward(x2, d2);
  // Two calls add up: dW = d1ᵀx1 + d2ᵀx2, db = Σd1 + Σd2 (the formula, in float).
  EXPECT_TRUE(MatricesNear(linear.grads().weight, d1.transpose() * x1 + d2.transpose() * x2, 1e-5f));
  EXPECT_TRUE(MatricesNear(row(linear.grads().bias), d1.colwise().sum() + d2.colwise().sum(), 1e-5f));
  EXPECT_FALSE(MatricesNear(linear.grads().weight, first.weight));
  linear.zero_grad();
  EXPECT_EQ(linear.grads().weight, Matrix::Zero(3, 4));
  EXPECT_EQ(linear.grads().bias, Vector::Zero(3));
  linear.backward(x1, d1);
  EXPECT_EQ(linear.grads().weight, first.weight);  // after zero_grad, exactly one call's worth again
  EXPECT_EQ(linear.grads().bias, first.bias);
}

TEST(Parameters, EveryLayerAccumulatesAndZeroes) {
  const Matrix x = randn(3, 4, 6), d_y = randn(3, 4, 7);
  LayerNorm layer_norm(4);
  const Matrix d_x = layer_norm.backward(x, d_y);
  const Vector w1 = layer_norm.weight_grad(), b1 = layer_norm.bias_grad();
  EXPECT_EQ(layer_norm.backward(x, d_y), d_x);  // d_x does not accumulate: it is returned
  EXPECT_TRUE(MatricesNear(row(layer_norm.weight_grad()), row(2.0f * w1), 1e-6f));
  EXPECT_TRUE(MatricesNear(row(layer_norm.bias_grad()), row(2.0f * b1), 1e-6f));
  layer_norm.zero_grad();
  EXPECT_EQ(layer_norm.weight_grad(), Vector::Zero(4));
  EXPECT_EQ(layer_norm.bias_grad(), Vector::Zero(4));

  RMSNorm rms_norm(4);
  rms_norm.backward(x, d_y);
  const Vector w2 = rms_norm.weight_grad();
  rms_norm.backward(x, d_y);
  EXPECT_TRUE(MatricesNear(row(rms_norm.weight_grad()), row(2.0f * w2), 1e-6f));
  rms_norm.zero_grad();
  EXPECT_EQ(rms_norm.weight_grad(), Vector::Zero(4));

  Rng rng(8);
  Embedding embedding(5, 4, rng);
  embedding.backward({2, 0, 2}, d_y);
  embedding.backward({1}, d_y.topRows(1));
  EXPECT_TRUE(MatricesNear(embedding.table_grad().row(2), d_y.row(0) + d_y.row(2), 1e-6f));
  EXPECT_TRUE(MatricesNear(embedding.table_grad().row(1), d_y.row(0), 1e-6f));
  embedding.zero_grad();
  EXPECT_EQ(embedding.table_grad(), Matrix::Zero(5, 4));

  FeedForward ffn(4, 6, Activation::gelu, true, rng);
  FeedForwardCache cache;
  ffn.forward(x, cache);
  ffn.backward(cache, d_y);
  const LinearWeights g1 = ffn.linear1().grads(), g2 = ffn.linear2().grads();
  ffn.backward(cache, d_y);
  EXPECT_TRUE(MatricesNear(ffn.linear1().grads().weight, 2.0f * g1.weight, 1e-6f));
  EXPECT_TRUE(MatricesNear(ffn.linear2().grads().weight, 2.0f * g2.weight, 1e-6f));
  ffn.zero_grad();
  EXPECT_EQ(ffn.linear1().grads().weight, Matrix::Zero(6, 4));
  EXPECT_EQ(ffn.linear2().grads().bias, Vector::Zero(4));
}

TEST(Parameters, NamesShapesAndViewsFollowStateDict) {
  Rng rng(9);
  FeedForward ffn(4, 6, Activation::relu, true, rng);
  std::vector<ParameterRef> refs = ffn.parameters();
  ASSERT_EQ(refs.size(), 4u);
  EXPECT_EQ(refs[0].name, "linear1.weight");
  EXPECT_EQ(refs[1].name, "linear1.bias");
  EXPECT_EQ(refs[2].name, "linear2.weight");
  EXPECT_EQ(refs[3].name, "linear2.bias");
  EXPECT_EQ(refs[0].shape, (std::vector<Eigen::Index>{6, 4}));
  EXPECT_EQ(refs[1].shape, (std::vector<Eigen::Index>{6}));
  EXPECT_EQ(parameter_count(refs), ffn.parameter_count());
  EXPECT_EQ(ffn.parameters("ffn")[2].name, "ffn.linear2.weight");
  // parameters() allocates the gradients (zeros), so every ref has a gradient to point at.
  EXPECT_EQ(ffn.linear1().grads().weight, Matrix::Zero(6, 4));
  EXPECT_EQ(refs[0].value, ffn.linear1().weight().data());
  EXPECT_EQ(refs[0].grad, ffn.linear1().grads().weight.data());

  // Writing through a ref changes the layer; load() keeps the buffers, so the refs stay valid.
  refs[1].value[2] = 42.0f;
  EXPECT_EQ(ffn.linear1().bias()[2], 42.0f);
  ffn.linear2().load({Matrix::Constant(4, 6, 0.5f), Vector::Constant(4, -1.0f)});
  EXPECT_EQ(refs[2].value[0], 0.5f);
  EXPECT_EQ(refs[3].value[3], -1.0f);

  // The gradients a backward call accumulates are what the refs see; zero_grad(refs) clears them.
  FeedForwardCache cache;
  ffn.forward(randn(2, 4, 10), cache);
  ffn.backward(cache, randn(2, 4, 11));
  EXPECT_EQ(refs[2].grad[5], ffn.linear2().grads().weight(0, 5));
  EXPECT_NE(refs[2].grad[5], 0.0f);
  zero_grad(refs);
  EXPECT_EQ(ffn.linear2().grads().weight, Matrix::Zero(4, 6));

  LayerNorm norm(3);
  RMSNorm rms(3);
  Embedding embedding(5, 2, rng);
  Linear no_bias(3, 2, false, rng);
  EXPECT_EQ(norm.parameters("norm1")[1].name, "norm1.bias");
  EXPECT_EQ(rms.parameters().at(0).name, "weight");
  EXPECT_EQ(embedding.parameters("embed").at(0).name, "embed.weight");
  EXPECT_EQ(embedding.parameters().at(0).shape, (std::vector<Eigen::Index>{5, 2}));
  EXPECT_EQ(no_bias.parameters("proj").size(), 1u);
  EXPECT_EQ(parameter_name("", "bias"), "bias");
}

TEST(Parameters, CachedFeedForwardEqualsThePlainOneBitForBit) {
  Rng init(12);
  const FeedForward ffn(5, 9, Activation::gelu, true, init);
  const Matrix x = randn(4, 5, 13);
  for (float p : {0.0f, 0.3f}) {
    Rng a(14), b(14);
    Trace plain_trace, cached_trace;
    FeedForwardCache cache;
    const Matrix plain = ffn.forward(x, Tracer(plain_trace), p, &a);
    const Matrix cached = ffn.forward(x, cache, Tracer(cached_trace), p, &b);
    EXPECT_EQ(plain, cached);
    EXPECT_EQ(a.next_u32(), b.next_u32());  // the same number of draws
    ASSERT_EQ(plain_trace.steps().size(), cached_trace.steps().size());
    for (std::size_t i = 0; i < plain_trace.steps().size(); ++i) {
      EXPECT_EQ(plain_trace.steps()[i].id, cached_trace.steps()[i].id);
      EXPECT_EQ(plain_trace.steps()[i].tensors[0].value, cached_trace.steps()[i].tensors[0].value);
    }
    EXPECT_EQ(cache.x, x);
    EXPECT_EQ(cache.hidden, ffn.linear1().forward(x));
    EXPECT_EQ(cache.activated, plain_trace.tensor(p > 0 ? "dropout" : "activation", "activated"));
    EXPECT_EQ(cache.dropout_scale.size(), p > 0 ? 36 : 0);
  }
}

TEST(Parameters, BackwardRefusesBadInputNamingFunctionAndShapes) {
  Rng rng(15);
  Linear linear(5, 3, true, rng);
  expect_error([&] { linear.backward(Matrix::Ones(4, 5), Matrix::Ones(4, 2)); },
               "Linear::backward: d_y is 4×2 but must be n×out = 4×3 (x is 4×5)");
  expect_error([&] { linear.backward(Matrix::Ones(4, 6), Matrix::Ones(4, 3)); },
               "Linear::backward: x is 4×6 but the layer takes n×5 (n ≥ 1)");
  Matrix d_y = Matrix::Ones(4, 3);
  d_y(1, 2) = kNaN;
  expect_error([&] { linear.backward(Matrix::Ones(4, 5), d_y); }, "Linear::backward: d_y (4×3) contains NaN at (1, 2)");
  expect_error([] { LayerNorm(6).backward(Matrix::Ones(4, 6), Matrix::Ones(2, 6)); },
               "LayerNorm::backward: d_y is 2×6 but must be shaped like x, 4×6");
  expect_error([] { RMSNorm(6).backward(Matrix::Ones(4, 5), Matrix::Ones(4, 5)); },
               "RMSNorm::backward: x is 4×5 but the norm takes n×6 (n ≥ 1)");
  expect_error([] { activation_backward(Matrix::Ones(1, 3), Matrix::Ones(1, 2), Activation::gelu); },
               "activation_backward: d_y is 1×2 but must be shaped like x, 1×3");
  Embedding embedding(7, 4, rng);
  expect_error([&] { embedding.backward({1, 7}, Matrix::Ones(2, 4)); },
               "Embedding::backward: ids[1] = 7 is outside the table's rows 0 … 6 (table is 7×4)");
  expect_error([&] { embedding.backward({1, 2, 3}, Matrix::Ones(2, 4)); },
               "Embedding::backward: d_out is 2×4 but must be ids.size()×d_model = 3×4");
  LearnedPositionalEmbedding positions(8, 4, rng);
  expect_error([&] { positions.backward(Matrix::Ones(9, 4)); },
               "LearnedPositionalEmbedding::backward: d_out is 9×4 but must be seq_len×d_model with seq_len in "
               "1..8 and d_model = 4");
  FeedForward ffn(4, 6, Activation::gelu, true, rng);
  FeedForwardCache cache;
  expect_error([&] { ffn.backward(cache, Matrix::Ones(2, 4)); },
               "FeedForward::backward: the cache (x 0×0, hidden 0×0, activated 0×0) does not come from this "
               "layer's forward(x, cache) (d_model 4, d_ff 6)");
  ffn.forward(Matrix::Ones(2, 4), cache);
  expect_error([&] { ffn.backward(cache, Matrix::Ones(3, 4)); },
               "FeedForward::backward: d_out is 3×4 but must be n×d_model = 2×4 (the cache's x)");
  // None of the refused calls left a gradient behind.
  EXPECT_EQ(linear.grads().weight.size(), 0);
  EXPECT_EQ(embedding.table_grad().size(), 0);
  EXPECT_EQ(ffn.linear2().grads().weight.size(), 0);
}

TEST(Parameters, AnOverflowingBackwardChangesNoGradient) {
  Rng rng(16);
  // FFN: linear2's gradients are fine, linear1's weight gradient Σ d_hidden·x overflows (x = 3e38).
  FeedForward ffn(2, 3, Activation::gelu, true, rng);
  ffn.linear2().load({Matrix::Ones(2, 3), Vector::Zero(2)});
  FeedForwardCache cache{Matrix::Constant(2, 2, 3e38f), Matrix::Ones(2, 3), activate(Matrix::Ones(2, 3), Activation::gelu), {}};
  expect_error([&] { ffn.backward(cache, Matrix::Ones(2, 2)); },
               "FeedForward::backward: the weight's gradient d_yᵀ·x overflows float32 at (0, 0)");
  EXPECT_EQ(ffn.linear2().grads().weight.size(), 0);
  EXPECT_EQ(ffn.linear1().grads().weight.size(), 0);

  // Embedding: one id twice with rows near the float32 maximum.
  Embedding embedding(3, 2, rng);
  embedding.backward({0}, Matrix::Ones(1, 2));
  expect_error([&] { embedding.backward({2, 1, 2}, Matrix::Constant(3, 2, 3e38f)); },
               "Embedding::backward: the gradient of table row 2 overflows float32 (d_out's rows for it sum past 3.4e38)");
  Matrix expected = Matrix::Zero(3, 2);
  expected.row(0).setOnes();
  EXPECT_EQ(embedding.table_grad(), expected);  // row 1 (fine on its own) was not added either

  // Linear: the sum with what was accumulated before overflows.
  Linear linear(1, 1, true, rng);
  linear.load({Matrix::Ones(1, 1), Vector::Zero(1)});
  linear.backward(Matrix::Constant(1, 1, 2e38f), Matrix::Ones(1, 1));
  expect_error([&] { linear.backward(Matrix::Constant(1, 1, 2e38f), Matrix::Ones(1, 1)); },
               "Linear::backward: the weight's gradient d_yᵀ·x overflows float32 at (0, 0) once added to the gradient "
               "accumulated so far");
  EXPECT_EQ(linear.grads().weight(0, 0), 2e38f);
  EXPECT_EQ(linear.grads().bias(0), 1.0f);
}

}  // namespace
}  // namespace attnlab
