// The GPT against an independent GPT-2 written in plain PyTorch (tests/fixtures/make_gpt_fixtures.py):
// the same .safetensors files (F32, F16, BF16) give the same logits and attention maps, with and
// without knocked-out heads; and the model's own invariants (causality, names, errors).
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

#include "attnlab/gpt/gpt.hpp"
#include "attnlab/gpt/gpt_training.hpp"
#include "attnlab/gpt/head_scores.hpp"
#include "attnlab/tensor/trace.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"
#include "gpt_fixture.hpp"

namespace attnlab {
namespace {

using testing::MatricesNear;
using testing::nested_grid;
using testing::nested_matrix;

// Every forward fixture: tests/fixtures/gpt/<name>.json beside <name>.safetensors.
std::vector<std::string> forward_fixtures() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(testing::gpt_fixture_path("")))
    if (entry.path().extension() == ".json" &&
        std::filesystem::exists(testing::gpt_fixture_path(entry.path().stem().string() + ".safetensors")) &&
        entry.path().stem() != "train")
      names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// logits and every head's weights of `model` on the fixture's ids, against `suffix` ("", "_f16", "_bf16").
void expect_forward_matches(const GPT& model, const nlohmann::json& fixture, const std::string& suffix,
                            const std::string& what) {
  const std::vector<int> ids = fixture.at("ids").get<std::vector<int>>();
  const GPTOutput out = model.forward(ids, {.attention = true});
  EXPECT_TRUE(MatricesNear(out.logits, nested_matrix(fixture.at("logits" + suffix)), 1e-4f, 1e-4f)) << what;
  const auto attention = nested_grid(fixture.at("attention" + suffix));
  ASSERT_EQ(out.attention.size(), attention.size()) << what;
  for (std::size_t l = 0; l < attention.size(); ++l)
    for (std::size_t h = 0; h < attention[l].size(); ++h)
      EXPECT_TRUE(MatricesNear(out.attention[l][h], attention[l][h], 1e-5f, 1e-4f)) << what << " layer " << l << " head " << h;
}

// The trace names every step, and its numbers are the forward's: each head's weights are the softmax
// of its recorded scores and its output is weights·v, both formed again here in double precision.
TEST(GPT, TraceRecordsEveryHeadsScoresWeightsAndOutput) {
  const nlohmann::json fixture = testing::read_gpt_fixture_json("small.json");
  const GPT model = GPT::from_safetensors(testing::read_gpt_fixture_bytes("small.safetensors"));
  const std::vector<int> ids = fixture.at("ids").get<std::vector<int>>();
  Trace trace;
  const GPTOutput out = model.forward(ids, {.attention = true}, Tracer(trace));
  const auto attention = nested_grid(fixture.at("attention"));
  for (int l = 0; l < model.config().num_layers; ++l)
    for (int h = 0; h < model.config().num_heads; ++h) {
      const std::string head = "h" + std::to_string(l) + ".attn.head" + std::to_string(h);
      const Matrix& scores = trace.tensor(head + ".scores", "scores");
      const Matrix& weights = trace.tensor(head + ".weights", "weights");
      EXPECT_TRUE(MatricesNear(weights, attention[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)], 1e-5f, 1e-4f));
      const Eigen::MatrixXd v = trace.tensor(head + ".output", "v").cast<double>();
      Eigen::MatrixXd softmax(scores.rows(), scores.cols());
      for (Eigen::Index i = 0; i < scores.rows(); ++i) {
        for (Eigen::Index j = i + 1; j < scores.cols(); ++j) {
          EXPECT_EQ(scores(i, j), -std::numeric_limits<float>::infinity());
        }
        const Eigen::ArrayXd row = scores.row(i).head(i + 1).cast<double>().transpose().array();
        const Eigen::ArrayXd e = (row - row.maxCoeff()).exp();
        softmax.row(i).setZero();
        softmax.row(i).head(i + 1) = (e / e.sum()).matrix().transpose();
      }
      EXPECT_TRUE(MatricesNear(weights, softmax.cast<float>(), 1e-6f, 1e-4f)) << head;
      EXPECT_TRUE(MatricesNear(trace.tensor(head + ".output", "output"), (softmax * v).cast<float>(), 1e-5f, 1e-4f)) << head;
    }
  EXPECT_TRUE(trace.contains("embed"));
  EXPECT_TRUE(trace.contains("h0.mlp.gelu"));
  EXPECT_EQ(trace.tensor("logits", "logits"), out.logits);
}

