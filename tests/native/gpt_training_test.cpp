// Training a GPT: the schedule, clipping and AdamW against hand computations, and five AdamW steps
// against PyTorch (tests/fixtures/make_gpt_fixtures.py): losses, gradient norms, gradients and weights;
// a pass with dropout against PyTorch given the same masks.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <numbers>

#include "attnlab/gpt/gpt_training.hpp"
#include "expect_error.hpp"
#include "gpt_fixture.hpp"

namespace attnlab {
namespace {

TEST(CosineSchedule, WarmsUpLinearlyThenFollowsTheCosine) {
  const CosineSchedule s{.max_lr = 1.0, .min_lr = 0.1, .warmup_steps = 4, .total_steps = 14};
  EXPECT_DOUBLE_EQ(s.lr(0), 0.25);
  EXPECT_DOUBLE_EQ(s.lr(3), 1.0);
  EXPECT_DOUBLE_EQ(s.lr(4), 1.0);                                   // progress 0: cos 0 = 1
  EXPECT_NEAR(s.lr(9), 0.1 + 0.5 * 0.9, 1e-15);                     // progress ½: cos(π/2) = 0
  EXPECT_NEAR(s.lr(6), 0.1 + 0.5 * (1 + std::cos(std::numbers::pi * 0.2)) * 0.9, 1e-15);
  EXPECT_DOUBLE_EQ(s.lr(14), 0.1);
  EXPECT_DOUBLE_EQ(s.lr(100), 0.1);
}

TEST(ClipGradNorm, ScalesOnlyAboveTheMaximum) {
  std::vector<float> v1(2, 0.0f), g1 = {3.0f, 0.0f}, v2(1, 0.0f), g2 = {4.0f};
  const std::vector<ParameterRef> params = {{"a", v1.data(), g1.data(), 2, {2}}, {"b", v2.data(), g2.data(), 1, {1}}};
  EXPECT_DOUBLE_EQ(clip_grad_norm(params, 10.0), 5.0);  // ‖(3, 0, 4)‖ = 5 ≤ 10: unchanged
  EXPECT_EQ(g1[0], 3.0f);
  EXPECT_DOUBLE_EQ(clip_grad_norm(params, 1.0), 5.0);   // × 1/(5 + 1e-6)
  EXPECT_FLOAT_EQ(g1[0], static_cast<float>(3.0 / (5.0 + 1e-6)));
  EXPECT_FLOAT_EQ(g2[0], static_cast<float>(4.0 / (5.0 + 1e-6)));
  expect_error([&] { clip_grad_norm(params, 0.0); }, "clip_grad_norm: max_norm must be positive and finite, got 0");
}

TEST(AdamW, OneStepByHand) {
  // p = 2, g = 0.5, lr 0.1, λ 0.1: p ← 2·(1 − 0.01) = 1.98; m = 0.05, v = 0.00025·… bias-corrected
  // m̂ = 0.5, v̂ = 0.25, so the update is lr·0.5/(0.5 + eps) = 0.1 (to eps): p = 1.88. With λ = 0: 1.9.
  std::vector<float> a = {2.0f}, ga = {0.5f}, b = {2.0f}, gb = {0.5f};
  AdamW adamw({{{{"a", a.data(), ga.data(), 1, {1}}}, 0.1}, {{{"b", b.data(), gb.data(), 1, {1}}}, 0.0}}, {.lr = 0.1});
  adamw.step();
  EXPECT_NEAR(a[0], 1.88f, 1e-6);
  EXPECT_NEAR(b[0], 1.9f, 1e-6);
  EXPECT_EQ(adamw.steps(), 1);
  expect_error([&] { AdamW({{{{"a", a.data(), ga.data(), 1, {1}}}, -1.0}}); },
               "AdamW: groups[0].weight_decay must be finite and ≥ 0, got -1");
}

TEST(GPTTrainer, MemorisesARepeatedSequence) {
  // A 2-layer model learns to continue one fixed sequence: its loss falls from ≈ ln V to near 0.
  GPT model({.vocab_size = 17, .context_length = 16, .d_model = 32, .num_heads = 4, .num_layers = 2}, 1);
  GPTTrainer trainer(model, {.schedule = {.max_lr = 1e-2, .min_lr = 1e-3, .warmup_steps = 5, .total_steps = 120}});
  std::vector<int> ids, targets;
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 15; ++t) {
      ids.push_back((t * 7 + b) % 17);
      targets.push_back(((t + 1) * 7 + b) % 17);
    }
  const float first = trainer.step(ids, targets, 2).loss;
  EXPECT_NEAR(first, std::log(17.0f), 0.3f);
  GPTStepResult last;
  for (int s = 1; s < 120; ++s) last = trainer.step(ids, targets, 2);
  EXPECT_LT(last.loss, 0.05f);
  EXPECT_NEAR(last.lr, trainer.config().schedule.lr(119), 1e-12);
  EXPECT_LT(model.loss(ids, targets, 2), 0.05f);
}

// The fixture's .safetensors file as name → values.
std::map<std::string, std::vector<float>> read_tensors(const std::string& file) {
  const std::vector<std::uint8_t> bytes = testing::read_gpt_fixture_bytes(file);
  const SafetensorsHeader header = parse_safetensors(bytes);
  std::map<std::string, std::vector<float>> out;
  for (const SafetensorInfo& info : header.tensors) {
    std::vector<float>& values = out[info.name];
    values.resize(static_cast<std::size_t>(info.element_count()));
    read_tensor(bytes, header, info, values.data());
  }
  return out;
}

void expect_tensors_near(std::span<const float> actual, const GPT& model, const std::string& file, double tolerance) {
  for (const auto& [name, expected] : read_tensors(file)) {
    const GPTTensorSlot& slot = model.tensor(name);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const double a = actual[slot.offset + i], e = expected[i];
      if (std::abs(a - e) > tolerance * (1 + std::abs(e))) {
        ADD_FAILURE() << file << ": " << name << "[" << i << "] is " << a << ", PyTorch has " << e;
        break;
      }
    }
  }
}

