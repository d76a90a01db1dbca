// The hook points of a GPT's forward, named and shaped as TransformerLens names and shapes them for one
// sequence of T tokens (its batch dimension left out), so code written for a HookedTransformer reads
// the same here:
//
//   hook_embed, hook_pos_embed                       (T, d_model)   wte[ids], wpe[0 … T−1]
//   blocks.{l}.hook_resid_pre                        (T, d_model)   the residual stream entering block l
//   blocks.{l}.ln1.hook_scale                        (T, 1)         √(var + eps) of each row
//   blocks.{l}.ln1.hook_normalized                   (T, d_model)   ln_1's output (weight and bias applied)
//   blocks.{l}.attn.hook_q / hook_k / hook_v         (T, heads, d_head)
//   blocks.{l}.attn.hook_attn_scores                 (heads, T, T)  q·kᵀ/√d_head, −∞ above the diagonal
//   blocks.{l}.attn.hook_pattern                     (heads, T, T)  softmax of each row
//   blocks.{l}.attn.hook_z                           (T, heads, d_head)  pattern·v
//   blocks.{l}.hook_attn_out                         (T, d_model)   z·W_O + b_O
//   blocks.{l}.hook_resid_mid                        (T, d_model)   resid_pre + attn_out
//   blocks.{l}.ln2.hook_scale, ln2.hook_normalized   as ln1's
//   blocks.{l}.mlp.hook_pre, mlp.hook_post           (T, 4·d_model) before and after GELU
//   blocks.{l}.hook_mlp_out                          (T, d_model)
//   blocks.{l}.hook_resid_post                       (T, d_model)   resid_mid + mlp_out
//   ln_final.hook_scale (T, 1), ln_final.hook_normalized (T, d_model)
//
// The LayerNorms are GPT-2's own (weight and bias applied inside hook_normalized): TransformerLens's
// layout when a model is loaded with fold_ln=False.
//
// In memory every hook point is one row-major Matrix whose elements are those of the shape above:
// (T, heads, d_head) is [T×d] (head h in columns h·d_head …), (heads, T, T) is [heads·T × T].
#pragma once

#include "attnlab/tensor/api.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "attnlab/gpt/gpt.hpp"
#include "attnlab/tensor/tensor.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// The kinds of hook point, in the order a forward reaches them.
enum class Hook {
  embed, pos_embed,                                         // before the blocks
  resid_pre, ln1_scale, ln1_normalized, q, k, v, attn_scores, pattern, z, attn_out, resid_mid,
  ln2_scale, ln2_normalized, mlp_pre, mlp_post, mlp_out, resid_post,   // in each block
  ln_final_scale, ln_final_normalized,                      // after the blocks
};
inline constexpr int kHooksPerBlock = static_cast<int>(Hook::resid_post) - static_cast<int>(Hook::resid_pre) + 1;

// One hook point: its kind and, for a block's, the layer (−1 otherwise).
struct HookPoint {
  Hook hook = Hook::embed;
  int layer = -1;
  bool in_block() const { return layer >= 0; }
  // Per-head points, (T, heads, d_head) or (heads, T, T): a patch may choose heads.
  bool per_head() const;
  bool operator==(const HookPoint&) const = default;
};

// Every hook point of a model with `num_layers` blocks, in forward order (2 + 17·L + 2 of them), and
// its place in that order.
int hook_count(int num_layers);
int hook_index(HookPoint point, int num_layers);
HookPoint hook_at(int index, int num_layers);

// "blocks.1.attn.hook_pattern" and back. find_hook throws an Error naming `function` for a name the
// model does not have, with the nearest valid name and the whole list.
std::string hook_name(HookPoint point);
HookPoint find_hook(const char* function, std::string_view name, const GPTConfig& config);

// TransformerLens's shape of the point for one sequence of T tokens, and the [rows×cols] Matrix it is
// kept in (the same elements).
Shape hook_shape(HookPoint point, int T, const GPTConfig& config);
Eigen::Index hook_rows(HookPoint point, int T, const GPTConfig& config);
Eigen::Index hook_cols(HookPoint point, int T, const GPTConfig& config);

}  // namespace attnlab
ATTNLAB_API_END
