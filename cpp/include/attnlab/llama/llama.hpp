// A Llama-family decoder (Llama 2 and 3, SmolLM2, Qwen2 and Qwen2.5, Mistral), computed as Hugging
// Face's LlamaForCausalLM computes it, from a checkpoint as Hugging Face saves one:
//
//   x = embed_tokens[ids]                                                  [T×d]   no position embedding
//   for each layer:
//     h = input_layernorm(x)                                               RMSNorm: x/√(mean(x²) + eps)·w
//     q, k, v = q_proj(h), k_proj(h), v_proj(h)                            [T×H·hd], [T×Hkv·hd] twice
//     q, k = RoPE(q), RoPE(k) at positions 0 … T−1                         rotary.hpp: HF's rotate_half pairing
//     z = grouped_attention(q, k, v)                                       [T×H·hd] causal, window if configured
//     x = x + o_proj(z)
//     h = post_attention_layernorm(x)
//     x = x + down_proj(silu(gate_proj(h)) ⊙ up_proj(h))                   SwiGLU, [T×m] inside
//   logits = norm(x)·lm_headᵀ                                              lm_head = embed_tokens when tied
//
// Weights keep nn.Linear's layout ([out×in], y = x·Wᵀ + b) and Hugging Face's names
// ("model.layers.0.self_attn.q_proj.weight", …, "model.norm.weight", "lm_head.weight"), each tensor in
// its own buffer. A matrix read from a BF16 file stays BF16 in memory (half the bytes; every product
// widens it exactly as it reads it, so the numbers are those of the same weights in float32); every other
// tensor is float32.
//
// The hook points a forward can keep are TransformerLens's for this family (one sequence, batch left out):
//   hook_embed (T, d); per block blocks.{l}.:
//   hook_resid_pre (T, d), ln1.hook_scale (T, 1) = √(mean(x²) + eps), ln1.hook_normalized (T, d) = x / scale
//   (TransformerLens's RMSNorm hooks before the weight multiplies), attn.hook_q (T, H, hd),
//   attn.hook_k and attn.hook_v (T, Hkv, hd) — one per key/value head, not repeated per query head —,
//   attn.hook_rot_q (T, H, hd), attn.hook_rot_k (T, Hkv, hd) (after RoPE), attn.hook_attn_scores and
//   attn.hook_pattern (H, T, T) (−∞ and 0 where blocked), attn.hook_z (T, H, hd), hook_attn_out,
//   hook_resid_mid, ln2.hook_scale, ln2.hook_normalized, mlp.hook_pre (gate_proj's output, before
//   SiLU) and mlp.hook_pre_linear (up_proj's) (T, m), mlp.hook_post (T, m) = silu(pre)·pre_linear,
//   hook_mlp_out, hook_resid_post (T, d); then ln_final.hook_scale, ln_final.hook_normalized.
//
// Files: llama_config.cpp (config.json), llama.cpp (weights, forward), llama_loader.cpp (a checkpoint
// streamed in, shards), llama_checkpoint.cpp (from bytes, from a folder, to safetensors), llama_session.cpp
// (the KV cache, attention sinks, generation).
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/attention/grouped_attention.hpp"
#include "attnlab/attention/rotary.hpp"
#include "attnlab/gpt/gpt.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/llama/llama_config.hpp"
#include "attnlab/tensor/matrix.hpp"
#include "attnlab/tensor/tensor.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct LlamaTensorSlot {
  std::string name;                 // Hugging Face's: "model.layers.0.mlp.gate_proj.weight"
  std::vector<std::int64_t> shape;  // [out, in] for a projection, [V, d] for embed_tokens, [n] for a vector
  std::size_t size = 0;             // values
  DType stored = DType::F32;        // how the model keeps it: F32, or BF16 (a matrix read from a BF16 file)
};

// Kept hook points, in forward order: TransformerLens's name and its tensor in TransformerLens's shape.
using HookValues = std::vector<std::pair<std::string, Tensor>>;
// A TransformerLens hook function: called with a point's name and its value before the forward uses it
// (a (T, H, hd) point as [T × H·hd], (H, T, T) as [H·T × T], the rest as their shape); a function that
// changes the value changes the rest of the run — that is how a point is patched or ablated.
using HookFunction = std::function<void(const std::string& name, Matrix& value)>;

struct LlamaForwardOptions {
  bool attention = false;              // also return every head's weights
  std::vector<HeadAblation> ablate;    // heads whose output (hook_z) is knocked out
  AblationMode ablation = AblationMode::zero;
  LogitRows logits = LogitRows::all;
  int first_position = 0;              // RoPE position of the first token (a prompt shifted along)
  HookValues* hooks = nullptr;         // receives every hook point (above) when given
  HookFunction hook_fn;                // called at every hook point (above) when given, before `hooks` keeps it
};

struct LlamaOutput {
  Matrix logits;                                // [T×V] (or [1×V], [0×V] by options.logits)
  std::vector<std::vector<Matrix>> attention;   // [layer][head] → [T×T] (when asked)
};

class Llama {
 public:
  explicit Llama(const LlamaConfig& config);  // every weight 0 (to load into), norms 0 too
  // Hugging Face's initialisation from a seed: every matrix normal(0, 0.02) (o_proj and down_proj
  // 0.02/√(2L), as GPT-2 scales the projections into the residual stream), norms 1, biases 0.
  Llama(const LlamaConfig& config, std::uint64_t seed);

