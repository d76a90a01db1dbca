// The interpretability experiments on a Llama-family model (llama.hpp) — the logit lens, direct logit
// attribution, activation patching and each head's circuits — with the results the GPT's give
// (logit_lens.hpp, attribution.hpp, patching.hpp, circuits.hpp). They run the Llama's own forward
// with hook functions (LlamaForwardOptions::hook_fn): every number is the model's.
//
// What the family changes:
//  - RMSNorm divides by √(mean(x²) + eps) and neither centres nor adds a bias. The lens reads a point
//    through model.norm (with that point's own scale) and the unembedding (lm_head, or embed_tokens
//    when tied). Attribution freezes the final norm's scale at the run's value, as TransformerLens's
//    apply_ln_to_stack does: the parts — hook_embed, each head (its slice of hook_z through its columns
//    of o_proj), o_proj's bias where the config has one, each hook_mlp_out — are each divided by that
//    scale, multiplied by the norm's weight and read along the unembedding's direction, uncentred;
//    they sum to the model's own logit. There is no position-embedding part: RoPE turns q and k and
//    writes nothing into the residual stream.
//  - hook_k and hook_v hold the key/value heads: patched per head, their grid is (L, Hkv) or
//    (L, T, Hkv), and a cell is one key/value head (every query head of its group reads it).
//  - A head's circuit: W_Q [d×hd] is q_proj's rows of head h, transposed; W_K and W_V those of k_proj
//    and v_proj for the key/value head h reads (h / (H/Hkv)); W_O [hd×d] is o_proj's columns of head
//    h, transposed. The RMSNorm weights are left out, as circuits.hpp leaves LayerNorm out.
//  - RoPE makes the QK circuit depend on the distance. A query at position i and a key at j score
//    rot(q, i)·rot(k, j) = rot(q, Δ)·k with Δ = i − j (the rotations of each pair compose and keep
//    lengths), so the circuit between a query token and a key Δ tokens earlier is W_Q·R(Δ)·W_Kᵀ, R(Δ)
//    turning pair (a, a + hd/2) by Δ·θ_a. head_circuit(…, distance) returns W_Q·R(distance) as w_q;
//    the copying score (OV only) has no distance, and the composition scores use QK at distance 0.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "attnlab/interp/attribution.hpp"
#include "attnlab/interp/circuits.hpp"
#include "attnlab/interp/logit_lens.hpp"
#include "attnlab/interp/patching.hpp"
#include "attnlab/llama/llama.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// A replacement at one of a Llama's hook points (Llama::hook_names()), as a GPT's Patch: the source's
// values (the point's whole TransformerLens shape), zeros or the mean over the run's positions, at the
// chosen positions (all when empty; for (H, T, T) points the query rows) and, at per-head points, the
// chosen heads (all when empty; key/value heads at hook_k, hook_v and hook_rot_k).
struct LlamaPatch {
  std::string name;
  PatchSource source = PatchSource::value;
  Tensor value;
  std::vector<int> positions;
  std::vector<int> heads;
};

// TransformerLens's shape of a Llama hook point in a run of T tokens; Error naming `function` for a name
// the model does not have (with the nearest it has).
Shape llama_hook_shape(const char* function, const Llama& model, const std::string& name, int T);

// The hook function (LlamaForwardOptions::hook_fn) that makes these replacements in a run of T tokens;
// Error naming `function` and the patch for an unknown name, a value of another shape, a NaN, a
// position or head out of range, or heads chosen at a point without heads.
HookFunction patch_function(const char* function, const Llama& model, std::vector<LlamaPatch> patches, int T);

// ids [T]; positions in 0 … T−1 (all when empty); 1 ≤ k ≤ V; target −1 (none) or a token id. Points:
// each block's hook_resid_pre and hook_resid_mid, then the last hook_resid_post (the model's own logits).
LogitLens logit_lens(const Llama& model, std::span<const int> ids, std::span<const int> positions, int k, int target = -1);

