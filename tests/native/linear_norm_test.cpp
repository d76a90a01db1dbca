#include <gtest/gtest.h>

#include "attnlab/layers/embedding.hpp"
#include "attnlab/tensor/error.hpp"
#include "attnlab/layers/feed_forward.hpp"
#include "attnlab/layers/linear.hpp"
#include "attnlab/layers/norm.hpp"
#include "attnlab/tensor/rng.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::row;
using testing::MatricesNear;

TEST(Linear, MatchesPyTorchNnLinear) {
  const testing::Fixture f("linear");
  Rng rng(0);
  Linear linear(5, 3, true, rng);
  linear.load({f.matrix("weight"), f.vector("bias")});
  EXPECT_TRUE(MatricesNear(linear.forward(f.matrix("x")), f.matrix("output")));
  EXPECT_EQ(linear.parameter_count(), static_cast<std::int64_t>(f.number("parameter_count")));
}

TEST(Linear, HandComputedWithAndWithoutBias) {
  Rng rng(0);
  Linear with_bias(2, 1, true, rng), without(2, 1, false, rng);
  Matrix w(1, 2), x(1, 2);
  w << 2, -1;
  x << 3, 4;
  with_bias.load({w, Vector::Constant(1, 0.5f)});
  without.load({w, {}});
  EXPECT_FLOAT_EQ(with_bias.forward(x)(0, 0), 2.5f);  // 2·3 − 4 + 0.5
  EXPECT_FLOAT_EQ(without.forward(x)(0, 0), 2.0f);
  EXPECT_EQ(without.parameter_count(), 2);
}

TEST(Linear, InitialisedUniformlyWithinOneOverRootIn) {
  Rng rng(3);
  Linear linear(64, 256, true, rng);
  const float bound = 1.0f / 8.0f;
  EXPECT_LE(linear.weight().cwiseAbs().maxCoeff(), bound);
  EXPECT_LE(linear.bias().cwiseAbs().maxCoeff(), bound);
  EXPECT_GT(linear.weight().cwiseAbs().maxCoeff(), 0.99f * bound);  // spans the range
  EXPECT_NEAR(linear.weight().mean(), 0.0f, 0.005f);
}

TEST(Linear, InitialisationDrawsWeightThenBiasFromTheSeededStream) {
  // The independent Python RNG (make_rng_fixture.py) draws W row-major, then b, all U(±1/√in).
  const testing::Fixture f("rng");
  const auto& init = f.json().at("linear_init");
  Rng rng(init.at("seed").get<std::uint64_t>());
  Linear linear(init.at("in").get<int>(), init.at("out").get<int>(), true, rng);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(linear.weight().data()[i], init.at("weight")[i].get<float>());
  for (int i = 0; i < 2; ++i) EXPECT_EQ(linear.bias()[i], init.at("bias")[i].get<float>());
}

TEST(Linear, BiasBoundUsesInFeaturesEvenWhenOutIsLarger) {
  Rng rng(8);
  Linear linear(4, 256, true, rng);  // bound 1/√4 = 0.5 for both weight and bias (nn.Linear)
  EXPECT_LE(linear.bias().cwiseAbs().maxCoeff(), 0.5f);
  EXPECT_GT(linear.bias().cwiseAbs().maxCoeff(), 0.45f);
}

TEST(LayerNorm, EpsSitsInsideTheSquareRoot) {
  // x = [0, 0.002]: mean 0.001, var 1e-6; y = ±0.001/√(1e-6 + 1e-5) = ±0.30151134 (by hand).
  Matrix x(1, 2), expected(1, 2);
  x << 0.0f, 0.002f;
  expected << -0.30151134f, 0.30151134f;
  EXPECT_TRUE(MatricesNear(LayerNorm(2, 1e-5f).forward(x), expected, 1e-6f));
}

TEST(LayerNorm, MatchesPyTorch) {
  const testing::Fixture f("layer_norm");
  LayerNorm norm(6, static_cast<float>(f.number("eps")));
  norm.load(f.vector("weight"), f.vector("bias"));
  EXPECT_TRUE(MatricesNear(norm.forward(f.matrix("x")), f.matrix("output")));
  EXPECT_EQ(norm.parameter_count(), 12);
}

