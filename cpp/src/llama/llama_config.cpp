#include "attnlab/llama/llama_config.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "attnlab/tensor/limits.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

using json = nlohmann::json;
constexpr const char* kFrom = "llama_config_from_json";

int integer_field(const json& c, const char* name) {
  if (!c.contains(name)) detail::fail(kFrom, "config.json has no \"", name, "\"");
  const json& v = c.at(name);
  if (!v.is_number_integer()) detail::fail(kFrom, "config.json's \"", name, "\" is ", v.dump(), ", not an integer");
  const auto value = v.get<std::int64_t>();
  if (value < 1 || value > (1 << 30)) detail::fail(kFrom, "config.json's \"", name, "\" = ", value, " is not in 1 … 2^30");
  return static_cast<int>(value);
}

double number_field(const json& c, const char* name, double fallback) {
  if (!c.contains(name) || c.at(name).is_null()) return fallback;
  if (!c.at(name).is_number()) detail::fail(kFrom, "config.json's \"", name, "\" is ", c.at(name).dump(), ", not a number");
  return c.at(name).get<double>();
}

bool bool_field(const json& c, const char* name, bool fallback) {
  if (!c.contains(name) || c.at(name).is_null()) return fallback;
  if (!c.at(name).is_boolean()) detail::fail(kFrom, "config.json's \"", name, "\" is ", c.at(name).dump(), ", not true or false");
  return c.at(name).get<bool>();
}

}  // namespace

std::string_view LlamaConfig::model_type() const {
  switch (family) {
    case LlamaFamily::qwen2: return "qwen2";
    case LlamaFamily::mistral: return "mistral";
    default: return "llama";
  }
}

std::int64_t LlamaConfig::parameter_count() const {
  const std::int64_t V = vocab_size, d = hidden_size, m = intermediate_size, H = num_heads, Hkv = num_kv_heads,
                     hd = head_dim;
  const std::int64_t attention = d * H * hd * 2 + d * Hkv * hd * 2 + (qkv_bias ? (H + 2 * Hkv) * hd : 0) + (o_bias ? d : 0);
  const std::int64_t mlp = 3 * d * m + (mlp_bias ? 2 * m + d : 0);
  return V * d * (tie_word_embeddings ? 1 : 2) + num_layers * (attention + mlp + 2 * d) + d;
}

std::int64_t LlamaConfig::kv_cache_bytes_per_token() const {
  return 2LL * num_layers * num_kv_heads * head_dim * static_cast<std::int64_t>(sizeof(float));
}

void check_llama_config(const char* fn, const LlamaConfig& c) {
  detail::require_positive(fn, "vocab_size", c.vocab_size);
  detail::require_positive(fn, "hidden_size", c.hidden_size);
  detail::require_positive(fn, "intermediate_size", c.intermediate_size);
  detail::require_positive(fn, "num_hidden_layers", c.num_layers);
  detail::require_positive(fn, "num_attention_heads", c.num_heads);
  detail::require_positive(fn, "num_key_value_heads", c.num_kv_heads);
  detail::require_positive(fn, "head_dim", c.head_dim);
  if (c.num_heads % c.num_kv_heads != 0)
    detail::fail(fn, "num_attention_heads = ", c.num_heads, " is not divisible by num_key_value_heads = ", c.num_kv_heads,
                 " (each key/value head serves a whole group of query heads)");
  if (c.head_dim % 2 != 0) detail::fail(fn, "head_dim = ", c.head_dim, " is odd: RoPE turns dimensions in pairs");
  if (c.rope.head_dim != c.head_dim) detail::fail(fn, "rope.head_dim = ", c.rope.head_dim, " differs from head_dim = ", c.head_dim);
  if (!(c.rms_norm_eps > 0.0f)) detail::fail(fn, "rms_norm_eps = ", c.rms_norm_eps, " must be positive");
  if (c.sliding_window < 0) detail::fail(fn, "sliding_window = ", c.sliding_window, " is negative");
  rope_frequencies(c.rope);  // checks theta and the scaling
  // The parameter count in double: sizes near 2^30 must be refused here, not overflow first.
  const double V = c.vocab_size, d = c.hidden_size, m = c.intermediate_size, H = c.num_heads, Hkv = c.num_kv_heads,
               hd = c.head_dim;
  const double count = V * d * (c.tie_word_embeddings ? 1 : 2) + c.num_layers * (2 * d * H * hd + 2 * d * Hkv * hd + 3 * d * m);
  const auto gib = [](double bytes) { return std::round(bytes / (1024.0 * 1024.0 * 1024.0) * 1000.0) / 1000.0; };
  if (count * 4.0 > static_cast<double>(memory_budget()))
    detail::fail(fn, "the parameters need ", gib(count * 4.0), " GiB as float32, more than the memory budget of ",
                 gib(static_cast<double>(memory_budget())), " GiB (set_memory_budget raises it)");
}