TEST(GPT, MatchesPyTorchOnEveryFixture) {
  const std::vector<std::string> names = forward_fixtures();
  ASSERT_GE(names.size(), 3u);
  for (const std::string& name : names) {
    const nlohmann::json fixture = testing::read_gpt_fixture_json(name + ".json");
    const auto& c = fixture.at("config");
    const GPT model = GPT::from_safetensors(testing::read_gpt_fixture_bytes(name + ".safetensors"));
    EXPECT_EQ(model.config().vocab_size, c.at("vocab_size").get<int>());
    EXPECT_EQ(model.config().context_length, c.at("context_length").get<int>());
    EXPECT_EQ(model.config().d_model, c.at("d_model").get<int>());
    EXPECT_EQ(model.config().num_heads, c.at("num_heads").get<int>());
    EXPECT_EQ(model.config().num_layers, c.at("num_layers").get<int>());
    expect_forward_matches(model, fixture, "", name + " F32");
    expect_forward_matches(GPT::from_safetensors(testing::read_gpt_fixture_bytes(name + "-f16.safetensors")), fixture,
                           "_f16", name + " F16");
    expect_forward_matches(GPT::from_safetensors(testing::read_gpt_fixture_bytes(name + "-bf16.safetensors")), fixture,
                           "_bf16", name + " BF16");
    // knocked-out heads: zeroed, or replaced by their mean over the positions
    const auto& ablation = fixture.at("ablation");
    std::vector<HeadAblation> heads;
    for (const auto& pair : ablation.at("heads")) heads.push_back({pair.at(0).get<int>(), pair.at(1).get<int>()});
    const std::vector<int> ids = fixture.at("ids").get<std::vector<int>>();
    EXPECT_TRUE(MatricesNear(model.forward(ids, {.ablate = heads}).logits, nested_matrix(ablation.at("zero_logits")),
                             1e-4f, 1e-4f)) << name << " zero ablation";
    EXPECT_TRUE(MatricesNear(model.forward(ids, {.ablate = heads, .ablation = AblationMode::mean}).logits,
                             nested_matrix(ablation.at("mean_logits")), 1e-4f, 1e-4f)) << name << " mean ablation";
  }
}

// logits: LogitRows::last is PyTorch's last row, and the full forward's last row to float rounding
// (the register-blocked kernels give it to the bit; Eigen's product, behind the scalar wasm build, takes
// another path for a single row); LogitRows::none computes none and the same attention. Per-token
// losses take every row whatever they are asked.
TEST(GPT, ComputesOnlyTheLogitRowsAsked) {
  for (const std::string& name : forward_fixtures()) {
    const nlohmann::json fixture = testing::read_gpt_fixture_json(name + ".json");
    const GPT model = GPT::from_safetensors(testing::read_gpt_fixture_bytes(name + ".safetensors"));
    const std::vector<int> ids = fixture.at("ids").get<std::vector<int>>();
    const Eigen::Index vocab = model.config().vocab_size;
    const GPTOutput all = model.forward(ids, {.attention = true});
    const GPTOutput last = model.forward(ids, {.attention = true, .logits = LogitRows::last});
    ASSERT_EQ(last.logits.rows(), 1) << name;
    ASSERT_EQ(last.logits.cols(), vocab) << name;
    EXPECT_TRUE(MatricesNear(last.logits, nested_matrix(fixture.at("logits")).bottomRows(1), 1e-4f, 1e-4f)) << name;
    EXPECT_TRUE(MatricesNear(last.logits, all.logits.bottomRows(1), 1e-6f, 1e-6f)) << name;
    const GPTOutput none = model.forward(ids, {.attention = true, .logits = LogitRows::none});
    EXPECT_EQ(none.logits.rows(), 0) << name;
    EXPECT_EQ(none.logits.cols(), vocab) << name;
    ASSERT_EQ(none.attention.size(), all.attention.size()) << name;
    for (std::size_t l = 0; l < all.attention.size(); ++l)
      for (std::size_t h = 0; h < all.attention[l].size(); ++h) EXPECT_EQ(none.attention[l][h], all.attention[l][h]) << name;
    EXPECT_EQ(token_losses(model, ids, {.logits = LogitRows::none}), token_losses(model, ids)) << name;
  }
}

