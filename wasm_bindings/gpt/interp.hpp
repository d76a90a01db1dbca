// The Embind face of the interpretability calls (attnlab/interp/*.hpp), in the GPT module; web/lib/
// interp.js makes them friendly. Every handle here reads a GPTHandle's model, which the JS layer keeps
// alive as long as the handle. Errors as in the other bindings: undefined (or a null handle) returned,
// the message kept for takeLastError().
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <set>
#include <string>

#include "attnlab/interp/attribution.hpp"
#include "attnlab/interp/attribution_patching.hpp"
#include "attnlab/interp/circuits.hpp"
#include "attnlab/interp/hooked_gpt.hpp"
#include "attnlab/interp/logit_lens.hpp"
#include "attnlab/interp/patching.hpp"
#include "shared/convert.hpp"
#include "gpt.hpp"

namespace attnlab::wasm {

// One run's logits and activation cache: run() keeps the named points (all when names is empty) of a
// run with the given patches ([{ name, source: 'value' | 'zero' | 'mean', value?: { shape, data },
// positions?, heads? }], checked in web/lib/interp.js).
// The package's hook functions (runWithHooks' `hooks`, TransformerLens's fwd_hooks): `call(name, { shape, data })`
// is web/lib/interp.js's dispatcher, which runs the caller's functions for that point and returns the tensor the
// run goes on with (the one given, changed in place, or a new one of its shape: checked there), or null when a
// function threw (the package keeps its error and rethrows it). Only the named points leave the heap.
struct JsHooks {
  val call = val::undefined();
  std::set<std::string> names;
  // value's entries through the functions for `name` (nothing when none is for it); Error for a NaN or +∞ left in it.
  void operator()(const std::string& name, const Shape& shape, Matrix& value) const;
};
JsHooks js_hooks_from(const val& names, const val& call);  // names: a string[]; call: a function or undefined

class ActivationCacheHandle {
 public:
  // hook_names, hook_call: JsHooks' (none when hook_names is empty)
  static ActivationCacheHandle* run(const GPTHandle& model, const val& ids, const val& names, const val& patches,
                                    const val& hook_names, const val& hook_call);
  val logits() const;                         // Matrix [T×V]
  val names() const;                          // string[]
  val get(const std::string& name) const;     // { shape, data }
  val ids() const;                            // Int32Array

 private:
  explicit ActivationCacheHandle(HookedRun run) : run_(std::move(run)) {}
  HookedRun run_;
};

// A patching sweep's clean and corrupted runs, kept for its cells (one layer per call, so the JS layer
// can report progress and stop between layers) and for path patching.
class PatchingSweepHandle {
 public:
  // metric: { target, baseline, position } (position −1: the last)
  static PatchingSweepHandle* create(const GPTHandle& model, const val& clean, const val& corrupted, const val& metric);
  val metrics() const;                                                      // { clean, corrupted, position }
  val grid_shape(const std::string& what, const std::string& per) const;   // number[]
  val layer_cells(const std::string& what, const std::string& per, int layer) const;  // Float32Array
  // cells first … first + count − 1 of one layer (Float32Array): the package checks its signal between calls
  val cells(const std::string& what, const std::string& per, int layer, int first, int count) const;
  // sender { layer, head }; receivers [{ layer, head, input: 'q' | 'k' | 'v' }] → { clean, corrupted, patched, normalised }
  val path_patching(const val& sender, const val& receivers) const;
  // attribution patching's estimate of every cell of the (what, per) grid at once (Float32Array, the grid's shape
  // and normalisation): one backward from the corrupted run
  val attribution(const std::string& what, const std::string& per) const;