TEST(GPTTrainer, FiveAdamWStepsMatchPyTorch) {
  const nlohmann::json fixture = testing::read_gpt_fixture_json("train.json");
  const auto& h = fixture.at("hyper");
  const int batch = fixture.at("batch").get<int>();
  GPT model = GPT::from_safetensors(testing::read_gpt_fixture_bytes("train_init.safetensors"));
  EXPECT_EQ(model.config().d_model, fixture.at("config").at("d_model").get<int>());
  // the first step's gradients, before clipping
  {
    GPT copy = model;
    copy.zero_grad();
    const auto& step = fixture.at("steps").at(0);
    copy.forward_backward(step.at("ids").get<std::vector<int>>(), step.at("targets").get<std::vector<int>>(), batch);
    expect_tensors_near(copy.grads(), copy, "train_grads0.safetensors", 1e-4);
  }
  GPTTrainer trainer(model, {.schedule = {.max_lr = h.at("max_lr"), .min_lr = h.at("min_lr"),
                                          .warmup_steps = h.at("warmup_steps"), .total_steps = h.at("total_steps")},
                             .beta1 = h.at("beta1"), .beta2 = h.at("beta2"), .eps = h.at("eps"),
                             .weight_decay = h.at("weight_decay"), .clip_norm = h.at("clip_norm")});
  for (const auto& step : fixture.at("steps")) {
    const GPTStepResult r =
        trainer.step(step.at("ids").get<std::vector<int>>(), step.at("targets").get<std::vector<int>>(), batch);
    EXPECT_NEAR(r.loss, step.at("loss").get<double>(), 1e-4);
    EXPECT_NEAR(r.grad_norm, step.at("grad_norm").get<double>(), 1e-4 * step.at("grad_norm").get<double>());
    EXPECT_NEAR(r.lr, step.at("lr").get<double>(), 1e-15);
  }
  expect_tensors_near(model.values(), model, "train_final.safetensors", 1e-4);
}

