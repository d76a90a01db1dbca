// The Llama family against scripts/llama/model.py in float64 (tests/fixtures/make_llama_fixtures.py):
// random checkpoints in Hugging Face's layout for a GQA Llama with Llama 3's rope_scaling, a Qwen2.5-shaped
// model with biases, a Mistral whose window is shorter than the prompt, and a sharded multi-head Llama.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "attnlab/attention/positional.hpp"
#include "attnlab/attention/rotary.hpp"
#include "attnlab/llama/llama.hpp"
#include "attnlab/llama/llama_session.hpp"
#include "attnlab/tensor/limits.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"
#include "llama_fixture.hpp"

namespace attnlab {
namespace {

using testing::fixture_bytes;
using testing::fixture_json;

const char* const kLlamaFixtures[] = {"llama_gqa", "qwen2_bias", "mistral_window", "llama_mha_sharded"};

// |ours − reference| ≤ tolerance · max(1, max |reference|) for every entry: the issue's 1e-4 relative.
void expect_llama_rows_near(const Matrix& ours, const nlohmann::json& reference, double tolerance, const std::string& what) {
  ASSERT_EQ(static_cast<std::size_t>(ours.rows()), reference.size()) << what;
  double largest = 1.0, worst = 0.0;
  for (const auto& row : reference)
    for (double v : row) largest = std::max(largest, std::abs(v));
  for (Eigen::Index i = 0; i < ours.rows(); ++i) {
    ASSERT_EQ(static_cast<std::size_t>(ours.cols()), reference[static_cast<std::size_t>(i)].size()) << what;
    for (Eigen::Index j = 0; j < ours.cols(); ++j)
      worst = std::max(worst, std::abs(static_cast<double>(ours(i, j)) - reference[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)].get<double>()));
  }
  EXPECT_LE(worst, tolerance * largest) << what << ": largest difference " << worst << " against entries up to " << largest;
}

std::vector<int> llama_ints(const nlohmann::json& j) { return j.get<std::vector<int>>(); }

TEST(Llama, ConfigReadsEachFamilysFields) {
  const LlamaConfig gqa = llama_config_from_json(R"({"model_type": "llama", "vocab_size": 97, "hidden_size": 48,
      "intermediate_size": 80, "num_hidden_layers": 2, "num_attention_heads": 6, "num_key_value_heads": 2})");
  EXPECT_EQ(gqa.head_dim, 8);
  EXPECT_EQ(gqa.group_size(), 3);
  EXPECT_FALSE(gqa.qkv_bias);
  EXPECT_EQ(gqa.kv_cache_bytes_per_token(), 2 * 2 * 2 * 8 * 4);
  const LlamaConfig qwen = llama_config_from_json(R"({"model_type": "qwen2", "vocab_size": 10, "hidden_size": 8,
      "intermediate_size": 8, "num_hidden_layers": 4, "num_attention_heads": 2, "num_key_value_heads": 1,
      "use_sliding_window": true, "sliding_window": 3, "max_window_layers": 2})");
  EXPECT_TRUE(qwen.qkv_bias);
  EXPECT_FALSE(qwen.o_bias);
  EXPECT_EQ(qwen.window(1), 0);
  EXPECT_EQ(qwen.window(2), 3);
  const LlamaConfig mistral = llama_config_from_json(R"({"model_type": "mistral", "vocab_size": 10, "hidden_size": 8,
      "intermediate_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "sliding_window": 4})");
  EXPECT_EQ(mistral.num_kv_heads, 2);  // absent: multi-head
  EXPECT_EQ(mistral.window(0), 4);
}

TEST(Llama, SmolLM2ConfigCountsParametersAndCache) {
  // 538 MB of float32 parameters: over the default budget of 512 MiB, which refuses the config by name.
  expect_error_containing([] { llama_config_from_json(R"({"model_type": "llama", "vocab_size": 49152, "hidden_size": 576,
      "intermediate_size": 1536, "num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3,
      "tie_word_embeddings": true})"); }, "the parameters need 0.501 GiB as float32, more than the memory budget of 0.5 GiB");
  set_memory_budget(std::size_t{1} << 30);
  // SmolLM2-135M: 134,515,008 parameters (tied), 30 layers × 3 key/value heads × 64 dims × K and V × 4 bytes.
  const LlamaConfig c = llama_config_from_json(R"({"model_type": "llama", "vocab_size": 49152, "hidden_size": 576,
      "intermediate_size": 1536, "num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3,
      "rms_norm_eps": 1e-5, "rope_theta": 100000.0, "tie_word_embeddings": true})");
  EXPECT_EQ(c.parameter_count(), 49152LL * 576 + 30LL * (576 * 576 * 2 + 576 * 192 * 2 + 3 * 576 * 1536 + 2 * 576) + 576);
  EXPECT_EQ(c.parameter_count(), 134515008);
  EXPECT_EQ(c.kv_cache_bytes_per_token(), 2 * 30 * 3 * 64 * 4);  // 46,080 bytes; multi-head would need 3×
  set_memory_budget(kDefaultMemoryBudget);
}

