// The induction-head lesson's core: the repeat task's examples, the per-head scores against a hand
// computation, the attention-only and position-free CausalTransformer against PyTorch
// (tests/fixtures/make_induction_fixtures.py), and a seeded run of the lesson's recipe
// (scripts/induction-recipe.py): an induction head forms with two layers and not with one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>

#include "attnlab/attnlab.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::Fixture;

TEST(InductionTask, RepeatIsRandomLettersWhoseLastTwoSegmentsAreEqual) {
  const Task task(TaskKind::repeat);
  EXPECT_EQ(task.seq_len(), 32);
  EXPECT_EQ(task.vocab_size(), 27);  // <pad>, a … z
  EXPECT_EQ(task.decode({1, 26}), "a z");
  std::set<int> lengths;
  for (const TaskExample& e : task.examples(300, 4)) {
    ASSERT_EQ(e.tokens.size(), 32u);
    ASSERT_EQ(e.targets.size(), 32u);
    const int length = repeat_segment_length(e);
    lengths.insert(length);
    ASSERT_GE(length, kRepeatMinSegment);
    ASSERT_LE(length, kRepeatMaxSegment);
    const int second = 32 - length;
    for (int t = 0; t < 32; ++t) {
      const auto at = static_cast<std::size_t>(t);
      EXPECT_GE(e.tokens[at], 1);  // a letter, never <pad>
      EXPECT_LE(e.tokens[at], 26);
      if (t >= second) {
        EXPECT_EQ(e.tokens[at], e.tokens[at - static_cast<std::size_t>(length)]) << task.decode(e.tokens);
      }
      // Targets only where the second copy predicts its next letter: positions second … 30.
      if (t >= second && t < 31) {
        EXPECT_EQ(e.targets[at], e.tokens[at + 1]);
      } else {
        EXPECT_EQ(e.targets[at], kIgnoreTarget);
      }
    }
  }
  EXPECT_EQ(lengths.size(), 9u);  // every segment length 4 … 12 drawn
}

TEST(InductionTask, RepeatIsSeededSplitsAndTakesItsLength) {
  const Task task(TaskKind::repeat);
  EXPECT_EQ(task.examples(5, 9)[3].tokens, task.examples(5, 9)[3].tokens);
  EXPECT_NE(task.examples(5, 9)[3].tokens, task.examples(5, 10)[3].tokens);
  const Task::Split split = task.split(400, 100, 3);
  std::set<std::vector<int>> trained;
  for (const TaskExample& e : split.train) trained.insert(e.tokens);
  for (const TaskExample& e : split.test) EXPECT_EQ(trained.count(e.tokens), 0u);
  EXPECT_EQ(Task(TaskKind::repeat, 40).examples(1, 1).front().tokens.size(), 40u);
  expect_error([] { Task(TaskKind::repeat, 20); }, "Task: repeat's length (its sequence length) must be in 24 … 64 (or 0 for 32), got 20");
  expect_error([] { repeat_segment_length({{1, 2}, {kIgnoreTarget, kIgnoreTarget}}); },
               "repeat_segment_length: the example has no target: it is not a repeat example");
}

TEST(InductionScores, EqualAHandComputation) {
  // N = 6, L = 2: r₁ r₂ s₁ s₂ s₁ s₂ — the second copy is positions 4, 5.
  // previous-token = (w(4,3) + w(5,4)) / 2; induction = w(4,3) (s₁ at 4 → s₂ at 3), one term.
  Matrix a = Matrix::Zero(6, 6), b = Matrix::Zero(6, 6);
  a(4, 3) = 0.6f, a(5, 4) = 0.2f, a(4, 0) = 0.4f, a(5, 0) = 0.8f;
  b(4, 2) = 1.0f, b(5, 5) = 1.0f;
  const InductionScores s = induction_scores({{a}, {b}}, 2);
  ASSERT_EQ(s.previous_token.size(), 2u);
  EXPECT_FLOAT_EQ(s.previous_token[0], 0.4f);
  EXPECT_FLOAT_EQ(s.induction[0], 0.6f);
  EXPECT_FLOAT_EQ(s.previous_token[1], 0.0f);
  EXPECT_FLOAT_EQ(s.induction[1], 0.0f);
  // L = 3 on N = 8: second copy 5, 6, 7, first copy 2, 3, 4; induction terms w(5,3) and w(6,4).
  Matrix c = Matrix::Zero(8, 8);
  c(5, 3) = 0.5f, c(6, 4) = 0.7f, c(6, 5) = 0.3f, c(7, 6) = 0.9f;
  const InductionScores t = induction_scores({{c}}, 3);
  EXPECT_FLOAT_EQ(t.induction[0], 0.6f);                   // (0.5 + 0.7) / 2
  EXPECT_FLOAT_EQ(t.previous_token[0], (0.0f + 0.3f + 0.9f) / 3.0f);  // w(5,4), w(6,5), w(7,6)
  expect_error([&] { induction_scores({{c}}, 5); }, "induction_scores: segment_length must be in 2 … N/2 = 4, got 5");
  expect_error([&] { induction_scores({{c, a}}, 2); }, "induction_scores: attention[0][1] is 6×6 but attention[0][0] is 8×8");
}

