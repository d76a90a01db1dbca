// The interpretability calls on a Llama against their definitions computed by the float64 reference
// (tests/fixtures/make_llama_fixtures.py, interp_expected): the logit lens, direct logit attribution,
// activation patching grids (k and v by key/value head), copying and composition scores; and the QK
// circuit at a distance against the model's own pre-softmax scores.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "attnlab/interp/llama_interp.hpp"
#include "expect_error.hpp"
#include "llama_fixture.hpp"

namespace attnlab {
namespace {

using testing::fixture_json;

const char* const kInterpFixtures[] = {"llama_gqa", "llama_mha_sharded"};

struct InterpCase {
  Llama model;
  nlohmann::json expected, interp;
  std::vector<int> prompt;
};

InterpCase load_case(const std::string& name) {
  nlohmann::json expected = fixture_json("llama/" + name + "/expected.json");
  nlohmann::json interp = expected["interp"];
  std::vector<int> prompt = expected["prompt"].get<std::vector<int>>();
  return {load_llama(name), std::move(expected), std::move(interp), std::move(prompt)};
}

TEST(LlamaInterp, LogitLensReadsEveryResidualPointThroughTheFinalNorm) {
  for (const char* name : kInterpFixtures) {
    SCOPED_TRACE(name);
    const InterpCase c = load_case(name);
    const int target = c.interp["target"].get<int>(), T = static_cast<int>(c.prompt.size());
    const LogitLens lens = logit_lens(c.model, c.prompt, {}, 3, target);
    const int L = c.model.config().num_layers;
    ASSERT_EQ(lens.points.size(), static_cast<std::size_t>(2 * L + 1));
    EXPECT_EQ(lens.points.back(), "blocks." + std::to_string(L - 1) + ".hook_resid_post");
    for (std::size_t i = 0; i + 1 < lens.points.size(); ++i) {
      const nlohmann::json& point = c.interp["lens"][i];
      EXPECT_EQ(lens.points[i], point["point"].get<std::string>());
      for (int p = 0; p < T; ++p) {
        const LensCell& cell = lens.cells[i][static_cast<std::size_t>(p)];
        EXPECT_EQ(cell.top_ids, point["top_ids"][static_cast<std::size_t>(p)].get<std::vector<int>>()) << lens.points[i] << " position " << p;
        for (int r = 0; r < 3; ++r)
          EXPECT_NEAR(cell.top_probabilities[static_cast<std::size_t>(r)],
                      point["top_probabilities"][static_cast<std::size_t>(p)][static_cast<std::size_t>(r)].get<double>(), 1e-5);
        EXPECT_NEAR(cell.target_probability, point["target_probability"][static_cast<std::size_t>(p)].get<double>(), 1e-5);
        EXPECT_EQ(cell.target_rank, point["target_rank"][static_cast<std::size_t>(p)].get<int>());
      }
    }
    // The last point is the model's own distribution: its argmax is the target at the last position.
    EXPECT_EQ(lens.cells.back().back().top_ids[0], target);
  }
}

TEST(LlamaInterp, DirectLogitAttributionPartsSumToTheLogitDifference) {
  for (const char* name : kInterpFixtures) {
    SCOPED_TRACE(name);
    const InterpCase c = load_case(name);
    const nlohmann::json& expected = c.interp["attribution"];
    const int T = static_cast<int>(c.prompt.size());
    const Attribution a = direct_logit_attribution(c.model, c.prompt, T - 1, c.interp["target"].get<int>(),
                                                   c.interp["baseline"].get<int>());
    ASSERT_EQ(a.terms.size(), expected["labels"].size());
    const double logit = expected["logit"].get<double>();
    for (std::size_t i = 0; i < a.terms.size(); ++i) {
      EXPECT_EQ(a.terms[i].label, expected["labels"][i].get<std::string>());
      EXPECT_NEAR(a.terms[i].value, expected["values"][i].get<double>(), 1e-4 * std::max(1.0, std::abs(logit))) << a.terms[i].label;
    }
    EXPECT_NEAR(a.logit, logit, 1e-4 * std::abs(logit));
    EXPECT_NEAR(a.sum, a.logit, 1e-4 * std::abs(logit));  // nothing is left out
  }
}

// grid name "what/per" → the core's enums.
std::pair<PatchWhat, PatchPer> grid_kind(const std::string& key) {
  const std::string what = key.substr(0, key.find('/')), per = key.substr(key.find('/') + 1);
  const std::map<std::string, PatchWhat> whats = {{"resid_pre", PatchWhat::resid_pre}, {"z", PatchWhat::z}, {"pattern", PatchWhat::pattern},
                                                  {"k", PatchWhat::k}, {"v", PatchWhat::v}, {"q", PatchWhat::q},
                                                  {"mlp_out", PatchWhat::mlp_out}};
  return {whats.at(what), per == "position" ? PatchPer::position : per == "head" ? PatchPer::head : PatchPer::all};
}

TEST(LlamaInterp, ActivationPatchingGridsAgreeWithTheReferencePatches) {
  for (const char* name : kInterpFixtures) {
    SCOPED_TRACE(name);
    const InterpCase c = load_case(name);
    const nlohmann::json& expected = c.interp["patching"];
    const std::vector<int> corrupted = expected["corrupted"].get<std::vector<int>>();
    const LogitDiffMetric metric{c.interp["target"].get<int>(), c.interp["baseline"].get<int>(), -1};
    const LlamaPatchingSweep sweep(c.model, c.prompt, corrupted, metric);
    const double clean = expected["clean_metric"].get<double>(), bad = expected["corrupted_metric"].get<double>();
    EXPECT_NEAR(sweep.clean_metric(), clean, 1e-4 * std::abs(clean));
    EXPECT_NEAR(sweep.corrupted_metric(), bad, 1e-4 * std::abs(bad));
    // A cell's error is the metric's over the gap it is divided by.
    const double tolerance = 2e-4 * std::max(std::abs(clean), std::abs(bad)) / std::abs(clean - bad);
    for (const auto& [key, grid] : expected["grids"].items()) {
      const auto [what, per] = grid_kind(key);
      const PatchingGrid ours = activation_patching(c.model, c.prompt, corrupted, what, per, metric);
      std::vector<double> flat;
      const std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& j) {
        if (j.is_array()) for (const auto& e : j) walk(e);
        else flat.push_back(j.get<double>());
      };
      walk(grid);
      ASSERT_EQ(ours.values.size(), flat.size()) << key;
      for (std::size_t i = 0; i < flat.size(); ++i) EXPECT_NEAR(ours.values[i], flat[i], tolerance) << key << " cell " << i;
    }
    // k and v are per key/value head: (L, Hkv) and (L, T, Hkv).
    const LlamaConfig& config = c.model.config();
    EXPECT_EQ(sweep.grid_shape(PatchWhat::k, PatchPer::head), (Shape{config.num_layers, config.num_kv_heads}));
    EXPECT_EQ(sweep.grid_shape(PatchWhat::q, PatchPer::head), (Shape{config.num_layers, config.num_heads}));
  }
}

// Path patching against the reference's two steps (make_llama_fixtures.py): each receiver of sender L0H0 alone —
// q per query head, k and v per key/value head — and one case with three receivers.
TEST(LlamaInterp, PathPatchingAgreesWithTheReferenceSteps) {
  for (const char* name : kInterpFixtures) {
    SCOPED_TRACE(name);
    const InterpCase c = load_case(name);
    const nlohmann::json& patching = c.interp["patching"];
    const std::vector<int> corrupted = patching["corrupted"].get<std::vector<int>>();
    const LlamaPatchingSweep sweep(c.model, c.prompt, corrupted, {c.interp["target"].get<int>(), c.interp["baseline"].get<int>(), -1});
    const double clean = patching["clean_metric"].get<double>(), bad = patching["corrupted_metric"].get<double>();
    const double tolerance = 2e-4 * std::max(std::abs(clean), std::abs(bad)) / std::abs(clean - bad);
    const std::map<std::string, Hook> inputs = {{"q", Hook::q}, {"k", Hook::k}, {"v", Hook::v}};
    ASSERT_FALSE(c.interp["path_patching"].empty());
    for (const nlohmann::json& want : c.interp["path_patching"]) {
      std::vector<PathReceiver> receivers;
      for (const nlohmann::json& r : want["receivers"]) receivers.push_back({r[0].get<int>(), r[1].get<int>(), inputs.at(r[2].get<std::string>())});
      const PathPatchingResult got = path_patching(sweep, {want["sender"][0].get<int>(), want["sender"][1].get<int>()}, receivers);
      EXPECT_NEAR(got.normalised, want["normalised"].get<double>(), tolerance) << want.dump();
      EXPECT_NEAR(got.clean_metric, clean, 1e-4 * std::abs(clean));
    }
  }
  // A k or v receiver is a key/value head: llama_gqa has 2, so head 2 through k is refused, through q accepted.
  const InterpCase c = load_case("llama_gqa");
  const std::vector<int> corrupted = c.interp["patching"]["corrupted"].get<std::vector<int>>();
  const LlamaPatchingSweep sweep(c.model, c.prompt, corrupted, {c.interp["target"].get<int>(), c.interp["baseline"].get<int>(), -1});
  const std::vector<PathReceiver> through_k{{1, 2, Hook::k}}, through_q{{1, 2, Hook::q}};
  expect_error([&] { path_patching(sweep, {0, 0}, through_k); },
               "path_patching: receivers[0] is layer 1, head 2: a receiver must be a key/value head (0 … 1) of a later layer than the sender's 0 (up to 1)");
  EXPECT_NO_THROW(path_patching(sweep, {0, 0}, through_q));
}

TEST(LlamaInterp, CopyingAndCompositionScoresAgreeWithTheDefinitions) {
  for (const char* name : kInterpFixtures) {
    SCOPED_TRACE(name);
    const InterpCase c = load_case(name);
    const std::vector<double> copying = ov_copying_scores(c.model);
    const auto expected = c.interp["copying_scores"].get<std::vector<double>>();
    ASSERT_EQ(copying.size(), expected.size());
    for (std::size_t i = 0; i < copying.size(); ++i) EXPECT_NEAR(copying[i], expected[i], 1e-4) << "head " << i;
    EXPECT_NEAR(ov_copying_score(c.model, 1, 2), expected[static_cast<std::size_t>(c.model.config().num_heads + 2)], 1e-4);
    // TransformerLens's processing steps (an RMSNorm's: folded without centring), against the fixture's definitions.
    for (const auto& [key, scores] : c.interp["copying_processed"].items()) {
      const CopyingProcessing p{.fold_ln = key.find("foldLn") != std::string::npos,
                                .centre_unembed = key.find("centreUnembed") != std::string::npos};
      const std::vector<double> processed = ov_copying_scores(c.model, p);
      for (std::size_t i = 0; i < processed.size(); ++i) EXPECT_NEAR(processed[i], scores[i].get<double>(), 1e-4) << key << ", head " << i;
    }
    expect_error_containing([&] { ov_copying_scores(c.model, {.centre_writing = true}); }, "centre_writing needs a LayerNorm");
    const CompositionScores composition = composition_scores(c.model, 10, 0);
    ASSERT_EQ(composition.pairs.size(), c.interp["composition"].size());
    for (std::size_t i = 0; i < composition.pairs.size(); ++i) {
      const CompositionPair& p = composition.pairs[i];
      const auto e = c.interp["composition"][i].get<std::vector<double>>();
      EXPECT_EQ(p.from_layer, static_cast<int>(e[0]));
      EXPECT_EQ(p.to_head, static_cast<int>(e[3]));
      EXPECT_NEAR(p.q, e[4], 1e-4);
      EXPECT_NEAR(p.k, e[5], 1e-4);
      EXPECT_NEAR(p.v, e[6], 1e-4);
    }
  }
}

// W_Q·R(Δ)·W_Kᵀ between the first layer's normalised rows is the model's own pre-softmax score times √hd
// (llama_gqa has no q/k biases): the header's claim that RoPE's QK circuit depends on the distance only.
TEST(LlamaInterp, QkCircuitAtADistanceIsTheModelsOwnScore) {
  const InterpCase c = load_case("llama_gqa");
  const LlamaConfig& config = c.model.config();
  HookValues hooks;
  LlamaForwardOptions options;
  options.hooks = &hooks;
  c.model.forward(c.prompt, options);
  const auto point = [&](const std::string& name) -> const Tensor& {
    for (const auto& [n, t] : hooks)
      if (n == name) return t;
    throw std::runtime_error(name);
  };
  const int T = static_cast<int>(c.prompt.size()), d = config.hidden_size;
  const std::vector<float> normalized = point("blocks.0.ln1.hook_normalized").contiguous().to_vector();
  const std::vector<float> scores = point("blocks.0.attn.hook_attn_scores").contiguous().to_vector();
  const auto weight = c.model.tensor_values("model.layers.0.input_layernorm.weight");
  Matrix x(T, d);  // ln1's output: normalised rows times the weight
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < d; ++j) x(i, j) = normalized[static_cast<std::size_t>(i * d + j)] * weight[static_cast<std::size_t>(j)];
  double worst = 0.0;
  for (const int head : {0, 5})
    for (const auto& [query, key] : {std::pair{11, 11}, std::pair{11, 4}, std::pair{7, 0}, std::pair{9, 8}}) {
      const HeadCircuit circuit = head_circuit(c.model, 0, head, query - key);
      const double ours = (x.row(query) * circuit.w_q).dot(x.row(key) * circuit.w_k) / std::sqrt(config.head_dim);
      const double model = scores[static_cast<std::size_t>((head * T + query) * T + key)];
      worst = std::max(worst, std::abs(ours - model) / std::max(1.0, std::abs(model)));
    }
  EXPECT_LT(worst, 1e-5);
  // The same pair at distance 0 is another number (RoPE turned it).
  const HeadCircuit at0 = head_circuit(c.model, 0, 0, 0), at7 = head_circuit(c.model, 0, 0, 7);
  EXPECT_GT((at0.w_q - at7.w_q).cwiseAbs().maxCoeff(), 1e-3);
}