TEST(Llama, LogitsMatchTheFloat64Reference) {
  for (const char* name : kLlamaFixtures) {
    const Llama model = load_llama(name);
    const nlohmann::json expected = fixture_json(std::string("llama/") + name + "/expected.json");
    EXPECT_EQ(model.parameter_count(), expected.at("parameter_count").get<std::int64_t>()) << name;
    EXPECT_EQ(model.config().kv_cache_bytes_per_token(), expected.at("kv_cache_bytes_per_token").get<std::int64_t>()) << name;
    const std::vector<int> prompt = llama_ints(expected.at("prompt"));
    expect_llama_rows_near(model.forward(prompt).logits, expected.at("logits"), 1e-4, std::string(name) + " logits");
    LlamaForwardOptions shifted;
    shifted.first_position = 7;
    expect_llama_rows_near(model.forward(prompt, shifted).logits, expected.at("logits_shifted_7"), 1e-4,
                     std::string(name) + " logits at positions 7 …");
    LlamaForwardOptions ablated;
    ablated.ablate = {{.layer = 1, .head = 0}};
    expect_llama_rows_near(model.forward(prompt, ablated).logits, expected.at("logits_ablate_1_0"), 1e-4,
                     std::string(name) + " with head 1.0 knocked out");
  }
}

TEST(Llama, HalfAndBFloat16CheckpointsLoad) {
  const nlohmann::json expected = fixture_json("llama/llama_gqa/expected.json");
  const std::vector<int> prompt = llama_ints(expected.at("prompt"));
  expect_llama_rows_near(load_llama("llama_gqa", "f16").forward(prompt).logits, expected.at("logits_f16"), 1e-4, "F16");
  expect_llama_rows_near(load_llama("llama_gqa", "bf16").forward(prompt).logits, expected.at("logits_bf16"), 1e-4, "BF16");
}

// A BF16 checkpoint keeps its matrices BF16 (half their bytes) and its norms float32, and computes what the
// same weights widened to float32 compute, to the bit: a forward of every length (row dots and, natively,
// the packed GEMM), every hook point, a decode through the cache; load_tensor makes a tensor float32.
TEST(Llama, Bfloat16CheckpointKeepsItsMatricesInBfloat16AndComputesTheSameNumbers) {
  Llama model = load_llama("llama_gqa", "bf16");
  const std::vector<std::uint8_t> widened_file = model.to_safetensors(DType::F32);
  const std::vector<std::span<const std::uint8_t>> files{widened_file};
  const Llama widened = Llama::from_safetensors(model.config(), files);
  std::int64_t f32_bytes = 0, bf16_bytes = 0;
  for (const LlamaTensorSlot& slot : model.tensors()) {
    EXPECT_EQ(slot.stored, slot.shape.size() == 2 ? DType::BF16 : DType::F32) << slot.name;
    EXPECT_EQ(widened.tensor(slot.name).stored, DType::F32) << slot.name;
    (slot.stored == DType::BF16 ? bf16_bytes : f32_bytes) += static_cast<std::int64_t>(slot.size);
    EXPECT_EQ(model.tensor_values(slot.name), widened.tensor_values(slot.name)) << slot.name;
  }
  EXPECT_EQ(model.weight_bytes(), 2 * bf16_bytes + 4 * f32_bytes);
  EXPECT_EQ(widened.weight_bytes(), 4 * model.parameter_count());
  const nlohmann::json expected = fixture_json("llama/llama_gqa/expected.json");
  const std::vector<int> prompt = llama_ints(expected.at("prompt"));
  for (std::size_t T : {std::size_t{1}, std::size_t{2}, std::size_t{5}, prompt.size()}) {
    const std::span<const int> ids(prompt.data(), T);
    HookValues hooks, hooks_widened;
    LlamaForwardOptions options, options_widened;
    options.hooks = &hooks;
    options_widened.hooks = &hooks_widened;
    EXPECT_EQ(model.forward(ids, options).logits, widened.forward(ids, options_widened).logits) << T << " tokens";
    ASSERT_EQ(hooks.size(), hooks_widened.size());
    for (std::size_t i = 0; i < hooks.size(); ++i) EXPECT_EQ(hooks[i].second.to_vector(), hooks_widened[i].second.to_vector()) << hooks[i].first;
  }
  LlamaSession session(model), session_widened(widened);
  EXPECT_EQ(session.append(std::span<const int>(prompt.data(), 4)), session_widened.append(std::span<const int>(prompt.data(), 4)));
  for (std::size_t i = 4; i < prompt.size(); ++i) EXPECT_EQ(session.append(prompt[i]), session_widened.append(prompt[i])) << i;
  const std::string name = "model.layers.0.self_attn.q_proj.weight";
  const std::vector<float> q = model.tensor_values(name);
  model.load_tensor(name, q);
  EXPECT_EQ(model.tensor(name).stored, DType::F32);
  EXPECT_EQ(model.tensor_values(name), q);
}