TEST(GPT, IsCausalAndNamesItsTensorsAsHuggingFace) {
  const GPT model({.vocab_size = 11, .context_length = 8, .d_model = 12, .num_heads = 3, .num_layers = 2}, 9);
  // changing token 5 changes no logit before position 5
  const Matrix a = model.forward(std::vector<int>{1, 2, 3, 4, 5, 6, 7}).logits;
  const Matrix b = model.forward(std::vector<int>{1, 2, 3, 4, 5, 0, 7}).logits;
  EXPECT_EQ(a.topRows(5), b.topRows(5));
  EXPECT_NE(a.row(5), b.row(5));
  // attention rows sum to 1 with the upper triangle exactly 0
  const GPTOutput out = model.forward(std::vector<int>{1, 2, 3, 4}, {.attention = true});
  for (const auto& layer : out.attention)
    for (const Matrix& w : layer)
      for (Eigen::Index i = 0; i < 4; ++i) {
        EXPECT_NEAR(w.row(i).sum(), 1.0f, 1e-6f);
        for (Eigen::Index j = i + 1; j < 4; ++j) EXPECT_EQ(w(i, j), 0.0f);
      }
  std::vector<std::string> names;
  for (const GPTTensorSlot& slot : model.tensors()) names.push_back(slot.name);
  ASSERT_EQ(names.size(), 2u + 2 * 12 + 2);
  EXPECT_EQ(names[0], "wte.weight");
  EXPECT_EQ(names[4], "h.0.attn.c_attn.weight");
  EXPECT_EQ(model.tensor("h.1.mlp.c_proj.weight").shape, (std::vector<std::int64_t>{48, 12}));
  EXPECT_EQ(names.back(), "ln_f.bias");
}

TEST(GPT, InitialisesAsGPT2) {
  // normal(0, 0.02) matrices, c_proj at 0.02/√(2L), zero biases, unit LayerNorm weights
  const GPT model({.vocab_size = 300, .context_length = 64, .d_model = 64, .num_heads = 4, .num_layers = 2}, 1);
  auto stddev = [&](std::string_view name) {
    const GPTTensorSlot& s = model.tensor(name);
    double sum = 0, squares = 0;
    for (std::size_t i = 0; i < s.size; ++i) {
      sum += model.values()[s.offset + i];
      squares += double(model.values()[s.offset + i]) * model.values()[s.offset + i];
    }
    return std::sqrt(squares / s.size - (sum / s.size) * (sum / s.size));
  };
  EXPECT_NEAR(stddev("wte.weight"), 0.02, 0.001);
  EXPECT_NEAR(stddev("h.0.mlp.c_fc.weight"), 0.02, 0.001);
  EXPECT_NEAR(stddev("h.1.attn.c_proj.weight"), 0.01, 0.001);  // 0.02/√4
  EXPECT_EQ(model.values()[model.tensor("h.0.ln_2.weight").offset], 1.0f);
  EXPECT_EQ(model.values()[model.tensor("h.0.attn.c_attn.bias").offset], 0.0f);
}

