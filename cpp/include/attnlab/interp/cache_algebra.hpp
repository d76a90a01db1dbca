// TransformerLens's cache algebra on a GPT's ActivationCache: the calls a learner builds the logit lens
// and direct logit attribution from, with TransformerLens's names, arguments and labels (its
// ActivationCache methods for one sequence, the batch dimension left out):
//
//   act_name("pattern", 0)             "blocks.0.attn.hook_pattern"   (utils.get_act_name)
//   head_results(model, cache, 1)      (T, heads, d_model)   blocks.1.attn.hook_result: z·W_O per head, no b_O
//   accumulated_resid                  "0_pre", "0_mid", …, "final_post"      the stream at each point
//   decompose_resid                    "embed", "pos_embed", "0_attn_out", "0_mlp_out", …   what wrote it
//   stack_head_results                 "L0H0", "L0H1", …, ("remainder")       each head's part
//   stack_activation                   one hook point of every layer, stacked (labels: the hook names)
//   apply_ln_to_stack                  each component centred and divided by the cached LayerNorm scale
//   logit_attrs                        each component's part of logit[token] (− logit[incorrect])
//
// Stacks are (components, T, d_model), or (components, d_model) for one position (TransformerLens's
// pos_slice=int). The model's LayerNorms are GPT-2's own (TransformerLens's fold_ln=False layout), so:
// apply_ln_to_stack centres and divides by the cached scale and applies no weight or bias (exactly as
// TransformerLens does); with recompute_ln at the unembed it applies ln_final itself, weight and bias,
// with each component's own statistics (the logit lens: ·wteᵀ gives logit_lens's logits); and
// logit_attrs reads along ln_final.weight ⊙ wte[token] — the residual direction TransformerLens's
// default fold_ln gives — so the parts of decompose_resid() plus ln_final.bias·wte[token] sum to the
// model's logit, and stack_head_results' parts are direct_logit_attribution's head terms.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/interp/hooked_gpt.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// TransformerLens's utils.get_act_name: "pattern", 0 → "blocks.0.attn.hook_pattern"; "k6" → blocks.6.attn.hook_k;
// "scale", 2, "ln1" → blocks.2.ln1.hook_scale; "scale" → ln_final.hook_scale; "embed" → hook_embed; a full
// name (with a dot, or starting hook_) without layer and layer type is returned as it is. layer −1: none.
std::string act_name(std::string_view name, int layer = -1, std::string_view layer_type = {});

// A hook point by full name or get_act_name's short form (with a layer where the point is in a block); an
// Error naming `function` for one the model has not, with the nearest name ("did you mean").
HookPoint resolve_hook(const char* function, std::string_view name, int layer, std::string_view layer_type,
                       const GPTConfig& config);
// A list of names for the points to keep: each a full name, a get_act_name short form with its layer
// ("pattern0", "scale4ln1"), or a short form without one ("resid_pre", "pattern"), which stands for that
// point in every block, as a names filter `name.endswith(...)` would choose them.
std::vector<HookPoint> expand_hook_names(const char* function, std::span<const std::string> names, const GPTConfig& config);

// One position (−1 the last, −2 the one before, …) or every one.
inline constexpr int kAllPositions = std::numeric_limits<int>::min();

struct ResidualStack {
  Tensor stack;                     // (components, T, d_model) or (components, d_model)
  std::vector<std::string> labels;  // one per component
};

enum class DecomposeMode { all, attn, mlp };

// The arguments TransformerLens's methods take; each call reads the ones its comment names.
struct StackOptions {
  int layer = -1;                 // 0 … L, or −1 (= L, up to the unembed)
  bool incl_mid = false;          // accumulated_resid: each earlier block's resid_mid too
  bool mlp_input = false;         // the stream entering layer's MLP rather than its attention (ln2's scale)
  bool apply_ln = false;          // apply_ln_to_stack at `layer` (accumulated_resid at L: recompute_ln)
  bool incl_embeds = true;        // decompose_resid
  DecomposeMode mode = DecomposeMode::all;  // decompose_resid
  bool incl_remainder = false;    // stack_head_results: resid_post[layer − 1] − Σ heads
  int position = kAllPositions;
};

// blocks.{layer}.attn.hook_result (T, heads, d_model): z·W_O of each head, before the output bias
// (hook_attn_out = Σ heads + b_O). Computed from the cached hook_z.
Tensor head_results(const HookedGPT& model, const ActivationCache& cache, int layer);

// layer, incl_mid, mlp_input, apply_ln, position
ResidualStack accumulated_resid(const HookedGPT& model, const ActivationCache& cache, const StackOptions& options = {});
// layer, mlp_input, mode, apply_ln, incl_embeds, position
ResidualStack decompose_resid(const HookedGPT& model, const ActivationCache& cache, const StackOptions& options = {});
// layer (heads of layers before it), incl_remainder, apply_ln, position
ResidualStack stack_head_results(const HookedGPT& model, const ActivationCache& cache, const StackOptions& options = {});
// act_name(name, l, layer_type) for l = 0 … layer − 1, stacked: (layer, …the point's shape). layer −1: every block.
ResidualStack stack_activation(const HookedGPT& model, const ActivationCache& cache, std::string_view name, int layer = -1,
                               std::string_view layer_type = {});

struct LnOptions {
  int layer = -1;          // the LayerNorm read: ln_final (−1 or L), else blocks.{layer}.ln1 (ln2 with mlp_input)
  bool mlp_input = false;
  bool recompute_ln = false;  // at the unembed: ln_final with each component's own statistics, weight and bias
  int position = kAllPositions;  // the position the stack was taken at (its scale is that position's)
};
// stack (components, T, d_model), or (components, d_model) with a position → the same shape.
Tensor apply_ln_to_stack(const HookedGPT& model, const ActivationCache& cache, const Tensor& stack, const LnOptions& options = {});

// stack as apply_ln_to_stack's; tokens one id (every position) or one per position; incorrect_tokens none or as
// many as tokens → (components, T) or (components,): each component, through ln_final with its cached scale,
// read along ln_final.weight ⊙ (wte[token] − wte[incorrect]).
Tensor logit_attrs(const HookedGPT& model, const ActivationCache& cache, const Tensor& stack, std::span<const int> tokens,
                   std::span<const int> incorrect_tokens = {}, int position = kAllPositions);

}  // namespace attnlab
ATTNLAB_API_END