TEST(Llama, EveryHookPointMatchesTheReference) {
  const Llama model = load_llama("llama_gqa");
  const nlohmann::json expected = fixture_json("llama/llama_gqa/expected.json");
  HookValues hooks;
  LlamaForwardOptions options;
  options.hooks = &hooks;
  model.forward(llama_ints(expected.at("prompt")), options);
  const nlohmann::json& reference = expected.at("hooks");
  ASSERT_EQ(hooks.size(), reference.size());
  for (const auto& [name, tensor] : hooks) {
    ASSERT_TRUE(reference.contains(name)) << name;
    const nlohmann::json& want = reference.at(name);
    EXPECT_EQ(tensor.shape(), want.at("shape").get<Shape>()) << name;
    // A blocked score is null in the JSON: −∞.
    std::vector<double> values;
    for (const auto& v : want.at("values")) values.push_back(v.is_null() ? -std::numeric_limits<double>::infinity() : v.get<double>());
    ASSERT_EQ(static_cast<std::size_t>(tensor.numel()), values.size()) << name;
    double largest = 1.0, worst = 0.0;
    for (double v : values)
      if (std::isfinite(v)) largest = std::max(largest, std::abs(v));
    const Tensor flat = tensor.reshape({tensor.numel()});
    for (std::size_t i = 0; i < values.size(); ++i) {
      const float ours = flat.at({static_cast<std::int64_t>(i)});
      if (!std::isfinite(values[i])) {
        EXPECT_EQ(ours, static_cast<float>(values[i])) << name << "[" << i << "] (blocked)";
        continue;
      }
      worst = std::max(worst, std::abs(static_cast<double>(ours) - values[i]));
    }
    EXPECT_LE(worst, 1e-4 * largest) << name;
  }
}

TEST(Llama, CachedDecodingEqualsTheFullForward) {
  for (const char* name : kLlamaFixtures) {
    const Llama model = load_llama(name);
    const nlohmann::json expected = fixture_json(std::string("llama/") + name + "/expected.json");
    const std::vector<int> prompt = llama_ints(expected.at("prompt"));
    // One token at a time, and the prompt in two pieces: every row is the full forward's.
    LlamaSession one(model), two(model);
    Matrix rows(static_cast<Eigen::Index>(prompt.size()), model.config().vocab_size);
    for (std::size_t i = 0; i < prompt.size(); ++i) rows.row(static_cast<Eigen::Index>(i)) = one.append(prompt[i]);
    expect_llama_rows_near(rows, expected.at("logits"), 1e-4, std::string(name) + " token by token");
    const Matrix first = two.append(std::span<const int>(prompt).first(5));
    const Matrix rest = two.append(std::span<const int>(prompt).subspan(5));
    Matrix both(first.rows() + rest.rows(), first.cols());
    both << first, rest;
    expect_llama_rows_near(both, expected.at("logits"), 1e-4, std::string(name) + " in two pieces");
    EXPECT_EQ(one.cached(), static_cast<int>(prompt.size()));
    EXPECT_EQ(one.cache_bytes(), static_cast<std::int64_t>(prompt.size()) * model.config().kv_cache_bytes_per_token());
    EXPECT_EQ(one.keys(0).cols(), model.config().num_kv_heads * model.config().head_dim);  // kv heads only
    // Greedy generation through the cache = argmax of repeated full forwards.
    GenerateOptions greedy;
    greedy.max_tokens = 6;
    greedy.sampling.temperature = 0.0f;
    EXPECT_EQ(generate(model, prompt, greedy).tokens, llama_ints(expected.at("greedy_6"))) << name;
  }
}

