#include <gtest/gtest.h>

#include "attnlab/layers/attention_layer.hpp"
#include "attnlab/attention/mask.hpp"
#include "attnlab/layers/multi_head_attention.hpp"
#include "attnlab/attention/positional.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::MatricesNear;

MultiHeadAttention attention_from_fixture(const testing::Fixture& f) {
  MultiHeadAttention mha({.d_model = static_cast<int>(f.number("d_model")),
                          .num_heads = static_cast<int>(f.number("num_heads")),
                          .bias = f.flag("bias")});
  mha.load(f.attention_weights());
  return mha;
}

// nn.MultiheadAttention with weights exported from PyTorch: output, per-head and averaged weights.
void expect_attention_matches_pytorch(const std::string& name, bool causal = false) {
  SCOPED_TRACE(name);
  const testing::Fixture f(name);
  MultiHeadAttention mha = attention_from_fixture(f);
  const Matrix mask = f.has("mask") ? f.matrix("mask") : Matrix();
  const MaskOptions masking{.mask = causal || !f.has("mask") ? nullptr : &mask, .causal = causal};
  const MultiHeadAttentionOutput r = mha.forward(f.matrix("query"), f.matrix("key"), f.matrix("value"), masking);
  EXPECT_TRUE(MatricesNear(r.output, f.matrix("output")));
  const std::vector<Matrix> heads = f.stack("weights");
  ASSERT_EQ(r.head_weights.size(), heads.size());
  for (std::size_t h = 0; h < heads.size(); ++h) EXPECT_TRUE(MatricesNear(r.head_weights[h], heads[h])) << "head " << h;
  EXPECT_TRUE(MatricesNear(r.average_weights, f.matrix("weights_avg")));
  EXPECT_EQ(mha.parameter_count(), static_cast<std::int64_t>(f.number("parameter_count")));
}

TEST(MultiHeadAttention, SelfAttentionMatchesPyTorch) { expect_attention_matches_pytorch("mha_self"); }
TEST(MultiHeadAttention, WithoutBiasMatchesPyTorch) { expect_attention_matches_pytorch("mha_self_nobias"); }
TEST(MultiHeadAttention, CausalFlagMatchesPyTorch) { expect_attention_matches_pytorch("mha_causal", true); }
TEST(MultiHeadAttention, ExplicitCausalMaskMatchesPyTorch) { expect_attention_matches_pytorch("mha_causal"); }
TEST(MultiHeadAttention, CrossAttentionMatchesPyTorch) { expect_attention_matches_pytorch("mha_cross"); }
TEST(MultiHeadAttention, KeyPaddingMatchesPyTorch) { expect_attention_matches_pytorch("mha_padding"); }

TEST(MultiHeadAttention, WithoutWeightsRunsTheOnlineSoftmaxAndMatchesPyTorch) {
  for (const char* name : {"mha_self", "mha_causal", "mha_cross"}) {
    SCOPED_TRACE(name);
    const testing::Fixture f(name);
    MultiHeadAttention mha = attention_from_fixture(f);
    const bool causal = std::string(name) == "mha_causal";
    const MultiHeadAttentionOutput r =
        mha.forward(f.matrix("query"), f.matrix("key"), f.matrix("value"), {.causal = causal, .need_weights = false});
    EXPECT_TRUE(MatricesNear(r.output, f.matrix("output")));
    EXPECT_TRUE(r.head_weights.empty());
    EXPECT_EQ(r.average_weights.size(), 0);
  }
}

TEST(MultiHeadAttention, SelfOverloadEqualsPassingXThreeTimes) {
  const testing::Fixture f("mha_self");
  MultiHeadAttention mha = attention_from_fixture(f);
  const Matrix x = f.matrix("query");
  EXPECT_TRUE(MatricesNear(mha.forward(x).output, f.matrix("output")));
}

