#include <gtest/gtest.h>

#include "attnlab/layers/encoder_layer.hpp"
#include "attnlab/tensor/error.hpp"
#include "attnlab/layers/multi_head_attention.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

std::vector<std::string> ids_of(const Trace& trace) {
  std::vector<std::string> ids;
  for (const TraceStep& s : trace.steps()) ids.push_back(s.id);
  return ids;
}

TEST(Trace, MultiHeadAttentionRecordsEveryIntermediateInOrder) {
  MultiHeadAttention mha({.d_model = 8, .num_heads = 2, .seed = 1});
  Trace trace;
  const Matrix x = randn(3, 8, 2);
  const MultiHeadAttentionOutput out = mha.forward(x, {.causal = true}, Tracer(trace));
  const std::vector<std::string> head0{"head0.split", "head0.scores", "head0.scaled_scores",
                                       "head0.masked_scores", "head0.softmax_exp", "head0.weights",
                                       "head0.output"};
  std::vector<std::string> expected{"input", "projection_weights", "q", "k", "v"};
  for (const char* head : {"head0", "head1"})
    for (const std::string& step : head0) expected.push_back(head + step.substr(5));
  expected.push_back("concat");
  expected.push_back("output");
  EXPECT_EQ(ids_of(trace), expected);
  for (const TraceStep& s : trace.steps()) {
    EXPECT_FALSE(s.title.empty()) << s.id;
    EXPECT_FALSE(s.explanation.empty()) << s.id;
    EXPECT_FALSE(s.tensors.empty()) << s.id;
  }
}

TEST(Trace, TensorsAreWhatWasComputed) {
  MultiHeadAttention mha({.d_model = 8, .num_heads = 2, .seed = 1});
  Trace trace;
  const Matrix x = randn(4, 8, 2);
  const MultiHeadAttentionOutput out = mha.forward(x, {}, Tracer(trace));
  EXPECT_EQ(trace.tensor("input", "X"), x);
  EXPECT_EQ(trace.tensor("projection_weights", "W_q"), mha.q_proj().weight());
  EXPECT_EQ(trace.tensor("head1.weights", "weights"), out.head_weights[1]);
  EXPECT_EQ(trace.tensor("output", "output"), out.output);
  // Head 1 takes columns 4..7 of Q; its raw scores are Q_h·K_hᵀ, computed here in double.
  const Matrix q = trace.tensor("q", "Q"), k = trace.tensor("k", "K");
  EXPECT_EQ(trace.tensor("head1.split", "Q_h"), q.rightCols(4));
  const Matrix expected_scores = (q.rightCols(4).cast<double>() * k.rightCols(4).cast<double>().transpose()).cast<float>();
  EXPECT_TRUE(testing::MatricesNear(trace.tensor("head1.scores", "scores"), expected_scores));
  EXPECT_EQ(trace.tensor("head1.scores", "scores").rows(), 4);
  EXPECT_NE(trace.step("head1.scaled_scores").explanation.find("√4"), std::string::npos);
}

TEST(Trace, EncoderLayerOrderFollowsTheNormPlacement) {
  const auto top_level = [](bool norm_first) {
    TransformerEncoderLayer layer({.d_model = 8, .num_heads = 2, .d_ff = 16, .norm_first = norm_first});
    Trace trace;
    layer.forward(randn(3, 8, 1), {}, Tracer(trace));
    std::vector<std::string> ids;
    for (const std::string& id : ids_of(trace))
      if (id.rfind("attn.", 0) != 0 && id.rfind("ffn.", 0) != 0) ids.push_back(id);
      else if (ids.empty() || ids.back() != id.substr(0, id.find('.'))) ids.push_back(id.substr(0, id.find('.')));
    return ids;
  };
  EXPECT_EQ(top_level(false),
            (std::vector<std::string>{"input", "attn", "residual1", "norm1", "ffn", "residual2", "norm2", "output"}));
  EXPECT_EQ(top_level(true),
            (std::vector<std::string>{"input", "norm1", "attn", "residual1", "norm2", "ffn", "residual2", "output"}));
}

TEST(Trace, EncoderRecordsFeedForwardInternals) {
  TransformerEncoderLayer layer({.d_model = 8, .num_heads = 2, .d_ff = 16});
  Trace trace;
  layer.forward(randn(3, 8, 1), {}, Tracer(trace));
  EXPECT_EQ(trace.tensor("ffn.linear1", "hidden").cols(), 16);
  EXPECT_TRUE(trace.contains("ffn.activation"));
  EXPECT_TRUE(trace.contains("attn.head1.weights"));
  EXPECT_THROW(trace.step("ffn.nope"), Error);
  EXPECT_THROW(trace.tensor("ffn.linear1", "nope"), Error);
}

TEST(Trace, SoftmaxStepShowsExpAndRowSums) {
  MultiHeadAttention mha({.d_model = 4, .num_heads = 1, .seed = 1});
  Trace trace;
  const MultiHeadAttentionOutput out = mha.forward(randn(3, 4, 2), {.causal = true}, Tracer(trace));
  const Matrix exp = trace.tensor("head0.softmax_exp", "exp"), sums = trace.tensor("head0.softmax_exp", "row_sum");
  // Dividing each exp row by its sum gives the weights; blocked keys have exp exactly 0.
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(exp(r, c) / sums(r, 0), out.head_weights[0](r, c), 1e-6f);
  EXPECT_EQ(exp(0, 1), 0.0f);
  EXPECT_EQ(trace.tensor("head0.softmax_exp", "row_max")(0, 0), trace.tensor("head0.scaled_scores", "scaled_scores")(0, 0));
}

TEST(Trace, DisabledTracerRecordsNothing) {
  MultiHeadAttention mha({.d_model = 8, .num_heads = 2});
  Trace trace;
  mha.forward(randn(3, 8, 2));
  EXPECT_TRUE(trace.steps().empty());
}

}  // namespace
}  // namespace attnlab