LlamaConfig llama_config_from_json(std::string_view text) {
  json c;
  try {
    c = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    detail::fail(kFrom, "config.json is not JSON: ", e.what());
  }
  if (!c.is_object()) detail::fail(kFrom, "config.json is not a JSON object");
  if (!c.contains("model_type") || !c.at("model_type").is_string())
    detail::fail(kFrom, "config.json has no \"model_type\" (supported: llama, qwen2, mistral)");
  const std::string type = c.at("model_type").get<std::string>();
  LlamaConfig cfg;
  if (type == "llama") cfg.family = LlamaFamily::llama;
  else if (type == "qwen2") cfg.family = LlamaFamily::qwen2;
  else if (type == "mistral") cfg.family = LlamaFamily::mistral;
  else detail::fail(kFrom, "model_type \"", type, "\" is not supported (supported: llama, qwen2, mistral; gpt2 loads as a GPT)");
  if (c.contains("hidden_act") && c.at("hidden_act") != "silu")
    detail::fail(kFrom, "hidden_act ", c.at("hidden_act").dump(), " is not supported (the family's MLP is SwiGLU: \"silu\")");

  cfg.vocab_size = integer_field(c, "vocab_size");
  cfg.hidden_size = integer_field(c, "hidden_size");
  cfg.intermediate_size = integer_field(c, "intermediate_size");
  cfg.num_layers = integer_field(c, "num_hidden_layers");
  cfg.num_heads = integer_field(c, "num_attention_heads");
  cfg.num_kv_heads = c.contains("num_key_value_heads") && !c.at("num_key_value_heads").is_null()
                         ? integer_field(c, "num_key_value_heads") : cfg.num_heads;
  if (c.contains("head_dim") && !c.at("head_dim").is_null()) {
    cfg.head_dim = integer_field(c, "head_dim");
  } else {
    if (cfg.hidden_size % cfg.num_heads != 0)
      detail::fail(kFrom, "hidden_size = ", cfg.hidden_size, " is not divisible by num_attention_heads = ", cfg.num_heads,
                   " and config.json gives no head_dim");
    cfg.head_dim = cfg.hidden_size / cfg.num_heads;
  }
  cfg.rms_norm_eps = static_cast<float>(number_field(c, "rms_norm_eps", 1e-6));
  cfg.max_position_embeddings = c.contains("max_position_embeddings") ? integer_field(c, "max_position_embeddings") : 2048;
  cfg.tie_word_embeddings = bool_field(c, "tie_word_embeddings", false);
  cfg.rope.head_dim = cfg.head_dim;
  cfg.rope.theta = number_field(c, "rope_theta", 10000.0);
  if (c.contains("rope_scaling") && !c.at("rope_scaling").is_null()) {
    const json& s = c.at("rope_scaling");
    const std::string kind = s.value("rope_type", s.value("type", std::string("default")));
    if (kind == "llama3") {
      cfg.rope.scaling = {.llama3 = true,
                          .factor = number_field(s, "factor", 8.0),
                          .low_freq_factor = number_field(s, "low_freq_factor", 1.0),
                          .high_freq_factor = number_field(s, "high_freq_factor", 4.0),
                          .original_max_position_embeddings = number_field(s, "original_max_position_embeddings", 8192.0)};
    } else if (kind != "default") {
      detail::fail(kFrom, "rope_scaling of type \"", kind, "\" is not supported (supported: llama3, default)");
    }
  }
  const bool attention_bias = bool_field(c, "attention_bias", false);
  cfg.mlp_bias = bool_field(c, "mlp_bias", false);
  switch (cfg.family) {
    case LlamaFamily::llama:
      cfg.qkv_bias = cfg.o_bias = attention_bias;
      break;
    case LlamaFamily::qwen2:  // Qwen2Attention: q, k, v with bias, o_proj without
      cfg.qkv_bias = true;
      if (bool_field(c, "use_sliding_window", false) && c.contains("sliding_window") && !c.at("sliding_window").is_null()) {
        cfg.sliding_window = integer_field(c, "sliding_window");
        cfg.first_window_layer = c.contains("max_window_layers") ? integer_field(c, "max_window_layers") : cfg.num_layers;
      }
      break;
    case LlamaFamily::mistral:
      if (c.contains("sliding_window") && !c.at("sliding_window").is_null()) cfg.sliding_window = integer_field(c, "sliding_window");
      break;
  }
  check_llama_config(kFrom, cfg);
  return cfg;
}

std::string llama_config_to_json(const LlamaConfig& c) {
  static constexpr const char* kArchitectures[] = {"LlamaForCausalLM", "Qwen2ForCausalLM", "MistralForCausalLM"};
  json j = {{"architectures", {kArchitectures[static_cast<int>(c.family)]}},
            {"model_type", c.model_type()},
            {"vocab_size", c.vocab_size},
            {"hidden_size", c.hidden_size},
            {"intermediate_size", c.intermediate_size},
            {"num_hidden_layers", c.num_layers},
            {"num_attention_heads", c.num_heads},
            {"num_key_value_heads", c.num_kv_heads},
            {"head_dim", c.head_dim},
            {"hidden_act", "silu"},
            {"max_position_embeddings", c.max_position_embeddings},
            {"rms_norm_eps", c.rms_norm_eps},
            {"rope_theta", c.rope.theta},
            {"tie_word_embeddings", c.tie_word_embeddings}};
  if (c.rope.scaling.llama3) {
    const RopeScaling& s = c.rope.scaling;
    j["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", s.factor}, {"low_freq_factor", s.low_freq_factor},
                         {"high_freq_factor", s.high_freq_factor},
                         {"original_max_position_embeddings", s.original_max_position_embeddings}};
  }
  if (c.family == LlamaFamily::llama) {
    j["attention_bias"] = c.qkv_bias;
    j["mlp_bias"] = c.mlp_bias;
  }
  if (c.family == LlamaFamily::mistral) j["sliding_window"] = c.sliding_window > 0 ? json(c.sliding_window) : json(nullptr);
  if (c.family == LlamaFamily::qwen2) {
    j["use_sliding_window"] = c.sliding_window > 0;
    j["sliding_window"] = c.sliding_window > 0 ? json(c.sliding_window) : json(nullptr);
    j["max_window_layers"] = c.first_window_layer;
  }
  return j.dump(2);
}

}  // namespace attnlab