// The fixture's weights copied into a model, by attnlab's names; the names must be the fixture's.
void load(CausalTransformer& model, const Fixture& f, const std::string& prefix) {
  std::set<std::string> stored;
  for (const auto& [key, value] : f.json().items())
    if (key.rfind(prefix, 0) == 0) stored.insert(key.substr(prefix.size()));
  std::set<std::string> names;
  for (const ParameterRef& p : model.parameters()) {
    names.insert(p.name);
    const std::vector<float> data = f.json().at(prefix + p.name).at("data").get<std::vector<float>>();
    ASSERT_EQ(static_cast<Eigen::Index>(data.size()), p.size) << p.name;
    std::copy(data.begin(), data.end(), p.value);
  }
  EXPECT_EQ(names, stored);
}

void expect_gradients(CausalTransformer& model, const Fixture& f, const std::string& prefix) {
  for (const ParameterRef& p : model.parameters()) {
    const std::vector<float> expected = f.json().at(prefix + p.name).at("data").get<std::vector<float>>();
    for (Eigen::Index i = 0; i < p.size; ++i)
      EXPECT_NEAR(p.grad[i], expected[static_cast<std::size_t>(i)], 2e-5f + 1e-3f * std::abs(expected[static_cast<std::size_t>(i)]))
          << prefix << p.name << "[" << i << "]";
  }
}

void expect_matches_torch(const std::string& name, bool positions) {
  const Fixture f(name);
  CausalTransformer model({.vocab_size = 7, .max_len = 6, .d_model = 8, .num_heads = 2, .num_layers = 2, .d_ff = 0,
                           .positions = positions, .seed = 1});
  load(model, f, "weight.");
  const std::vector<int> ids = f.json().at("ids").get<std::vector<int>>();
  const std::vector<int> targets = f.json().at("targets").get<std::vector<int>>();
  Adam adam(model.parameters(), {.lr = f.number("lr")});
  model.zero_grad();
  EXPECT_NEAR(model.accumulate_gradients(ids, targets, 1.0f).loss, f.number("loss0"), 1e-5);
  expect_gradients(model, f, "grad0.");
  adam.step();
  // The keys' biases have a zero gradient in exact arithmetic (adding q·b_k to a whole row of scores
  // leaves the softmax unchanged), so Adam's step on them is rounding noise over its own size: they
  // are checked for a gradient of about 0 above, and continue from PyTorch's values.
  for (const ParameterRef& p : model.parameters()) {
    const std::vector<float> expected = f.json().at("stepped." + p.name).at("data").get<std::vector<float>>();
    const bool key_bias = p.name.find("k_proj.bias") != std::string::npos;
    for (Eigen::Index i = 0; i < p.size; ++i) {
      const float want = key_bias ? 0.0f : expected[static_cast<std::size_t>(i)];
      EXPECT_NEAR(key_bias ? p.grad[i] : p.value[i], want, 1e-6f) << (key_bias ? "grad " : "stepped ") << p.name << "[" << i << "]";
    }
    if (key_bias) std::copy(expected.begin(), expected.end(), p.value);
  }
  model.zero_grad();
  EXPECT_NEAR(model.accumulate_gradients(ids, targets, 1.0f).loss, f.number("loss1"), 1e-5);
  expect_gradients(model, f, "grad1.");
}

TEST(InductionCausalTransformer, AttentionOnlyLossAndGradientsMatchPyTorchBeforeAndAfterAnAdamStep) {
  expect_matches_torch("induction_attention_only", true);
}

TEST(InductionCausalTransformer, NoPositionsLossAndGradientsMatchPyTorchBeforeAndAfterAnAdamStep) {
  expect_matches_torch("induction_no_positions", false);
}

TEST(InductionCausalTransformer, AttentionOnlyLayersHaveNoFeedForwardOrSecondNorm) {
  // Per layer: 4 projections of 8·8 + 8, and norm1's 2·8 = 304; plus embedding 7·8, positions 6·8,
  // the final norm 2·8 and the head 8·7 + 7.
  CausalTransformer with({.vocab_size = 7, .max_len = 6, .d_model = 8, .num_heads = 2, .num_layers = 2, .d_ff = 0});
  EXPECT_EQ(with.parameter_count(), 2 * 304 + 56 + 48 + 16 + 63);
  CausalTransformer without({.vocab_size = 7, .max_len = 6, .d_model = 8, .num_heads = 2, .num_layers = 2, .d_ff = 0,
                             .positions = false});
  EXPECT_EQ(without.parameter_count(), 2 * 304 + 56 + 16 + 63);
  for (const ParameterRef& p : without.parameters()) {
    EXPECT_EQ(p.name.find("positions"), std::string::npos);
    EXPECT_EQ(p.name.find("linear"), std::string::npos);
    EXPECT_EQ(p.name.find("norm2"), std::string::npos);
  }
  const TransformerEncoderLayer layer({.d_model = 8, .num_heads = 2, .d_ff = 0});
  EXPECT_TRUE(layer.attention_only());
  expect_error([&] { (void)layer.feed_forward(); }, "TransformerEncoderLayer::feed_forward: the layer is attention-only (d_ff = 0)");
}

