// A GPT's forward with TransformerLens's hook points (hook_points.hpp): run it to keep any of its
// activations (an ActivationCache), or to replace some of them (patches) and see what follows.
//
//   HookedGPT hooked(model);
//   HookedRun clean = hooked.run_with_cache(ids);                      // every hook point kept
//   Tensor pattern = clean.cache.get("blocks.1.attn.hook_pattern");   // (heads, T, T)
//   HookedRunOptions patched;
//   patched.patches.push_back({.point = {Hook::z, 1}, .source = PatchSource::zero, .heads = {3}});
//   Matrix logits = hooked.run(ids, patched).logits;                   // head 1.3 knocked out
//
// A run without patches computes exactly what GPT::forward does, with the same kernels in the same
// order, so its logits and its cache equal a plain forward's bit for bit. A run given a `base` (a
// cache of the same ids with every point kept) reads what comes before the earliest patched point
// from it instead of computing it again: a patching sweep recomputes only what lies downstream.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "attnlab/gpt/gpt.hpp"
#include "attnlab/interp/hook_points.hpp"
#include "attnlab/tensor/tensor.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// The activations one run kept, by hook point, for the sequence it ran.
class ActivationCache {
 public:
  ActivationCache() = default;
  ActivationCache(const GPTConfig& config, std::vector<int> ids);  // nothing kept yet

  const std::vector<int>& ids() const { return ids_; }
  int seq_len() const { return static_cast<int>(ids_.size()); }
  const GPTConfig& config() const { return config_; }
  bool has(HookPoint point) const;
  // The point's Matrix ([rows×cols] as hook_points.hpp lays it out); Error naming it if not kept.
  const Matrix& at(HookPoint point) const;
  // By name, in TransformerLens's shape: Error for an unknown name or one this run did not keep.
  Tensor get(std::string_view name) const;
  // The kept points' names, in forward order.
  std::vector<std::string> names() const;
  void set(HookPoint point, Matrix value);

 private:
  GPTConfig config_;
  std::vector<int> ids_;
  std::vector<Matrix> values_;  // by hook_index; empty where not kept
  std::vector<bool> kept_;
};

// What replaces a hook point's chosen entries: given values, zeros, or the mean over the run's own
// positions (the mean ablation GPT::forward also offers).
enum class PatchSource { value, zero, mean };

// One replacement. The entries are the chosen positions (all when empty) — for (heads, T, T) points,
// the chosen query rows — and, at per-head points, the chosen heads (all when empty).
struct Patch {
  HookPoint point;
  PatchSource source = PatchSource::value;
  Tensor value;                 // source value: the point's whole TransformerLens shape
  std::vector<int> positions;
  std::vector<int> heads;
};

struct HookedRunOptions {
  std::vector<Patch> patches;
  // A run of the same ids with every point kept, without these patches: what precedes the earliest
  // patched point is read from it (or nullptr: everything is computed).
  const ActivationCache* base = nullptr;
  // The points to keep, by hook_index (empty: none), and which logits rows to compute: every row
  // (logits_position −1), or one position's (a patching metric needs one).
  std::vector<bool> keep;
  int logits_position = -1;
  // A hook function, as TransformerLens's: called at every point (after its patches, before it is kept
  // and before the forward reads it) with the point and its Matrix; a function that changes the value
  // changes the rest of the run — that is how any edit is made, not only a replacement. With a hook
  // function the run computes every point (a base is not read from: the function may change any of them).
  std::function<void(HookPoint point, Matrix& value)> hook;
};

struct HookedRun {
  Matrix logits;          // [T×V], or [1×V] for one position
  ActivationCache cache;  // the kept points (after patching: what the run used)
};

class HookedGPT {
 public:
  // Holds a reference: `model` must outlive this object and not change while it runs.
  explicit HookedGPT(const GPT& model);

  const GPT& model() const { return model_; }
  const GPTConfig& config() const { return model_.config(); }

  // ids [T] → logits [T×V] and the named points kept (every point when `names` is empty; names as keep_list's).
  HookedRun run_with_cache(std::span<const int> ids, std::span<const std::string> names = {}) const;
  HookedRun run(std::span<const int> ids, const HookedRunOptions& options) const;

  // ∂metric/∂(each hook point) for a run of ids, given d_logits [T×V] = ∂metric/∂logits (any metric of the
  // logits: a logit difference is +1 and −1 in one row, a loss is softmax − onehot): one forward and one
  // backward, no parameter gradient. A cache whose values are gradients, in each point's layout, at the
  // points a gradient passes through: hook_resid_pre, attn.hook_q, hook_k, hook_v, hook_pattern, hook_z,
  // hook_attn_out, hook_resid_mid, hook_mlp_out, hook_resid_post of every block. The pattern's gradient is
  // dz_h·v_hᵀ below the diagonal (a patched pattern keeps the causal mask: above it, 0).
  ActivationCache gradients(std::span<const int> ids, const Matrix& d_logits) const;

  // Residual-stream rows [n×d] → logits [n×V]: ln_f with each row's own statistics, then the tied
  // unembedding (the logit lens; the final row of a run through here is the model's own).
  Matrix unembed(const Matrix& resid) const;
  // One keep-list with the named points (Error for an unknown name), for HookedRunOptions::keep: full names or
  // TransformerLens's short forms ("pattern0"; "resid_pre" for that point in every block; cache_algebra.hpp).
  std::vector<bool> keep_list(const char* function, std::span<const std::string> names) const;

 private:
  void check_patches(const char* function, const std::vector<Patch>& patches, int T) const;

  const GPT& model_;
  std::shared_ptr<const PackedGPTWeights> packed_;  // nullptr for a model above GPT::kPackedWeightsLimit
};

}  // namespace attnlab
ATTNLAB_API_END