TEST(MultiHeadAttention, TutorialParameterCounts) {
  // MHA(d_model 32, 4 heads, no bias): 4 projections of 32×32 = 4,096 parameters.
  EXPECT_EQ(MultiHeadAttention({.d_model = 32, .num_heads = 4, .bias = false}).parameter_count(), 4096);
  // With biases: 4·32² + 4·32 = 4,224.
  EXPECT_EQ(MultiHeadAttention({.d_model = 32, .num_heads = 4}).parameter_count(), 4224);
  // "8 heads of 128 dims → 16 each".
  EXPECT_EQ(MultiHeadAttention({.d_model = 128, .num_heads = 8}).d_k(), 16);
}

TEST(MultiHeadAttention, FusedWeightsRoundTripAndSeparateLoadingAgrees) {
  const testing::Fixture f("mha_self");
  MultiHeadAttention fused = attention_from_fixture(f);
  const MultiHeadAttentionWeights w = fused.weights();
  EXPECT_EQ(w.in_proj_weight, f.matrix("in_proj_weight"));
  EXPECT_EQ(w.in_proj_bias, f.vector("in_proj_bias"));
  MultiHeadAttention separate({.d_model = 16, .num_heads = 4, .seed = 99});
  separate.load_separate({w.in_proj_weight.topRows(16), w.in_proj_bias.head(16)},
                         {w.in_proj_weight.middleRows(16, 16), w.in_proj_bias.segment(16, 16)},
                         {w.in_proj_weight.bottomRows(16), w.in_proj_bias.tail(16)},
                         {w.out_proj_weight, w.out_proj_bias});
  EXPECT_TRUE(MatricesNear(separate.forward(f.matrix("query")).output, f.matrix("output")));
}

TEST(MultiHeadAttention, SplitAndCombineHeadsFollowTheTutorialsReshape) {
  Matrix x(2, 6);
  x << 0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15;
  const std::vector<Matrix> heads = split_heads(x, 3);
  ASSERT_EQ(heads.size(), 3u);
  Matrix head1(2, 2);
  head1 << 2, 3, 12, 13;  // view(batch, seq, heads, d_k)[:, :, 1]
  EXPECT_EQ(heads[1], head1);
  EXPECT_EQ(combine_heads(heads), x);
}

TEST(MultiHeadAttention, WithoutPositionsAttentionIsPermutationEquivariant) {
  MultiHeadAttention mha({.d_model = 8, .num_heads = 2, .seed = 3});
  const Matrix x = randn(5, 8, 4);
  const std::vector<int> order{3, 0, 4, 1, 2};  // "the cat sat" → "sat cat the"
  Matrix shuffled(5, 8);
  for (int i = 0; i < 5; ++i) shuffled.row(i) = x.row(order[i]);
  const MultiHeadAttentionOutput a = mha.forward(x), b = mha.forward(shuffled);
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(MatricesNear(b.output.row(i), a.output.row(order[i])));
    for (int j = 0; j < 5; ++j) EXPECT_NEAR(b.average_weights(i, j), a.average_weights(order[i], order[j]), 1e-6f);
  }
}

TEST(MultiHeadAttention, SameSeedSameWeightsDifferentSeedDifferent) {
  const MultiHeadAttention a({.d_model = 8, .num_heads = 2, .seed = 1}), b({.d_model = 8, .num_heads = 2, .seed = 1}),
      c({.d_model = 8, .num_heads = 2, .seed = 2});
  EXPECT_EQ(a.weights().in_proj_weight, b.weights().in_proj_weight);
  EXPECT_NE(a.weights().in_proj_weight, c.weights().in_proj_weight);
  // nn.Linear-style initialisation: every weight within ±1/√d_model.
  EXPECT_LE(a.weights().in_proj_weight.cwiseAbs().maxCoeff(), 1.0f / std::sqrt(8.0f));
}