// Inference packs the weights once (GPT::kPackedWeightsLimit); every way of changing them must redo
// it. The reference each time: the same values in a fresh model (from its own file), never packed
// before, and the unpacked path of a model too large to pack is covered by the PyTorch fixtures' big
// cases and gpt_checkpoint_test's GPT-2-sized file.
TEST(GPT, PackedWeightsFollowEveryChange) {
  const GPTConfig config{.vocab_size = 30, .context_length = 8, .d_model = 16, .num_heads = 2, .num_layers = 2};
  GPT model(config, 3);
  const std::vector<int> ids{1, 5, 9, 2};
  const auto fresh_logits = [&] { return GPT::from_safetensors(model.to_safetensors()).forward(ids).logits; };
  const Matrix before = model.forward(ids).logits;  // packs
  EXPECT_TRUE(MatricesNear(before, fresh_logits(), 0.0f, 0.0f));

  std::vector<float> c_fc(model.tensor("h.1.mlp.c_fc.weight").size, 0.01f);
  model.load_tensor("h.1.mlp.c_fc.weight", c_fc);
  const Matrix after_load = model.forward(ids).logits;
  EXPECT_FALSE(MatricesNear(after_load, before, 1e-6f, 1e-6f));
  EXPECT_TRUE(MatricesNear(after_load, fresh_logits(), 0.0f, 0.0f));

  // Writing through the views: parameters() marks a change; so does weights_changed() after a write
  // through views taken earlier.
  std::vector<ParameterRef> views = model.parameters();
  model.forward(ids);  // packs again
  views[0].value[0] += 1.0f;  // wte.weight[0][0]
  model.weights_changed();
  EXPECT_TRUE(MatricesNear(model.forward(ids).logits, fresh_logits(), 0.0f, 0.0f));

  // A training step, and a copy taken before it (which shares the packed weights until then).
  const GPT copy = model;
  GPTTrainer trainer(model, {.schedule = {.max_lr = 0.1, .min_lr = 0.1, .warmup_steps = 0, .total_steps = 10}});
  const Matrix copy_before = copy.forward(ids).logits;
  trainer.step(ids, std::vector<int>{5, 9, 2, 7}, 1);
  EXPECT_TRUE(MatricesNear(model.forward(ids).logits, fresh_logits(), 0.0f, 0.0f));
  EXPECT_TRUE(MatricesNear(copy.forward(ids).logits, copy_before, 0.0f, 0.0f));
  EXPECT_FALSE(MatricesNear(copy.forward(ids).logits, model.forward(ids).logits, 1e-6f, 1e-6f));
}

TEST(GPT, BadArgumentsAreNamed) {
  expect_error([] { GPT({.vocab_size = 10, .context_length = 4, .d_model = 10, .num_heads = 3, .num_layers = 1}, 0); },
               "GPT: d_model = 10 is not divisible by num_heads = 3");
  expect_error([] { GPT({.vocab_size = 10, .context_length = 0, .d_model = 4, .num_heads = 1, .num_layers = 1}, 0); },
               "GPT: context_length must be positive, got 0");
  const GPT model({.vocab_size = 10, .context_length = 4, .d_model = 4, .num_heads = 2, .num_layers = 1}, 0);
  expect_error([&] { model.forward(std::vector<int>{}); }, "GPT::forward: ids is empty (give at least one token)");
  expect_error([&] { model.forward(std::vector<int>{1, 10}); }, "GPT::forward: ids[1] = 10 is outside the vocabulary 0 … 9");
  expect_error([&] { model.forward(std::vector<int>{1, 2, 3, 4, 5}); },
               "GPT::forward: a sequence of 5 tokens is longer than the model's context_length = 4");
  expect_error([&] { model.forward(std::vector<int>{1}, {.ablate = {{0, 2}}}); },
               "GPT::forward: ablate names layer 0, head 2 but the model has layers 0 … 0 and heads 0 … 1");
  expect_error([&] { model.tensor("lm_head.weight"); }, "GPT::tensor: the model has no tensor named 'lm_head.weight'");
  // Two MLP biases of 3e38 overflow the residual stream: an error whichever logits are asked for.
  GPT huge({.vocab_size = 10, .context_length = 4, .d_model = 4, .num_heads = 2, .num_layers = 2}, 0);
  for (const char* name : {"h.0.mlp.c_proj.bias", "h.1.mlp.c_proj.bias"})
    huge.load_tensor(name, std::vector<float>(4, 3e38f));
  for (const LogitRows rows : {LogitRows::all, LogitRows::last, LogitRows::none})
    EXPECT_THROW(huge.forward(std::vector<int>{1, 2}, {.attention = true, .logits = rows}), Error);
  expect_error([] { GPT({.vocab_size = 1 << 30, .context_length = 4, .d_model = 1024, .num_heads = 1, .num_layers = 1}, 0); },
               "GPT: needs about 4 TiB (the parameters: 1 × 1.09952e+12×1 floats) but the memory budget is 512 MiB (set_memory_budget raises it)");
}

}  // namespace
}  // namespace attnlab
