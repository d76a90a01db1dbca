#include <gtest/gtest.h>

#include "attnlab/layers/encoder_layer.hpp"
#include "attnlab/tensor/error.hpp"
#include "attnlab/attention/mask.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::MatricesNear;

TransformerEncoderLayer layer_from_fixture(const testing::Fixture& f) {
  TransformerEncoderLayer layer({.d_model = static_cast<int>(f.number("d_model")),
                                 .num_heads = static_cast<int>(f.number("num_heads")),
                                 .d_ff = static_cast<int>(f.number("d_ff")),
                                 .dropout = 0.1f,
                                 .activation = Activation::gelu,
                                 .norm_first = f.flag("norm_first"),
                                 .norm_eps = static_cast<float>(f.number("layer_norm_eps"))});
  layer.load(f.encoder_weights());
  return layer;
}

void expect_layer_matches_pytorch(const std::string& name, bool causal = false) {
  SCOPED_TRACE(name);
  const testing::Fixture f(name);
  TransformerEncoderLayer layer = layer_from_fixture(f);
  const Matrix out = layer.forward(f.matrix("x"), {.causal = causal});
  EXPECT_TRUE(MatricesNear(out, f.matrix("output"), 2e-5f, 2e-5f));
  EXPECT_EQ(layer.parameter_count(), static_cast<std::int64_t>(f.number("parameter_count")));
}

TEST(TransformerEncoderLayer, PostNormMatchesPyTorch) { expect_layer_matches_pytorch("encoder_post_gelu"); }
TEST(TransformerEncoderLayer, PreNormMatchesPyTorch) { expect_layer_matches_pytorch("encoder_pre_gelu"); }
TEST(TransformerEncoderLayer, CausalMatchesPyTorch) { expect_layer_matches_pytorch("encoder_post_causal", true); }

TEST(TransformerEncoderLayer, ParameterCountEqualsPyTorchsFormula) {
  // nn.TransformerEncoderLayer(64, 4, 256): attention 4·64² + 4·64, FFN 2·64·256 + 256 + 64, norms 4·64.
  TransformerEncoderLayer layer({.d_model = 64, .num_heads = 4, .d_ff = 256});
  EXPECT_EQ(layer.parameter_count(), 49984);
  EXPECT_EQ(layer.self_attn().parameter_count(), 16640);
  EXPECT_EQ(layer.feed_forward().parameter_count(), 33088);
  EXPECT_EQ(layer.norm_parameter_count(), 256);
  // RMSNorm has a weight and no bias: 128 norm parameters instead of 256.
  EXPECT_EQ(TransformerEncoderLayer({.d_model = 64, .num_heads = 4, .d_ff = 256, .norm = NormKind::rms_norm})
                .parameter_count(),
            49856);
}

TEST(TransformerEncoderLayer, RmsNormPreNormBlockRunsTheTutorialExercise) {
  // "Build the block with RMSNorm": pass a 10-token sequence through and keep the shape.
  TransformerEncoderLayer layer(
      {.d_model = 64, .num_heads = 4, .d_ff = 256, .norm_first = true, .norm = NormKind::rms_norm, .seed = 2});
  const Matrix x = randn(10, 64, 3);
  Trace trace;
  const Matrix out = layer.forward(x, {.causal = true}, Tracer(trace));
  EXPECT_EQ(out.rows(), 10);
  EXPECT_EQ(out.cols(), 64);
  EXPECT_TRUE(out.allFinite());
  // Pre-norm: the residual adds the attention of the *normalised* input to the raw input.
  EXPECT_TRUE(MatricesNear(trace.tensor("residual1", "sum"), x + trace.tensor("attn.output", "output")));
  const Matrix normed = trace.tensor("norm1", "normed");
  const double rms = std::sqrt(x.row(0).cast<double>().array().square().mean() + 1e-5);
  EXPECT_NEAR(normed(0, 5), x(0, 5) / rms, 1e-5);
}

TEST(TransformerEncoderLayer, TrainingDropoutIsSeededAndEvalIsDeterministic) {
  const TransformerEncoderLayerConfig config{.d_model = 16, .num_heads = 2, .d_ff = 32, .dropout = 0.3f, .seed = 4};
  TransformerEncoderLayer a(config), b(config);
  const Matrix x = randn(5, 16, 1);
  const Matrix eval = a.forward(x);
  EXPECT_EQ(eval, b.forward(x));
  a.train();
  b.train();
  const Matrix train_a = a.forward(x);
  EXPECT_EQ(train_a, b.forward(x));
  EXPECT_FALSE(MatricesNear(train_a, eval, 1e-4f));
  a.train(false);
  EXPECT_EQ(a.forward(x), eval);
}

TEST(TransformerEncoderLayer, FailedLoadLeavesTheLayerUnchanged) {
  // A fresh seeded layer, so a half-applied load of the fixture's (different) weights would show.
  const testing::Fixture f("encoder_post_gelu");
  TransformerEncoderLayer layer({.d_model = 64, .num_heads = 4, .d_ff = 256, .seed = 12});
  const Matrix x = f.matrix("x");
  const Matrix before = layer.forward(x);
  TransformerEncoderLayerWeights bad = f.encoder_weights();
  bad.norm2_weight = Vector::Ones(63);  // the last piece loaded
  EXPECT_THROW(layer.load(bad), Error);
  EXPECT_EQ(layer.forward(x), before);
  bad = f.encoder_weights();
  bad.linear2.weight = Matrix::Zero(64, 255);
  EXPECT_THROW(layer.load(bad), Error);
  EXPECT_EQ(layer.forward(x), before);
}

TEST(TransformerEncoderLayer, TrainingAppliesDropoutWherePyTorchDoes) {
  // nn.TransformerEncoderLayer drops the attention weights (inside self_attn), the attention output
  // (dropout1), the FFN's hidden features and the FFN output (dropout2).
  TransformerEncoderLayer layer({.d_model = 16, .num_heads = 2, .d_ff = 32, .dropout = 0.3f, .seed = 4});
  layer.train();
  Trace trace;
  layer.forward(randn(5, 16, 1), {}, Tracer(trace));
  EXPECT_TRUE(trace.contains("attn.head0.dropout"));
  EXPECT_TRUE(trace.contains("ffn.dropout"));
  EXPECT_GT((trace.tensor("residual1", "attention").array() == 0.0f).count(), 0);
  EXPECT_GT((trace.tensor("residual2", "ffn").array() == 0.0f).count(), 0);
}

}  // namespace
}  // namespace attnlab