TEST(Llama, AttentionSinksCacheIsStreamingLLMs) {
  for (const char* name : kLlamaFixtures) {
    const Llama model = load_llama(name);
    const nlohmann::json expected = fixture_json(std::string("llama/") + name + "/expected.json");
    const std::vector<int> stream = llama_ints(expected.at("stream"));
    LlamaSession sinks(model, {.sinks = 2, .window = 4}), window(model, {.sinks = 0, .window = 4});
    expect_llama_rows_near(sinks.append(stream), expected.at("stream_sinks_2_window_4"), 1e-4, std::string(name) + " sinks 2 + window 4");
    expect_llama_rows_near(window.append(stream), expected.at("stream_sinks_0_window_4"), 1e-4, std::string(name) + " window 4");
    EXPECT_EQ(sinks.cached(), 6);
    const int n = static_cast<int>(stream.size());
    EXPECT_EQ(sinks.cached_tokens(), (std::vector<int>{0, 1, n - 4, n - 3, n - 2, n - 1}));
    EXPECT_EQ(window.cached_tokens(), (std::vector<int>{n - 4, n - 3, n - 2, n - 1}));
    EXPECT_EQ(sinks.cache_bytes(), 6 * model.config().kv_cache_bytes_per_token());
  }
}

TEST(Llama, CheckpointRoundTripsThroughSafetensors) {
  const Llama model = load_llama("qwen2_bias");
  const std::vector<std::uint8_t> file = model.to_safetensors();
  const std::vector<std::span<const std::uint8_t>> files{file};
  const Llama again = Llama::from_safetensors(model.config(), files);
  EXPECT_TRUE(same_weights(model, again));
  EXPECT_EQ(parse_safetensors(file).find("lm_head.weight"), nullptr);  // tied: left out, as HF saves it
  const LlamaConfig reread = llama_config_from_json(llama_config_to_json(model.config()));
  EXPECT_EQ(reread.parameter_count(), model.config().parameter_count());
  EXPECT_EQ(reread.qkv_bias, true);
  EXPECT_EQ(reread.tie_word_embeddings, true);
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

// The folder with one file replaced (or removed, when `bytes` is empty).
LlamaFolder with_file(LlamaFolder folder, const std::string& name, const std::string& text) {
  if (text.empty()) folder.bytes.erase(name);
  else folder.bytes[name] = std::vector<std::uint8_t>(text.begin(), text.end());
  return folder;
}

TEST(LlamaErrors, NameWhatIsWrongAndLeaveNothingBroken) {
  const LlamaFolder good = read_llama_folder("llama_gqa");
  const auto load_from = [](const LlamaFolder& folder) { return [folder] { Llama::from_files(folder.files()); }; };
  expect_error(load_from(with_file(good, "config.json", R"({"model_type": "gemma2", "vocab_size": 97})")),
               "llama_config_from_json: model_type \"gemma2\" is not supported (supported: llama, qwen2, mistral; gpt2 loads as a GPT)");
  expect_error(load_from(with_file(good, "config.json", R"({"model_type": "llama", "vocab_size": 97, "hidden_size": 48,
      "intermediate_size": 80, "num_hidden_layers": 2, "num_attention_heads": 6, "num_key_value_heads": 4})")),
               "llama_config_from_json: num_attention_heads = 6 is not divisible by num_key_value_heads = 4 (each key/value "
               "head serves a whole group of query heads)");
  expect_error(load_from(with_file(good, "config.json", R"({"model_type": "llama", "vocab_size": 97, "hidden_size": 48,
      "intermediate_size": 80, "num_hidden_layers": 3, "num_attention_heads": 6, "num_key_value_heads": 2,
      "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_position_embeddings": 16}})")),
               "LlamaLoader: the checkpoint has no tensor 'model.layers.2.input_layernorm.weight', which a llama with num_hidden_layers = 3 needs");
  expect_error(load_from(with_file(good, "config.json", R"({"model_type": "llama", "vocab_size": 97, "hidden_size": 48,
      "intermediate_size": 80, "num_hidden_layers": 1, "num_attention_heads": 6, "num_key_value_heads": 2})")),
               "LlamaLoader: the checkpoint's tensor 'model.layers.1.input_layernorm.weight' is not part of a llama "
               "with this config (num_hidden_layers = 1, no q/k/v biases)");
  expect_error(load_from(with_file(good, "config.json", R"({"model_type": "llama", "vocab_size": 97, "hidden_size": 48,
      "intermediate_size": 96, "num_hidden_layers": 2, "num_attention_heads": 6, "num_key_value_heads": 2})")),
               "LlamaLoader: tensor 'model.layers.0.mlp.gate_proj.weight' has shape [80, 48] but this config needs [96, 48]");
  expect_error(load_from(with_file(good, "config.json", R"({"model_type": "llama", "vocab_size": 97, "hidden_size": 48,
      "intermediate_size": 80, "num_hidden_layers": 2, "num_attention_heads": 6, "num_key_value_heads": 2,
      "rope_scaling": {"rope_type": "yarn", "factor": 4.0}})")),
               "llama_config_from_json: rope_scaling of type \"yarn\" is not supported (supported: llama3, default)");
  expect_error(load_from(with_file(good, "model.safetensors", "")),
               "Llama::from_files: neither model.safetensors nor model.safetensors.index.json among the files (given: config.json)");
  LlamaFolder sharded = read_llama_folder("llama_mha_sharded");
  sharded.bytes.erase("model-00002-of-00002.safetensors");
  expect_error_containing(load_from(sharded), ", which is not among the files (given: config.json, model-00001-of-00002.safetensors, "
                                              "model.safetensors.index.json)");
  // The model loaded before the errors still computes.
  const Llama model = Llama::from_files(good.files());
  EXPECT_EQ(model.forward(std::vector<int>{1, 2, 3}).logits.rows(), 3);
  expect_error([&] { model.forward(std::vector<int>{1, 97}); }, "Llama::forward: ids[1] = 97 is outside the vocabulary 0 … 96");
  expect_error([&] { LlamaSession(model, {.sinks = 4, .window = 0}); },
               "LlamaSession: sinks = 4 needs a window > 0 (with window 0 every token is kept anyway)");
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

TEST(Rotary, HalfPairingIsTheInterleavedOneOnPermutedDimensions) {
  // rotary.hpp's claim: Meta's (2i, 2i + 1) pairing (positional.hpp's apply_rotary) and HF's (i, i + hd/2)
  // give the same vectors once dimension 2i is moved to i and 2i + 1 to i + hd/2.
  const int hd = 8, T = 5;
  Matrix x(T, hd);
  for (int r = 0; r < T; ++r)
    for (int c = 0; c < hd; ++c) x(r, c) = static_cast<float>(std::sin(1.7 * r + 0.9 * c));
  const auto to_half = [&](const Matrix& m) {
    Matrix out(m.rows(), hd);
    for (int i = 0; i < hd / 2; ++i) {
      out.col(i) = m.col(2 * i);
      out.col(i + hd / 2) = m.col(2 * i + 1);
    }
    return out;
  };
  std::vector<int> positions(T);
  for (int t = 0; t < T; ++t) positions[static_cast<std::size_t>(t)] = 3 + t;
  Matrix half = to_half(x);
  apply_rotary_half(half, hd, rotary_table(positions, rope_frequencies({.head_dim = hd, .theta = 10000.0})));
  const Matrix interleaved = to_half(apply_rotary(x, 3));
  EXPECT_LE((half - interleaved).cwiseAbs().maxCoeff(), 1e-6f);
}

TEST(Rotary, Llama3ScalingKeepsShortWavesAndSlowsLongOnes) {
  // Llama 3.1's rope_scaling (factor 8, low 1, high 4, original 8192) on hd 128, theta 500,000: pair 0
  // (wavelength 2π) is unchanged, the last pair (wavelength ≈ 2π·500000^(126/128) ≫ 8192) turns 8× slower.
  const RopeConfig plain{.head_dim = 128, .theta = 500000.0};
  RopeConfig scaled = plain;
  scaled.scaling = {.llama3 = true, .factor = 8.0, .low_freq_factor = 1.0, .high_freq_factor = 4.0,
                    .original_max_position_embeddings = 8192.0};
  const std::vector<double> a = rope_frequencies(plain), b = rope_frequencies(scaled);
  EXPECT_DOUBLE_EQ(b[0], a[0]);
  EXPECT_DOUBLE_EQ(b[63], a[63] / 8.0);
  EXPECT_DOUBLE_EQ(a[1], std::pow(500000.0, -2.0 / 128.0));
}

}  // namespace
}  // namespace attnlab