TEST(MultiHeadAttention, DropoutOnlyInTrainingAndSeeded) {
  const Matrix x = randn(6, 8, 1);
  MultiHeadAttention eval({.d_model = 8, .num_heads = 2, .dropout = 0.5f, .seed = 7});
  MultiHeadAttention plain({.d_model = 8, .num_heads = 2, .seed = 7});
  EXPECT_EQ(eval.forward(x).output, plain.forward(x).output);  // eval mode: dropout is off
  MultiHeadAttention train_a({.d_model = 8, .num_heads = 2, .dropout = 0.5f, .seed = 7});
  MultiHeadAttention train_b({.d_model = 8, .num_heads = 2, .dropout = 0.5f, .seed = 7});
  train_a.train();
  train_b.train();
  const MultiHeadAttentionOutput a = train_a.forward(x), b = train_b.forward(x);
  EXPECT_EQ(a.output, b.output);
  EXPECT_NE(a.output, plain.forward(x).output);
  EXPECT_GT((a.head_weights[0].array() == 0.0f).count(), 0);
}

TEST(MultiHeadAttention, DropoutPatternComesFromItsOwnSeededStream) {
  // The independent Python RNG says which weights stream 55 of seed 7 zeroes at p = 0.5.
  const testing::Fixture f("rng");
  const auto& zeroed = f.json().at("mha_dropout").at("zeroed");
  const Matrix x = randn(6, 8, 1);
  MultiHeadAttention eval({.d_model = 8, .num_heads = 2, .dropout = 0.5f, .seed = 7});
  const MultiHeadAttentionOutput plain = eval.forward(x);
  eval.train();
  const MultiHeadAttentionOutput dropped = eval.forward(x);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 36; ++i) {
      const float w = dropped.head_weights[h].data()[i];
      if (zeroed[h * 36 + i].get<bool>())
        EXPECT_EQ(w, 0.0f) << h << "," << i;
      else
        EXPECT_FLOAT_EQ(w, 2.0f * plain.head_weights[h].data()[i]) << h << "," << i;
    }
}

TEST(MultiHeadAttention, CausalAndPaddingTogetherBlockBoth) {
  MultiHeadAttention mha({.d_model = 8, .num_heads = 2, .seed = 2});
  const Matrix padding = key_padding_mask(5, 5, 3);
  const MultiHeadAttentionOutput r = mha.forward(randn(5, 8, 3), {.mask = &padding, .causal = true});
  for (const Matrix& w : r.head_weights) {
    EXPECT_FLOAT_EQ(w(0, 0), 1.0f);  // query 0 sees only key 0
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j)
        if (j > i || j >= 3) {
          EXPECT_EQ(w(i, j), 0.0f) << i << "," << j;
        }
  }
}

TEST(MultiHeadAttention, RotaryQueriesSitAtTheEndOfTheKeys) {
  // Two new queries against six keys (decoding with a cache) attend exactly as the last two rows
  // of causal self-attention over all six: the queries are at positions 4 and 5.
  MultiHeadAttention rope({.d_model = 8, .num_heads = 2, .positions = PositionalScheme::rotary, .seed = 6});
  const Matrix x = randn(6, 8, 7);
  const MultiHeadAttentionOutput full = rope.forward(x, {.causal = true});
  const Matrix last_two = x.bottomRows(2);
  const MultiHeadAttentionOutput cached = rope.forward(last_two, x, x, {.causal = true});
  EXPECT_TRUE(MatricesNear(cached.output, full.output.bottomRows(2)));
  EXPECT_TRUE(MatricesNear(cached.head_weights[1], full.head_weights[1].bottomRows(2)));
}