// A hook function that zeroes head 0's hook_z in layer 1 is the forward's own ablation, which the
// reference computes (logits_ablate_1_0); patching a point with its own values changes nothing.
TEST(LlamaInterp, PatchFunctionsReplaceHookPointsByName) {
  for (const char* name : {"llama_gqa", "qwen2_bias", "mistral_window"}) {
    SCOPED_TRACE(name);
    const InterpCase c = load_case(name);
    const int T = static_cast<int>(c.prompt.size());
    LlamaForwardOptions options;
    options.hook_fn = patch_function("test", c.model, {{.name = "blocks.1.attn.hook_z", .source = PatchSource::zero, .heads = {0}}}, T);
    const Matrix ablated = c.model.forward(c.prompt, options).logits;
    const auto& reference = c.expected["logits_ablate_1_0"];
    double worst = 0.0, largest = 1.0;
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < ablated.cols(); ++j) {
        const double r = reference[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)].get<double>();
        worst = std::max(worst, std::abs(ablated(i, j) - r));
        largest = std::max(largest, std::abs(r));
      }
    EXPECT_LE(worst, 1e-4 * largest);

    HookValues kept;
    LlamaForwardOptions keep;
    keep.hooks = &kept;
    const Matrix plain = c.model.forward(c.prompt, keep).logits;
    std::vector<LlamaPatch> same;
    for (const auto& [point, value] : kept)
      if (point.ends_with("hook_pattern") || point.ends_with("hook_attn_scores") || point.ends_with("hook_rot_k"))
        same.push_back({.name = point, .value = value});
    options.hook_fn = patch_function("test", c.model, same, T);
    EXPECT_EQ(c.model.forward(c.prompt, options).logits, plain);
  }
}

