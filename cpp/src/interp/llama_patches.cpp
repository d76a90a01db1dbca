// Patches at a Llama's hook points by name: their shapes and the hook function that writes them.
#include <cmath>
#include <limits>
#include <memory>

#include "attnlab/interp/llama_interp.hpp"
#include "interp/hook_names.hpp"
#include "interp/patch_entries.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

// Where a point keeps its heads: H query heads, Hkv key/value heads, or none; square: (H, T, T).
PatchLayout layout_of(const std::string& name, const LlamaConfig& c) {
  const auto is = [&](const char* kind) { return name.ends_with(kind); };
  if (is("attn.hook_attn_scores") || is("attn.hook_pattern")) return {c.num_heads, c.head_dim, true};
  if (is("attn.hook_q") || is("attn.hook_rot_q") || is("attn.hook_z")) return {c.num_heads, c.head_dim, false};
  if (is("attn.hook_k") || is("attn.hook_v") || is("attn.hook_rot_k")) return {c.num_kv_heads, c.head_dim, false};
  return {};
}

// Finite values; at hook_attn_scores −∞ as well (a blocked key's score, which softmax turns into 0).
bool usable_values(const Tensor& value, bool scores) {
  for (const float v : value.contiguous().to_vector())
    if (!std::isfinite(v) && !(scores && v == -std::numeric_limits<float>::infinity())) return false;
  return true;
}

}  // namespace

Shape llama_hook_shape(const char* fn, const Llama& model, const std::string& name, int T) {
  const LlamaConfig& c = model.config();
  if (!model.has_hook(name))
    detail::fail(fn, "unknown hook name \"", name, "\"", did_you_mean(name, model.hook_names()), " The model's hook points are ",
                 "hook_embed, ln_final.hook_scale, ln_final.hook_normalized and blocks.{l}.<name> for l = 0 … ",
                 c.num_layers - 1, " (Llama::hook_names lists them)");
  const PatchLayout layout = layout_of(name, c);
  if (layout.square) return {c.num_heads, T, T};
  if (layout.heads > 0) return {T, layout.heads, c.head_dim};
  if (name.ends_with("hook_scale")) return {T, 1};
  if (name.find(".mlp.") != std::string::npos) return {T, c.intermediate_size};
  return {T, c.hidden_size};
}

HookFunction patch_function(const char* fn, const Llama& model, std::vector<LlamaPatch> patches, int T) {
  const LlamaConfig& c = model.config();
  for (std::size_t i = 0; i < patches.size(); ++i) {
    const LlamaPatch& patch = patches[i];
    const std::string where = "patch[" + std::to_string(i) + "] (" + patch.name + ")";
    const Shape shape = llama_hook_shape(fn, model, patch.name, T);
    if (patch.source == PatchSource::value && patch.value.shape() != shape)
      detail::fail(fn, where, " value has shape ", shape_text(patch.value.shape()), " but this run's ", patch.name,
                   " has shape ", shape_text(shape));
    if (patch.source == PatchSource::value && !usable_values(patch.value, patch.name.ends_with("hook_attn_scores")))
      detail::fail(fn, where, " value holds NaN or ±∞", patch.name.ends_with("hook_attn_scores") ? " (−∞ only where a key is blocked)" : "");
    for (const int position : patch.positions)
      if (position < 0 || position >= T) detail::fail(fn, where, " positions holds ", position, ", outside the sequence 0 … ", T - 1);
    const PatchLayout layout = layout_of(patch.name, c);
    if (!patch.heads.empty() && layout.heads == 0)
      detail::fail(fn, where, " chooses heads, but ", patch.name, " is not a per-head point (hook_q, hook_k, hook_v, ",
                   "hook_rot_q, hook_rot_k, hook_attn_scores, hook_pattern, hook_z)");
    for (const int head : patch.heads)
      if (head < 0 || head >= layout.heads)
        detail::fail(fn, where, " heads holds ", head, ", outside the point's heads 0 … ", layout.heads - 1);
  }
  auto shared = std::make_shared<const std::vector<LlamaPatch>>(std::move(patches));
  return [shared, c, T](const std::string& name, Matrix& value) {
    for (const LlamaPatch& patch : *shared)
      if (patch.name == name) write_patch(patch.source, patch.value, patch.positions, patch.heads, layout_of(name, c), value, T);
  };
}

}  // namespace attnlab