  // A checkpoint folder as Hugging Face saves it: `files` maps file names to their bytes and must hold
  // config.json and either model.safetensors or model.safetensors.index.json with every shard it names
  // (llama_loader.hpp says what is checked). F32, F16 and BF16 tensors.
  static Llama from_files(const std::map<std::string, std::span<const std::uint8_t>>& files);
  // The same folder on disk, each .safetensors file read 4 MiB at a time: the load needs the weights'
  // memory, not the files' too. Other files in it (tokenizer.json, README.md, …) are not read.
  static Llama from_folder(const std::filesystem::path& folder);
  // The same with the config given and the weights in one or more .safetensors files' bytes (named
  // files[0], files[1] … in messages).
  static Llama from_safetensors(const LlamaConfig& config, std::span<const std::span<const std::uint8_t>> files);
  // The weights as one .safetensors file (HF's names; lm_head.weight left out when tied, as HF saves).
  std::vector<std::uint8_t> to_safetensors(DType dtype = DType::F32) const;

  const LlamaConfig& config() const { return config_; }
  std::int64_t parameter_count() const;
  // The bytes the weights take in memory: 4 per value, 2 per value of a tensor kept as BF16.
  std::int64_t weight_bytes() const;
  const std::vector<LlamaTensorSlot>& tensors() const { return slots_; }
  const LlamaTensorSlot& tensor(std::string_view name) const;  // Error if no tensor has that name
  // A tensor's values in float32 (a copy; BF16 widened exactly), flat in row-major order.
  std::vector<float> tensor_values(std::string_view name) const;
  // The same as a matrix: [out×in] for a projection, [V×d] for an embedding, [1×n] for a vector.
  Matrix tensor_matrix(std::string_view name) const;
  // Stores the values as float32 (a tensor kept as BF16 becomes float32). Error naming it on a size or NaN.
  void load_tensor(std::string_view name, std::span<const float> values);

  // ids [T], T ≥ 1, each < V → logits (and attention, hooks, ablations as asked).
  LlamaOutput forward(std::span<const int> ids, const LlamaForwardOptions& options = {}) const;
  // Every hook point's name, in the order a forward reaches them (the names above).
  std::vector<std::string> hook_names() const;
  bool has_hook(std::string_view name) const;  // one of hook_names(), without listing them
  // Residual-stream rows [n×d] → logits [n×V]: model.norm with each row's own scale, then lm_head (the
  // logit lens; a final hook_resid_post row gives the model's own logits).
  Matrix unembed(const Matrix& resid) const;

 private:
  friend class LlamaSession;
  friend class LlamaLoader;
  struct LayerSlots {  // indices into slots_ (−1: absent)
    int input_norm, q, q_bias, k, k_bias, v, v_bias, o, o_bias, post_norm, gate, gate_bias, up, up_bias, down, down_bias;
  };
  // What finish_block() needs besides the layer's attention output.
  // Where a forward's hook points go: a hook function sees each first, then `keep` stores it.
  struct HookSite {
    HookValues* keep = nullptr;
    const HookFunction* fn = nullptr;
    bool active() const { return keep || fn; }
    void operator()(const std::string& name, Matrix& value, Shape shape) const;
  };
  struct BlockStep {
    int layer = 0;
    const std::vector<HeadAblation>* ablate = nullptr;
    AblationMode ablation = AblationMode::zero;
    const HookSite* hooks = nullptr;
  };
  // Each tensor's values: `f32`, or `bf16` when its slot is stored BF16 (the other empty).
  struct Storage {
    std::vector<float> f32;
    std::vector<std::uint16_t> bf16;
  };
  struct Unallocated {};  // LlamaLoader's: the slots laid out, each buffer made when its tensor's dtype is known
  Llama(const LlamaConfig& config, Unallocated);
  void lay_out();
  // Makes slot's buffer for values of `stored` (F32 or BF16), zeroed; → its bytes.
  std::uint8_t* allocate(int slot, DType stored);
  // x [n×in] → x·Wᵀ [n×out] for the matrix in `slot`, whichever way it is stored.
  Matrix times_transposed(const Matrix& x, int slot) const;
  // embed_tokens' rows for ids [n] → [n×d]
  Matrix embed_rows(std::span<const int> ids) const;
  Eigen::Map<const Eigen::RowVectorXf> vector(int slot) const;  // a float32 vector (a norm or a bias)
  // x [n×in] → x·Wᵀ + b [n×out] for the projection in `slot` (and `bias_slot` unless −1).
  Matrix project(const Matrix& x, int slot, int bias_slot) const;
  // x [n×d] → RMSNorm(x)·w; with `hooks`, passes <prefix>.hook_scale and .hook_normalized through them.
  Matrix rms_norm(const Matrix& x, int weight_slot, const HookSite* hooks, const std::string& prefix) const;
  // q, k, v of x's rows for layer l: q [n×H·hd], k, v [n×Hkv·hd], not rotated.
  void qkv(int layer, const Matrix& h, Matrix& q, Matrix& k, Matrix& v) const;
  // The rest of block step.layer once attention is done: z [n×H·hd] (ablated here) → x += o_proj(z),
  // then x += MLP(post_attention_layernorm(x)).
  void finish_block(Matrix& x, Matrix& z, const BlockStep& step) const;
  // The attention's two (H, T, T) points through `hooks`; a changed score recomputes the pattern, a
  // changed pattern recomputes z (and the weights a forward returns).
  void pass_attention_hooks(const std::string& block, const Matrix& v, const GroupedAttentionShape& shape,
                            std::vector<Matrix>& scores, std::vector<Matrix>& weights, Matrix& z, const HookSite& hooks) const;
  Matrix logits(const Matrix& normalized) const;  // [n×d] → [n×V]

  LlamaConfig config_;
  std::vector<LlamaTensorSlot> slots_;
  std::vector<LayerSlots> layers_;
  int embed_ = 0, norm_ = 0, lm_head_ = -1;
  std::vector<double> frequencies_;  // RoPE's θ_i
  std::vector<Storage> storage_;      // per slot
};

}  // namespace attnlab
ATTNLAB_API_END