TEST(LlamaInterp, BadArgumentsAreRefusedWithTheirRanges) {
  const InterpCase c = load_case("llama_gqa");
  const int V = c.model.config().vocab_size;
  expect_error_containing([&] { logit_lens(c.model, c.prompt, std::vector<int>{12}, 3); }, "logit_lens: position 12 is outside the prompt's positions 0 … 11");
  expect_error_containing([&] { logit_lens(c.model, c.prompt, {}, 0); }, "logit_lens: k must be in 1 … 97 (the vocabulary), got 0");
  expect_error_containing([&] { direct_logit_attribution(c.model, c.prompt, 0, V); }, "direct_logit_attribution: target 97 is outside the vocabulary 0 … 96");
  std::vector<int> shorter(c.prompt.begin(), c.prompt.end() - 1);
  expect_error_containing([&] { LlamaPatchingSweep(c.model, c.prompt, shorter, {1, 2, -1}); },
               "activation_patching: the clean prompt has 12 tokens and the corrupted prompt 11");
  expect_error_containing([&] { LlamaPatchingSweep(c.model, c.prompt, c.prompt, {1, 2, -1}); },
               "activation_patching: the clean and corrupted prompts give the same logit difference");
  const std::vector<int> corrupted = c.interp["patching"]["corrupted"].get<std::vector<int>>();
  const LlamaPatchingSweep sweep(c.model, c.prompt, corrupted, {1, 2, -1});
  expect_error_containing([&] { sweep.grid_shape(PatchWhat::resid_pre, PatchPer::head); }, "per head needs a per-head point");
  expect_error_containing([&] { sweep.layer_cells(PatchWhat::z, PatchPer::head, 2); }, "layer 2 is outside the model's layers 0 … 1");
  expect_error_containing([&] { head_circuit(c.model, 0, 6); }, "head_circuit: layer 0, head 6 is not in the model: layers 0 … 1, heads 0 … 5");
  expect_error_containing([&] { head_circuit(c.model, 0, 0, -1); }, "head_circuit: distance must be ≥ 0");
  expect_error_containing([&] { patch_function("runWithHooks", c.model, {{.name = "blocks.0.attn.hook_rotq", .source = PatchSource::zero}}, 12); },
                          "runWithHooks: unknown hook name \"blocks.0.attn.hook_rotq\" — did you mean \"blocks.0.attn.hook_rot_q\"?");
  expect_error_containing([&] { patch_function("runWithHooks", c.model, {{.name = "blocks.0.attn.hook_k", .source = PatchSource::zero, .heads = {2}}}, 12); },
                          "patch[0] (blocks.0.attn.hook_k) heads holds 2, outside the point's heads 0 … 1");
  expect_error_containing([&] { patch_function("runWithHooks", c.model, {{.name = "blocks.0.hook_resid_pre", .value = Tensor({12, 5}, std::vector<float>(60))}}, 12); },
                          "patch[0] (blocks.0.hook_resid_pre) value has shape (12, 5) but this run's blocks.0.hook_resid_pre has shape (12, 48)");
}

}  // namespace
}  // namespace attnlab