TEST(InductionCausalTransformer, PostNormAttentionOnlyLayerIsNormOfTheResidual) {
  // x = norm1(x + attn(x)) with no feed-forward: the layer's output equals that, computed here from
  // the layer's own attention and a LayerNorm with norm1's default weights (ones, zeros).
  TransformerEncoderLayer layer({.d_model = 8, .num_heads = 2, .d_ff = 0, .dropout = 0.0f, .seed = 3});
  Rng rng(5);
  const Matrix x = rng.normal_matrix(5, 8);
  const Matrix expected = LayerNorm(8).forward(x + layer.self_attn().forward(x).output);
  EXPECT_TRUE(testing::MatricesNear(layer.forward(x), expected, 1e-6f, 1e-6f));
}

// The lesson's recipe (scripts/induction-recipe.py): repeat (N 32, segments 4 … 12, letters), d_model 32,
// 1 head per layer, attention-only, batches of 16, Adam at lr 5e-3. Trains up to `steps` steps, scoring 64
// held-out examples every 50; returns the first scored step at which some head's induction score
// exceeds 0.5 (−1 if none), with the held-out loss and best induction score at the end.
struct RecipeRun {
  int phase_change = -1;
  float final_loss = 0.0f, best_induction = 0.0f;
};

RecipeRun train_recipe(int layers, int steps, std::uint64_t seed) {
  constexpr int kBatch = 16;
  const Task task(TaskKind::repeat);
  const Task::Split split = task.split(steps * kBatch, 64, seed);
  TaskTrainer trainer(task, {.d_model = 32, .num_heads = 1, .num_layers = layers, .d_ff = 0, .lr = 5e-3, .seed = seed});
  RecipeRun run;
  for (int step = 0;; ++step) {
    if (step % 50 == 0 || step == steps) {
      const InductionScores scores = induction_scores(trainer, split.test);
      run.best_induction = *std::max_element(scores.induction.begin(), scores.induction.end());
      if (run.phase_change < 0 && run.best_induction > 0.5f) run.phase_change = step;
    }
    if (step == steps) break;
    trainer.train_step({split.train.begin() + step * kBatch, split.train.begin() + (step + 1) * kBatch});
  }
  run.final_loss = trainer.evaluate(split.test).loss;
  return run;
}

// Whether this build runs under AddressSanitizer, where 3000 training steps take minutes: the forward and
// backward passes they repeat are checked under it by the PyTorch fixture tests above.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAsan = true;
#else
constexpr bool kUnderAsan = false;
#endif
#else
constexpr bool kUnderAsan = false;
#endif

TEST(InductionTraining, TwoAttentionOnlyLayersFormAnInductionHeadAndOneLayerDoesNot) {
  if (kUnderAsan) GTEST_SKIP() << "3000 training steps under AddressSanitizer: the fixture tests cover these passes";
  // Seed 0 (scripts/induction-recipe.py's seeds 0–2 change phase at steps 450–550 in PyTorch; here,
  // with attnlab's own initial weights, seeds 0–9 at 500–1000, but for seed 4, whose loss falls slowly
  // to 0.9 by step 4000 through another circuit: layer 1's head turns to the previous token, and no
  // head's induction score passes 0.2).
  // Kept short (it runs under ASan and in three wasm builds too); tests/js/induction-forming.test.js trains
  // the lesson's model longer in wasm.
  const RecipeRun two = train_recipe(2, 1000, 0);
  EXPECT_GT(two.phase_change, 0);         // not at the start: after a plateau
  EXPECT_LE(two.phase_change, 1000);
  EXPECT_GT(two.best_induction, 0.6f);
  EXPECT_LT(two.final_loss, 1.0f);        // from ln 26 ≈ 3.3 at the start
  // One layer, twice as long: no induction head (it needs a previous-token head in an earlier layer),
  // and the loss stays near what spreading the guess over the 9 possible offsets gives, ln 9.
  const RecipeRun one = train_recipe(1, 2000, 0);
  EXPECT_EQ(one.phase_change, -1);
  EXPECT_LT(one.best_induction, 0.3f);
  EXPECT_GT(one.final_loss, 1.8f);
  std::printf("2 layers: phase change at step %d, held-out loss %.3f, best induction %.2f; 1 layer: loss %.3f, "
              "best induction %.2f\n", two.phase_change, two.final_loss, two.best_induction, one.final_loss, one.best_induction);
}

}  // namespace
}  // namespace attnlab