TEST(MultiHeadAttention, AlibiAddsEachHeadsDistancePenalty) {
  MultiHeadAttention alibi({.d_model = 8, .num_heads = 2, .positions = PositionalScheme::alibi, .seed = 5});
  Trace trace;
  alibi.forward(randn(4, 8, 2), {.causal = true}, Tracer(trace));
  const std::vector<float> slopes = alibi_slopes(2);  // 2^-4, 2^-8
  EXPECT_FLOAT_EQ(slopes[0], 0.0625f);
  EXPECT_FLOAT_EQ(slopes[1], 0.00390625f);
  EXPECT_FLOAT_EQ(trace.tensor("head0.bias", "bias")(3, 0), -3 * 0.0625f);
  EXPECT_FLOAT_EQ(trace.tensor("head1.bias", "bias")(3, 1), -2 * 0.00390625f);
  const Matrix raw = trace.tensor("head0.scores", "scores");
  const Matrix scaled = trace.tensor("head0.bias", "scaled_scores");
  EXPECT_NEAR(scaled(2, 0), raw(2, 0) / 2.0f - 2 * 0.0625f, 1e-5f);
}

TEST(MultiHeadAttention, TraceFormulasNameABiasOnlyWhenTheLayerHasOne) {
  for (const bool bias : {false, true}) {
    MultiHeadAttention mha({.d_model = 8, .num_heads = 2, .bias = bias, .seed = 5});
    Trace trace;
    mha.forward(randn(3, 8, 2), {}, Tracer(trace));
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"projection_weights", "Q = X·W_qᵀ + b_q"}, {"q", "Q = X·W_qᵀ + b_q:"}, {"k", "K = X·W_kᵀ + b_k:"},
        {"v", "V = X·W_vᵀ + b_v:"}, {"output", "output = concat·W_oᵀ + b_o "}};
    for (const auto& [id, with_bias] : expected) {
      const std::string& explanation = trace.step(id).explanation;
      EXPECT_EQ(explanation.find(with_bias) != std::string::npos, bias) << id << ": " << explanation;
      EXPECT_EQ(explanation.find("b_") != std::string::npos, bias) << id << ": " << explanation;
    }
  }
}

TEST(MultiHeadAttention, RotaryScoresDependOnlyOnRelativePosition) {
  // With RoPE and identical tokens everywhere, the score depends only on j − i.
  MultiHeadAttention rope({.d_model = 8, .num_heads = 2, .positions = PositionalScheme::rotary, .seed = 5});
  Matrix x(6, 8);
  for (int i = 0; i < 6; ++i) x.row(i) = randn(1, 8, 1);
  Trace trace;
  rope.forward(x, {}, Tracer(trace));
  const Matrix scores = trace.tensor("head1.scores", "scores");
  EXPECT_NEAR(scores(1, 3), scores(2, 4), 1e-4f);
  EXPECT_NEAR(scores(4, 0), scores(5, 1), 1e-4f);
  EXPECT_GT(std::abs(scores(0, 0) - scores(0, 3)), 1e-3f);
}

TEST(AttentionLayer, IsOneHeadAttentionAndMatchesTheFormulaInDouble) {
  AttentionLayer layer(16, true, 11);
  const Matrix x = randn(5, 16, 12);
  const AttentionLayerOutput r = layer.forward(x);
  const MultiHeadAttention& attn = layer.attention();
  const auto project = [&](const Linear& l) {
    return testing::MatrixD((x.cast<double>() * l.weight().cast<double>().transpose()).rowwise() +
                            l.bias().cast<double>().transpose());
  };
  const auto [weights, heads] = testing::reference_attention(project(attn.q_proj()), project(attn.k_proj()),
                                                             project(attn.v_proj()), 1.0 / 4.0);
  const testing::MatrixD output = (heads * attn.out_proj().weight().cast<double>().transpose()).rowwise() +
                                  attn.out_proj().bias().cast<double>().transpose();
  EXPECT_TRUE(MatricesNear(r.weights, weights.cast<float>()));
  EXPECT_TRUE(MatricesNear(r.output, output.cast<float>()));
  EXPECT_EQ(layer.parameter_count(), 4 * 16 * 16 + 4 * 16);
}

}  // namespace
}  // namespace attnlab
