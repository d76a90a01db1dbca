// TransformerEncoderLayer::backward (and through it MultiHeadAttention's, the FFN's and the norms')
// against PyTorch autograd: ∂L/∂x and every parameter's gradient for L = Σ output ⊙ d_output
// (tests/fixtures/make_encoder_grad_fixtures.py, float64 autograd at float32 inputs).
#include <gtest/gtest.h>

#include <map>

#include "attnlab/attnlab.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::MatricesNear;

// Every gradient the layer holds, by PyTorch-style name ("self_attn.q_proj.weight"), as [rows×cols].
std::map<std::string, Matrix> gradients(TransformerEncoderLayer& layer) {
  std::map<std::string, Matrix> out;
  for (const ParameterRef& ref : layer.parameters()) {
    const Eigen::Index rows = ref.shape.size() == 2 ? ref.shape[0] : 1;
    out[ref.name] = Eigen::Map<const Matrix>(ref.grad, rows, ref.size / rows);
  }
  return out;
}

void expect_gradients_match_pytorch(const std::string& name) {
  SCOPED_TRACE(name);
  const testing::Fixture f(name);
  const int d = static_cast<int>(f.number("d_model"));
  TransformerEncoderLayer layer({.d_model = d, .num_heads = static_cast<int>(f.number("num_heads")),
                                 .d_ff = static_cast<int>(f.number("d_ff")), .dropout = 0.0f,
                                 .activation = Activation::gelu, .norm_first = f.flag("norm_first"),
                                 .norm_eps = static_cast<float>(f.number("layer_norm_eps"))});
  layer.load(f.encoder_weights());
  layer.train();
  const bool causal = f.has("mask");
  TransformerEncoderLayerCache cache;
  const Matrix out = layer.forward(f.matrix("x"), {.causal = causal}, {}, &cache);
  ASSERT_TRUE(MatricesNear(out, f.matrix("output"), 2e-5f, 2e-5f));
  layer.zero_grad();
  const Matrix d_x = layer.backward(cache, f.matrix("d_output"));
  EXPECT_TRUE(MatricesNear(d_x, f.matrix("d_x"), 1e-5f, 1e-4f)) << "d_x";

  std::map<std::string, Matrix> g = gradients(layer);
  const Matrix in_proj = f.matrix("self_attn_in_proj_weight_grad");
  const Matrix in_bias = f.vector("self_attn_in_proj_bias_grad").transpose();
  const char* parts[] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) {
    const std::string proj = std::string("self_attn.") + parts[i] + "_proj";
    EXPECT_TRUE(MatricesNear(g[proj + ".weight"], in_proj.middleRows(i * d, d), 1e-5f, 1e-4f)) << proj;
    EXPECT_TRUE(MatricesNear(g[proj + ".bias"], in_bias.middleCols(i * d, d), 1e-5f, 1e-4f)) << proj << " bias";
  }
  const std::pair<const char*, const char*> named[] = {
      {"self_attn.out_proj.weight", "self_attn_out_proj_weight_grad"}, {"self_attn.out_proj.bias", "self_attn_out_proj_bias_grad"},
      {"linear1.weight", "linear1_weight_grad"}, {"linear1.bias", "linear1_bias_grad"},
      {"linear2.weight", "linear2_weight_grad"}, {"linear2.bias", "linear2_bias_grad"},
      {"norm1.weight", "norm1_weight_grad"}, {"norm1.bias", "norm1_bias_grad"},
      {"norm2.weight", "norm2_weight_grad"}, {"norm2.bias", "norm2_bias_grad"}};
  for (const auto& [ours, theirs] : named) {
    // Biases and norm weights are 1-D in PyTorch: a row here.
    const bool one_d = std::string(ours).ends_with(".bias") || std::string(ours).starts_with("norm");
    const Matrix expected = one_d ? Matrix(f.vector(theirs).transpose()) : f.matrix(theirs);
    EXPECT_TRUE(MatricesNear(g[ours], expected, 1e-5f, 1e-4f)) << ours;
  }
  EXPECT_EQ(g.size(), 16u);
}

TEST(EncoderBackward, PostNormMatchesPyTorchAutograd) { expect_gradients_match_pytorch("grad_encoder_post"); }
TEST(EncoderBackward, CausalPreNormMatchesPyTorchAutograd) { expect_gradients_match_pytorch("grad_encoder_pre_causal"); }

TEST(EncoderBackward, ParameterViewsStayValidAcrossALoad) {
  // An optimizer built before a load must step the loaded weights (a moved-in layer would have left
  // its views pointing at freed buffers).
  const testing::Fixture f("grad_encoder_post");
  TransformerEncoderLayer layer({.d_model = 16, .num_heads = 2, .d_ff = 32, .dropout = 0.0f, .activation = Activation::gelu});
  const std::vector<ParameterRef> refs = layer.parameters();
  layer.load(f.encoder_weights());
  EXPECT_EQ(refs.front().name, "self_attn.q_proj.weight");
  EXPECT_EQ(refs.front().value, layer.self_attn().q_proj().weight().data());
  EXPECT_EQ(refs.front().value[0], f.matrix("self_attn_in_proj_weight")(0, 0));
}

TEST(EncoderBackward, DropoutIsReplayedInBackward) {
  // With dropout, a second backward of the same cache gives the same gradients (the patterns are kept,
  // not drawn again), and ∂L/∂x is 0 only where the structure says so.
  TransformerEncoderLayer layer({.d_model = 8, .num_heads = 2, .d_ff = 16, .dropout = 0.5f, .seed = 4});
  layer.train();
  TransformerEncoderLayerCache cache;
  const Matrix x = randn(5, 8, 1);
  layer.forward(x, {}, {}, &cache);
  EXPECT_GT(cache.attention_dropout.size(), 0);
  const Matrix g = randn(5, 8, 2);
  const Matrix first = layer.backward(cache, g), second = layer.backward(cache, g);
  EXPECT_TRUE(first.isApprox(second));
  EXPECT_TRUE(first.allFinite());
}

}  // namespace
}  // namespace attnlab