 private:
  PatchingSweepHandle(const GPT& model, std::span<const int> clean, std::span<const int> corrupted, LogitDiffMetric metric)
      : hooked_(std::make_unique<HookedGPT>(model)), sweep_(*hooked_, clean, corrupted, metric) {}
  std::unique_ptr<HookedGPT> hooked_;  // first: the sweep refers to it
  PatchingSweep sweep_;
};

// ---- What the GPT's and the Llama's interpretability bindings share ----

std::vector<int> int_list(const val& list);                 // a JS array of integers (undefined: empty)
PatchWhat what_from(const std::string& what);               // 'resid_pre' … 'v'
PatchPer per_from(const std::string& per);                  // 'position' | 'head' | 'all'
LogitDiffMetric metric_from_js(const val& metric);          // { target, baseline, position }
val shape_to_js(const Shape& shape);                        // number[]
val lens_to_js(const LogitLens& lens);                      // as logit_lens_js returns
val attribution_to_js(const Attribution& attribution);      // as direct_logit_attribution_js returns
val circuit_to_js(const HeadCircuit& circuit);              // { wQ, wK, wV, wO }
val head_scores_to_js(const std::vector<double>& scores, int layers, int heads);  // Matrix [layers×heads]
val composition_to_js(const CompositionScores& scores);     // as composition_scores_js returns

// A sweep's (PatchingSweep's or LlamaPatchingSweep's) metrics, grid shape and one layer's cells.
template <class Sweep>
val sweep_metrics_to_js(const Sweep& sweep) {
  val js = val::object();
  js.set("clean", sweep.clean_metric());
  js.set("corrupted", sweep.corrupted_metric());
  js.set("position", sweep.metric().position);
  return js;
}
template <class Sweep>
val sweep_grid_shape_js(const Sweep& sweep, const std::string& what, const std::string& per) {
  return guarded([&] { return shape_to_js(sweep.grid_shape(what_from(what), per_from(per))); });
}
// Path patching on a sweep: sender { layer, head }, receivers [{ layer, head, input }] (checked by the package)
// → { clean, corrupted, patched, normalised }.
template <class Sweep>
val sweep_path_patching_js(const Sweep& sweep, const val& sender, const val& receivers_js) {
  return guarded([&] {
    std::vector<PathReceiver> receivers;
    for (std::size_t i = 0, n = receivers_js["length"].as<std::size_t>(); i < n; ++i) {
      const val r = receivers_js[i];
      const std::string input = r["input"].as<std::string>();
      receivers.push_back({r["layer"].as<int>(), r["head"].as<int>(), input == "q" ? Hook::q : input == "k" ? Hook::k : Hook::v});
    }
    const PathPatchingResult result = path_patching(sweep, {sender["layer"].as<int>(), sender["head"].as<int>()}, receivers);
    val js = val::object();
    js.set("clean", result.clean_metric);
    js.set("corrupted", result.corrupted_metric);
    js.set("patched", result.patched_metric);
    js.set("normalised", result.normalised);
    return js;
  });
}
template <class Sweep>
val sweep_layer_cells_js(const Sweep& sweep, const std::string& what, const std::string& per, int layer) {
  return guarded([&] {
    const std::vector<float> cells = sweep.layer_cells(what_from(what), per_from(per), layer);
    return floats_to_js(cells.data(), cells.size());
  });
}
template <class Sweep>
val sweep_cells_js(const Sweep& sweep, const std::string& what, const std::string& per, int layer, int first, int count) {
  return guarded([&] {
    const std::vector<float> cells = sweep.cells(what_from(what), per_from(per), layer, first, count);
    return floats_to_js(cells.data(), cells.size());
  });
}

// positions (Int32Array, empty = all), k, target (−1 = none) → { points, positions, cells[point][i]:
// { topIds, topProbabilities, targetProbability, targetRank } }
val logit_lens_js(const GPTHandle& model, const val& ids, const val& positions, int k, int target);
// → { terms: [{ part, layer, head, label, value }], sum, logit }
val direct_logit_attribution_js(const GPTHandle& model, const val& ids, int position, int target, int baseline);
// → { wQ, wK, wV, wO } (Matrix each)
val head_circuit_js(const GPTHandle& model, int layer, int head);
val ov_copying_score_js(const GPTHandle& model, int layer, int head);  // a number
// Matrix [layers×heads], under TransformerLens's processing steps (CopyingProcessing): the eigenvalue score, or with
// top1 ARENA's top-1 share of the full OV circuit (ov_copying_top1)
val ov_copying_scores_js(const GPTHandle& model, bool fold_ln, bool centre_writing, bool centre_unembed, bool top1);
// → { pairs: [{ from: {layer, head}, to: {layer, head}, q, k, v }], baseline, draws }
// under TransformerLens's processing steps (CompositionProcessing)
val composition_scores_js(const GPTHandle& model, int draws, double seed, bool fold_ln, bool centre_writing);

// TransformerLens's cache algebra (cache_algebra.hpp) on the points a package ActivationCache holds: ids, tensors
// [{ name, shape, data }] (the points the call reads), call 'result' | 'accumulatedResid' | 'decomposeResid' |
// 'stackHeadResults' | 'stackActivation' | 'applyLnToStack' | 'logitAttrs' and its options (checked in web/lib/
// interp.js; position null: every one) → { shape, data } or { stack: { shape, data }, labels }.
val cache_algebra_js(const GPTHandle& model, const val& ids, const val& tensors, const std::string& call, const val& options);
// utils.get_act_name: ('pattern', 0, '') → 'blocks.0.attn.hook_pattern' (layer −1: none).
std::string act_name_js(const std::string& name, int layer, const std::string& layer_type);

}  // namespace attnlab::wasm