// ids [T]; position in 0 … T−1; target a token; baseline −1 (the logit itself) or a token. Terms:
// embed, then per layer its heads (L{l}H{h}), its o_proj bias where there is one (L{l} b_O), its MLP.
Attribution direct_logit_attribution(const Llama& model, std::span<const int> ids, int position, int target,
                                     int baseline = -1);

// The clean and corrupted runs of a sweep, every hook point of the clean run kept (and the corrupted run's
// hook_z, for path patching); each cell runs the corrupted prompt with one point given the clean run's values
// (the whole forward: a Llama's run does not resume from a cache).
class LlamaPatchingSweep {
 public:
  // Error unless the prompts have the same number of tokens and the metric's tokens and position are
  // in range, or when both runs give the same metric.
  LlamaPatchingSweep(const Llama& model, std::span<const int> clean, std::span<const int> corrupted, LogitDiffMetric metric);

  double clean_metric() const { return clean_metric_; }
  double corrupted_metric() const { return corrupted_metric_; }
  const LogitDiffMetric& metric() const { return metric_; }
  // As PatchingSweep's, with Hkv in place of H for k and v.
  Shape grid_shape(PatchWhat what, PatchPer per) const;
  std::vector<float> layer_cells(PatchWhat what, PatchPer per, int layer) const;
  std::vector<float> cells(PatchWhat what, PatchPer per, int layer, int first, int count) const;  // as PatchingSweep's
  // The metric of `ids` run with these patches (path patching's steps use it).
  double metric_of(std::span<const int> ids, std::vector<LlamaPatch> patches) const;

  const Llama& model() const { return model_; }
  std::span<const int> clean_ids() const { return clean_ids_; }
  const Tensor& clean_value(const std::string& name) const { return clean_.at(name); }
  const Tensor& corrupted_z(int layer) const { return corrupted_z_.at(static_cast<std::size_t>(layer)); }

 private:
  int heads_at(Hook hook) const;  // H, or Hkv for hook_k and hook_v

  const Llama& model_;
  std::vector<int> clean_ids_, corrupted_ids_;
  LogitDiffMetric metric_;
  std::map<std::string, Tensor> clean_;  // every hook point of the clean run
  std::vector<Tensor> corrupted_z_;      // each layer's hook_z in the corrupted run
  double clean_metric_ = 0.0, corrupted_metric_ = 0.0;
};

PatchingGrid activation_patching(const Llama& model, std::span<const int> clean, std::span<const int> corrupted,
                                 PatchWhat what, PatchPer per, LogitDiffMetric metric,
                                 const std::function<bool(int, int)>& progress = {});

// Path patching as the GPT's (patching.hpp): the sender's hook_z from the corrupted run reaches the receivers
// only through their q (a query head), or k or v (a key/value head, which every query head of its group reads).
PathPatchingResult path_patching(const LlamaPatchingSweep& sweep, HeadRef sender, std::span<const PathReceiver> receivers);

// The head's W_Q·R(distance), W_K, W_V [d×hd] and W_O [hd×d]; distance ≥ 0 (a key that many tokens
// before the query).
HeadCircuit head_circuit(const Llama& model, int layer, int head, int distance = 0);
// W_E·W_V·W_O·W_U's copying score (circuits.hpp) of one head and of every head, layer-major.
double ov_copying_score(const Llama& model, int layer, int head);
// processing (circuits.hpp): fold_ln scales by the RMSNorms' weights without centring; centre_writing is refused.
std::vector<double> ov_copying_scores(const Llama& model, const CopyingProcessing& processing = {});
// Q-, K- and V-composition as circuits.hpp defines them, the QK circuits at distance 0.
// processing: fold_ln folds each layer's input_layernorm weight without centring (an RMSNorm removes no mean);
// centre_writing is refused, as for the copying scores.
CompositionScores composition_scores(const Llama& model, int draws = 200, std::uint64_t seed = 0,
                                     const CompositionProcessing& processing = {});

}  // namespace attnlab
ATTNLAB_API_END
