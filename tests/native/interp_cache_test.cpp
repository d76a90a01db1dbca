// HookedGPT's cache and patches against what the GPT itself computes: a run without patches is a plain
// forward bit for bit; zero and mean patches of hook_z are GPT::forward's own head ablations; a run
// resumed from a base equals the same run computed from the start. (Against PyTorch hooks:
// interp_torch_test.cpp.)
#include <gtest/gtest.h>

#include <limits>

#include "attnlab/gpt/gpt.hpp"
#include "attnlab/interp/hooked_gpt.hpp"
#include "expect_error.hpp"
#include "gpt_fixture.hpp"

namespace attnlab {
namespace {

GPT small_model() { return GPT::from_safetensors(testing::read_gpt_fixture_bytes("small.safetensors")); }

std::vector<int> small_ids() { return testing::read_gpt_fixture_json("small.json").at("ids").get<std::vector<int>>(); }

TEST(HookedGPT, ARunWithoutPatchesIsThePlainForwardBitForBit) {
  const GPT model = small_model();
  const std::vector<int> ids = small_ids();
  const GPTOutput plain = model.forward(ids, {.attention = true});
  const HookedRun run = HookedGPT(model).run_with_cache(ids);
  EXPECT_TRUE((run.logits.array() == plain.logits.array()).all());
  const int T = static_cast<int>(ids.size());
  for (int l = 0; l < model.config().num_layers; ++l)
    for (int h = 0; h < model.config().num_heads; ++h) {
      const Matrix pattern = run.cache.at({Hook::pattern, l}).middleRows(h * T, T);
      EXPECT_TRUE((pattern.array() == plain.attention[l][h].array()).all()) << "layer " << l << " head " << h;
    }
  // Every point of a 2-layer model: 2 + 17·2 + 2, named as TransformerLens names them.
  const std::vector<std::string> names = run.cache.names();
  ASSERT_EQ(names.size(), 38u);
  EXPECT_EQ(names.front(), "hook_embed");
  EXPECT_EQ(names[2], "blocks.0.hook_resid_pre");
  EXPECT_EQ(names[9], "blocks.0.attn.hook_pattern");
  EXPECT_EQ(names.back(), "ln_final.hook_normalized");
  EXPECT_EQ(run.cache.get("blocks.1.attn.hook_z").shape(), (Shape{T, 4, 8}));
  EXPECT_EQ(run.cache.get("blocks.1.attn.hook_pattern").shape(), (Shape{4, T, T}));
  EXPECT_EQ(run.cache.get("blocks.0.ln1.hook_scale").shape(), (Shape{T, 1}));
  EXPECT_EQ(run.cache.get("blocks.0.mlp.hook_post").shape(), (Shape{T, 128}));
}

TEST(HookedGPT, ZeroAndMeanPatchesOfHookZAreTheModelsOwnHeadAblations) {
  const GPT model = small_model();
  const std::vector<int> ids = small_ids();
  const HookedGPT hooked(model);
  for (const AblationMode mode : {AblationMode::zero, AblationMode::mean}) {
    const GPTOutput ablated = model.forward(ids, {.ablate = {{0, 1}, {1, 3}}, .ablation = mode});
    HookedRunOptions options;
    const PatchSource source = mode == AblationMode::zero ? PatchSource::zero : PatchSource::mean;
    options.patches = {{.point = {Hook::z, 0}, .source = source, .heads = {1}},
                       {.point = {Hook::z, 1}, .source = source, .heads = {3}}};
    EXPECT_TRUE((hooked.run(ids, options).logits.array() == ablated.logits.array()).all());
  }
}

TEST(HookedGPT, ARunResumedFromABaseEqualsTheRunComputedFromTheStart) {
  const GPT model = small_model();
  const std::vector<int> ids = small_ids();
  const HookedGPT hooked(model);
  const HookedRun base = hooked.run_with_cache(ids);
  Tensor other(Shape{static_cast<std::int64_t>(ids.size()), 32});
  for (std::int64_t i = 0; i < other.numel(); ++i) other.at({i / 32, i % 32}) = 0.01f * static_cast<float>(i % 7);
  for (const HookPoint point : {HookPoint{Hook::resid_pre, 1}, HookPoint{Hook::attn_out, 1}, HookPoint{Hook::mlp_out, 0},
                                HookPoint{Hook::ln_final_normalized}}) {
    HookedRunOptions options;
    options.patches = {{.point = point, .value = other, .positions = {3, 5}}};
    options.keep = hooked.keep_list("test", {});
    const HookedRun full = hooked.run(ids, options);
    options.base = &base.cache;
    const HookedRun resumed = hooked.run(ids, options);
    EXPECT_TRUE((resumed.logits.array() == full.logits.array()).all()) << hook_name(point);
    EXPECT_FALSE((resumed.logits.array() == base.logits.array()).all()) << hook_name(point) << " changed nothing";
    for (const std::string& name : full.cache.names())
      EXPECT_TRUE((resumed.cache.get(name).to_vector() == full.cache.get(name).to_vector())) << name;
  }
}

// A hook function sees every point in forward order, and what it writes flows on: zeroing a head's hook_z
// is GPT::forward's own ablation, doubling a layer's attn_out is the patch of that doubled value; a hook
// that changes a point's shape or leaves a NaN is refused by name. (Against PyTorch: a hook function
// putting a clean activation back is a patching cell, interp_torch_test.cpp.)
TEST(HookedGPT, HookFunctionsSeeEveryPointAndWhatTheyWriteFlowsOn) {
  const GPT model = small_model();
  const std::vector<int> ids = small_ids();
  const HookedGPT hooked(model);
  const HookedRun plain = hooked.run_with_cache(ids);
  std::vector<std::string> seen;
  HookedRunOptions reader;
  reader.hook = [&](HookPoint point, Matrix&) { seen.push_back(hook_name(point)); };
  EXPECT_TRUE((hooked.run(ids, reader).logits.array() == plain.logits.array()).all());
  EXPECT_EQ(seen, plain.cache.names());

  const int d_head = model.config().head_dim();
  HookedRunOptions zero_head;
  zero_head.hook = [&](HookPoint point, Matrix& value) {
    if (point == HookPoint{Hook::z, 1}) value.middleCols(3 * d_head, d_head).setZero();
  };
  const GPTOutput ablated = model.forward(ids, {.ablate = {{1, 3}}});
  EXPECT_TRUE((hooked.run(ids, zero_head).logits.array() == ablated.logits.array()).all());

  HookedRunOptions doubled, patched;
  doubled.hook = [&](HookPoint point, Matrix& value) {
    if (point == HookPoint{Hook::attn_out, 0}) value *= 2.0f;
  };
  const Tensor twice = plain.cache.get("blocks.0.hook_attn_out");
  std::vector<float> values = twice.to_vector();
  for (float& v : values) v *= 2.0f;
  patched.patches = {{.point = {Hook::attn_out, 0}, .value = Tensor(twice.shape(), values)}};
  const Matrix by_hook = hooked.run(ids, doubled).logits;
  EXPECT_TRUE((by_hook.array() == hooked.run(ids, patched).logits.array()).all());
  EXPECT_FALSE((by_hook.array() == plain.logits.array()).all());

  HookedRunOptions reshaping, poisoning;
  reshaping.hook = [](HookPoint point, Matrix& value) {
    if (point == HookPoint{Hook::mlp_out, 1}) value.resize(2, 2);
  };
  poisoning.hook = [](HookPoint point, Matrix& value) {
    if (point == HookPoint{Hook::pattern, 0}) value(0, 0) = std::numeric_limits<float>::quiet_NaN();
  };
  const std::string T = std::to_string(ids.size());
  expect_error([&] { (void)hooked.run(ids, reshaping); },
               "HookedGPT::run: the hook function made blocks.1.hook_mlp_out [2×2] but it is [" + T + "×32]");
  expect_error([&] { (void)hooked.run(ids, poisoning); },
               "HookedGPT::run: the hook function left a NaN or +∞ in blocks.0.attn.hook_pattern");
}

TEST(HookedGPT, BadNamesShapesPositionsAndHeadsAreRefusedByName) {
  const GPT model = small_model();
  const std::vector<int> ids = small_ids();
  const HookedGPT hooked(model);
  const std::vector<std::string> misspelt = {"blocks.1.attn.hook_patern"};
  expect_error_containing([&] { hooked.run_with_cache(ids, misspelt); }, "did you mean \"blocks.1.attn.hook_pattern\"");
  const std::vector<std::string> too_deep = {"blocks.2.hook_resid_pre"};
  expect_error_containing([&] { hooked.run_with_cache(ids, too_deep); }, "for l = 0 … 1");
  HookedRunOptions options;
  options.patches = {{.point = {Hook::resid_pre, 0}, .value = Tensor(Shape{3, 32})}};
  expect_error_containing([&] { hooked.run(ids, options); }, "value has shape (3, 32) but this run's blocks.0.hook_resid_pre has shape (16, 32)");
  options.patches = {{.point = {Hook::z, 0}, .source = PatchSource::zero, .heads = {4}}};
  expect_error_containing([&] { hooked.run(ids, options); }, "heads holds 4, outside the model's heads 0 … 3");
  options.patches = {{.point = {Hook::mlp_out, 0}, .source = PatchSource::zero, .heads = {0}}};
  expect_error_containing([&] { hooked.run(ids, options); }, "is not a per-head point");
  options.patches = {{.point = {Hook::mlp_out, 0}, .source = PatchSource::zero, .positions = {16}}};
  expect_error_containing([&] { hooked.run(ids, options); }, "positions holds 16, outside the sequence 0 … 15");
  // And the model still runs.
  EXPECT_EQ(hooked.run_with_cache(ids).logits.rows(), 16);
}

}  // namespace
}  // namespace attnlab