TEST(GPT, DropoutPassMatchesPyTorchWithTheSameMasks) {
  // The fixture's PyTorch GPT-2 drops where attnlab's GPTDropout says (a PCG32 written in Python draws the
  // masks in the documented order); its autograd gives the gradients, checked there by central differences.
  const nlohmann::json fixture = testing::read_gpt_fixture_json("train_dropout.json");
  const nlohmann::json step = testing::read_gpt_fixture_json("train.json").at("steps").at(0);
  const std::vector<int> ids = step.at("ids").get<std::vector<int>>(), targets = step.at("targets").get<std::vector<int>>();
  GPT model = GPT::from_safetensors(testing::read_gpt_fixture_bytes("train_init.safetensors"));
  model.zero_grad();
  const GPTDropout dropout{fixture.at("p").get<float>(), fixture.at("seed").get<std::uint64_t>(),
                           fixture.at("stream").get<std::uint64_t>()};
  const float loss = model.forward_backward(ids, targets, fixture.at("batch").get<int>(), dropout);
  EXPECT_NEAR(loss, fixture.at("loss").get<double>(), 1e-5);
  expect_tensors_near(model.grads(), model, "train_dropout_grads.safetensors", 1e-4);
  // Without dropout it is another pass (the fixture's is not a plain one), and evaluation never drops.
  GPT plain = GPT::from_safetensors(testing::read_gpt_fixture_bytes("train_init.safetensors"));
  EXPECT_GT(std::abs(plain.forward_backward(ids, targets, 3) - loss), 1e-3);
  EXPECT_EQ(model.loss(ids, targets, 3), plain.loss(ids, targets, 3));
}

TEST(GPTTrainer, StepsDropWithTheirOwnMasksAndResumeWithoutState) {
  // Step s draws from Rng(dropout_seed, s): two trainers stepping the same batches agree bit for bit, and
  // a step's loss differs from the step before's on the same batch by more than the update explains.
  const GPTConfig config{.vocab_size = 11, .context_length = 8, .d_model = 8, .num_heads = 2, .num_layers = 1};
  const std::vector<int> ids = {1, 2, 3, 4, 5, 6, 7, 8}, targets = {2, 3, 4, 5, 6, 7, 8, 9};
  const GPTTrainerConfig settings{.schedule = {.max_lr = 0.0, .min_lr = 0.0, .total_steps = 4}, .dropout = 0.5f,
                                  .dropout_seed = 5};
  GPT a(config, 3), b(config, 3);
  GPTTrainer ta(a, settings), tb(b, settings);
  std::vector<float> losses;
  for (int s = 0; s < 3; ++s) {
    const float la = ta.step(ids, targets, 1).loss;
    EXPECT_EQ(la, tb.step(ids, targets, 1).loss);
    losses.push_back(la);
  }
  // lr 0: the weights never move, so only the masks change the loss.
  EXPECT_NE(losses[0], losses[1]);
  EXPECT_NE(losses[1], losses[2]);
  GPT c(config, 3);
  c.zero_grad();
  EXPECT_EQ(c.forward_backward(ids, targets, 1, {0.5f, 5, 2}), losses[2]) << "step 2's masks are Rng(5, 2)'s";
}

TEST(GPTTrainer, BadArgumentsAreNamed) {
  GPT model({.vocab_size = 5, .context_length = 4, .d_model = 4, .num_heads = 2, .num_layers = 1}, 1);
  expect_error([&] { GPTTrainer(model, {.schedule = {.warmup_steps = 3, .total_steps = 3}}); },
               "GPTTrainer: schedule needs 0 ≤ warmup_steps < total_steps, got warmup_steps 3 and total_steps 3");
  GPTTrainer trainer(model, {.schedule = {.total_steps = 3}});
  const std::vector<int> ids = {1, 2, 3, 4, 0, 1}, targets = {2, 3, 4, -1, 1, 5};
  expect_error([&] { trainer.step(ids, targets, 2); },
               "GPT::forward_backward: targets[5] = 5 is outside the vocabulary 0 … 4 (use -1 for no target)");
  expect_error([&] { trainer.step(ids, targets, 4); },
               "GPT::forward_backward: ids has 6 tokens, which is not 4 sequences of equal length");
  expect_error([&] { trainer.step(std::vector<int>(10, 1), std::vector<int>(10, 1), 2); },
               "GPT::forward_backward: a sequence of 5 tokens is longer than the model's context_length = 4");
  expect_error([&] { GPTTrainer(model, {.schedule = {.total_steps = 3}, .dropout = 1.0f}); },
               "GPTTrainer: dropout must be in [0, 1), got 1");
  expect_error([&] { model.forward_backward(ids, std::vector<int>{2, 3, 4, -1, 1, 2}, 2, {.p = -0.1f}); },
               "GPT::forward_backward: dropout.p must be in [0, 1), got -0.1");
}

}  // namespace
}  // namespace attnlab
