// The configuration of a Llama-family decoder, read from a Hugging Face config.json as transformers
// reads it for LlamaForCausalLM ("llama"; SmolLM2 is one), Qwen2ForCausalLM ("qwen2") and
// MistralForCausalLM ("mistral"). The family decides only how the file's fields are read (Qwen2 always
// has q/k/v biases and an o_proj without; Mistral's sliding_window applies to every layer, Qwen2's only
// with use_sliding_window to layers from max_window_layers on); the model never branches on it.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/attention/rotary.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

enum class LlamaFamily { llama, qwen2, mistral };

struct LlamaConfig {
  LlamaFamily family = LlamaFamily::llama;
  int vocab_size = 0;          // V
  int hidden_size = 0;         // d
  int intermediate_size = 0;   // m, the SwiGLU MLP's hidden width
  int num_layers = 0;          // L (num_hidden_layers)
  int num_heads = 0;           // H (num_attention_heads)
  int num_kv_heads = 0;        // Hkv (num_key_value_heads), dividing H: 1 = multi-query, H = multi-head
  int head_dim = 0;            // hd (config's head_dim, else d / H)
  float rms_norm_eps = 1e-6f;
  RopeConfig rope;             // theta and scaling; rope.head_dim == head_dim
  int max_position_embeddings = 2048;  // the context it was trained for (longer inputs are allowed)
  bool tie_word_embeddings = false;    // logits use embed_tokens (no lm_head.weight in the file)
  bool qkv_bias = false;       // q_proj, k_proj, v_proj have biases (Llama's attention_bias; Qwen2: always)
  bool o_bias = false;         // o_proj has a bias (Llama's attention_bias; never in Qwen2)
  bool mlp_bias = false;       // gate_proj, up_proj, down_proj have biases (Llama's mlp_bias)
  int sliding_window = 0;      // 0: none; w: a query sees its own key and the w − 1 before it
  int first_window_layer = 0;  // the window applies to layers first_window_layer … L − 1

  int group_size() const { return num_kv_heads > 0 ? num_heads / num_kv_heads : 0; }  // query heads per kv head
  int window(int layer) const { return sliding_window > 0 && layer >= first_window_layer ? sliding_window : 0; }
  std::string_view model_type() const;  // "llama", "qwen2", "mistral"
  std::int64_t parameter_count() const;
  // What a KV cache keeps per token, in bytes of float32: keys and values of every layer's key/value heads,
  // 2·L·Hkv·hd·4 (not 2·L·H·hd·4: the saving grouped-query attention exists for).
  std::int64_t kv_cache_bytes_per_token() const;
};

// config.json's text → the config. Errors name the field: a model_type other than the three (naming it
// and the supported list), a missing or non-integer size, num_attention_heads not divisible by
// num_key_value_heads, an odd head_dim, a rope_scaling type other than llama3 (or "default"), a
// hidden_act other than silu, parameters beyond the memory budget (their size in GiB).
LlamaConfig llama_config_from_json(std::string_view config_json);

// The same checks on a config built in code; `function` names the caller in the message.
void check_llama_config(const char* function, const LlamaConfig& config);

// The config as Hugging Face's config.json for its family (what a saved checkpoint carries).
std::string llama_config_to_json(const LlamaConfig& config);

}  // namespace attnlab
ATTNLAB_API_END
