// The layers' backward passes against PyTorch autograd (tests/fixtures/make_training_fixtures.py:
// float32 inputs, float64 autograd, results rounded to float32).
#include <gtest/gtest.h>

#include "attnlab/layers/embedding.hpp"
#include "attnlab/layers/feed_forward.hpp"
#include "attnlab/layers/linear.hpp"
#include "attnlab/layers/norm.hpp"
#include "attnlab/tensor/rng.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::row;
using testing::Fixture;
using testing::MatricesNear;

TEST(LayerGradTorch, Linear) {
  const Fixture f("grad_linear");
  Rng rng(0);
  Linear linear(5, 3, true, rng);
  linear.load({f.matrix("weight"), f.vector("bias")});
  EXPECT_TRUE(MatricesNear(linear.forward(f.matrix("x")), f.matrix("y")));
  EXPECT_TRUE(MatricesNear(linear.backward(f.matrix("x"), f.matrix("d_y")), f.matrix("d_x")));
  EXPECT_TRUE(MatricesNear(linear.grads().weight, f.matrix("weight_grad")));
  EXPECT_TRUE(MatricesNear(row(linear.grads().bias), row(f.vector("bias_grad"))));
}

TEST(LayerGradTorch, LayerNorm) {
  const Fixture f("grad_layer_norm");
  LayerNorm norm(6, static_cast<float>(f.number("eps")));
  norm.load(f.vector("weight"), f.vector("bias"));
  EXPECT_TRUE(MatricesNear(norm.forward(f.matrix("x")), f.matrix("y")));
  EXPECT_TRUE(MatricesNear(norm.backward(f.matrix("x"), f.matrix("d_y")), f.matrix("d_x")));
  EXPECT_TRUE(MatricesNear(row(norm.weight_grad()), row(f.vector("weight_grad"))));
  EXPECT_TRUE(MatricesNear(row(norm.bias_grad()), row(f.vector("bias_grad"))));
}

TEST(LayerGradTorch, RMSNorm) {
  const Fixture f("grad_rms_norm");
  RMSNorm norm(6, static_cast<float>(f.number("eps")));
  norm.load(f.vector("weight"));
  EXPECT_TRUE(MatricesNear(norm.forward(f.matrix("x")), f.matrix("y")));
  EXPECT_TRUE(MatricesNear(norm.backward(f.matrix("x"), f.matrix("d_y")), f.matrix("d_x")));
  EXPECT_TRUE(MatricesNear(row(norm.weight_grad()), row(f.vector("weight_grad"))));
}

TEST(LayerGradTorch, Activations) {
  const Fixture f("grad_activations");
  const Matrix x = row(f.vector("x")), d_y = row(f.vector("d_y"));
  EXPECT_TRUE(MatricesNear(activation_backward(x, d_y, Activation::gelu), row(f.vector("d_x_gelu")), 1e-6f));
  EXPECT_TRUE(MatricesNear(activation_backward(x, d_y, Activation::gelu_tanh), row(f.vector("d_x_gelu_tanh")), 1e-6f));
  EXPECT_EQ(activation_backward(x, d_y, Activation::relu), row(f.vector("d_x_relu")));  // exact: d_y or 0
}

TEST(LayerGradTorch, FeedForward) {
  const Fixture f("grad_ffn");  // nn.Sequential: 0 = linear1, 1 = GELU, 2 = linear2
  Rng rng(0);
  FeedForward ffn(8, 16, Activation::gelu, true, rng);
  ffn.linear1().load({f.matrix("0_weight"), f.vector("0_bias")});
  ffn.linear2().load({f.matrix("2_weight"), f.vector("2_bias")});
  FeedForwardCache cache;
  EXPECT_TRUE(MatricesNear(ffn.forward(f.matrix("x"), cache), f.matrix("y")));
  EXPECT_TRUE(MatricesNear(ffn.backward(cache, f.matrix("d_y")), f.matrix("d_x")));
  EXPECT_TRUE(MatricesNear(ffn.linear1().grads().weight, f.matrix("0_weight_grad")));
  EXPECT_TRUE(MatricesNear(row(ffn.linear1().grads().bias), row(f.vector("0_bias_grad"))));
  EXPECT_TRUE(MatricesNear(ffn.linear2().grads().weight, f.matrix("2_weight_grad")));
  EXPECT_TRUE(MatricesNear(row(ffn.linear2().grads().bias), row(f.vector("2_bias_grad"))));
}

TEST(LayerGradTorch, FeedForwardWithADropoutPattern) {
  // PyTorch cannot draw attnlab's dropout pattern, so the fixture's pattern goes into the cache by hand.
  const Fixture f("grad_ffn_dropout");
  Rng rng(0);
  FeedForward ffn(6, 12, Activation::gelu_tanh, false, rng);
  ffn.linear1().load({f.matrix("0_weight"), {}});
  ffn.linear2().load({f.matrix("2_weight"), {}});
  FeedForwardCache cache;
  cache.x = f.matrix("x");
  cache.hidden = ffn.linear1().forward(cache.x);
  cache.dropout_scale = f.matrix("dropout_scale");
  cache.activated = activate(cache.hidden, Activation::gelu_tanh).cwiseProduct(cache.dropout_scale);
  EXPECT_TRUE(MatricesNear(ffn.linear2().forward(cache.activated), f.matrix("y")));
  EXPECT_TRUE(MatricesNear(ffn.backward(cache, f.matrix("d_y")), f.matrix("d_x")));
  EXPECT_TRUE(MatricesNear(ffn.linear1().grads().weight, f.matrix("0_weight_grad")));
  EXPECT_TRUE(MatricesNear(ffn.linear2().grads().weight, f.matrix("2_weight_grad")));
}

TEST(LayerGradTorch, Embedding) {
  const Fixture f("grad_embedding");
  Rng rng(0);
  Embedding embedding(7, 4, rng);
  embedding.load(f.matrix("weight"));
  embedding.backward(f.json().at("ids").get<std::vector<int>>(), f.matrix("d_out"));
  EXPECT_TRUE(MatricesNear(embedding.table_grad(), f.matrix("weight_grad")));
}

}  // namespace
}  // namespace attnlab