TEST(RMSNorm, HandComputed) {
  // x = [3, 4]: mean(x²) = 12.5, rms = 3.5355339; y = x / rms = [0.8485281, 1.1313708] (eps negligible).
  RMSNorm norm(2, 1e-12f);
  Matrix x(1, 2), expected(1, 2);
  x << 3, 4;
  expected << 0.84852814f, 1.13137085f;
  EXPECT_TRUE(MatricesNear(norm.forward(x), expected, 1e-6f));
  Vector weight(2);
  weight << 2, -1;
  norm.load(weight);
  expected << 1.69705627f, -1.13137085f;
  EXPECT_TRUE(MatricesNear(norm.forward(x), expected, 1e-6f));
}

TEST(RMSNorm, EpsSitsInsideTheSquareRoot) {
  // eps = 1: y = [3, 4] / √(12.5 + 1) = [0.81649658, 1.08866211] (by hand).
  Matrix x(1, 2), expected(1, 2);
  x << 3, 4;
  expected << 0.81649658f, 1.08866211f;
  EXPECT_TRUE(MatricesNear(RMSNorm(2, 1.0f).forward(x), expected, 1e-6f));
}

TEST(Activations, GeluMatchesPyTorchExactAndTanh) {
  const testing::Fixture f("gelu");
  const Matrix x = row(f.vector("x"));
  EXPECT_TRUE(MatricesNear(activate(x, Activation::gelu), row(f.vector("exact")), 1e-6f));
  EXPECT_TRUE(MatricesNear(activate(x, Activation::gelu_tanh), row(f.vector("tanh")), 1e-6f));
  Matrix r(1, 3), expected(1, 3);
  r << -2, 0, 3;
  expected << 0, 0, 3;
  EXPECT_EQ(activate(r, Activation::relu), expected);
}

TEST(FeedForward, IsLinearActivationLinear) {
  Rng rng(9);
  FeedForward ffn(8, 32, Activation::gelu, true, rng);
  const Matrix x = randn(3, 8, 1);
  const Matrix expected = ffn.linear2().forward(activate(ffn.linear1().forward(x), Activation::gelu));
  EXPECT_EQ(ffn.forward(x), expected);
  EXPECT_EQ(ffn.parameter_count(), 8 * 32 + 32 + 32 * 8 + 8);
}

TEST(Embedding, LooksUpRowsOfTheTable) {
  Rng rng(1);
  Embedding embedding(10, 4, rng);
  const Matrix out = embedding.forward({3, 3, 7});
  EXPECT_EQ(out.row(0), embedding.table().row(3));
  EXPECT_EQ(out.row(1), embedding.table().row(3));
  EXPECT_EQ(out.row(2), embedding.table().row(7));
  EXPECT_EQ(embedding.parameter_count(), 40);
}

TEST(HashedEmbedding, EachWordsRowDependsOnlyOnTheWordAndSeed) {
  // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector), so the row is randn with that seed.
  EXPECT_EQ(hashed_embedding({"a"}, 4, 0), randn(1, 4, 0xaf63dc4c8601ec8cULL));
  const Matrix one = hashed_embedding({"the", "cat", "sat"}, 8, 5);
  const Matrix two = hashed_embedding({"a", "cat", "ran", "the"}, 8, 5);
  EXPECT_EQ(one.row(1), two.row(1));  // "cat"
  EXPECT_EQ(one.row(0), two.row(3));  // "the"
  EXPECT_NE(one.row(0), hashed_embedding({"the"}, 8, 6).row(0));
  EXPECT_THROW(hashed_embedding({}, 8, 5), Error);
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

// forward() multiplies by a copy of Wᵀ laid out once for the GEMM: writes through parameters() (an
// optimizer's path) and load() must both reach it. Expected values by hand: x = [1 2], y = x·Wᵀ + b.
TEST(Linear, ForwardSeesWeightsChangedByLoadAndThroughParameters) {
  Rng rng(3);
  Linear layer(2, 2, true, rng);
  Matrix w(2, 2), x(1, 2);
  w << 1, 2, 3, 4;
  x << 1, 2;
  Vector b(2);
  b << 10, 20;
  layer.load({w, b});
  Matrix expected(1, 2);
  expected << 15, 31;  // [1·1 + 2·2 + 10, 1·3 + 2·4 + 20]
  EXPECT_EQ(layer.forward(x), expected);
  std::vector<ParameterRef> params = layer.parameters();
  params[0].value[1] = 5.0f;  // W(0, 1): 2 → 5, as an optimizer step would write it
  expected << 21, 31;
  EXPECT_EQ(layer.forward(x), expected);
  w(1, 0) = -3.0f;
  layer.load({w, b});  // after parameters(): load still reaches forward()
  expected << 15, 25;
  EXPECT_EQ(layer.forward(x), expected);
}

}  // namespace
}  // namespace attnlab
