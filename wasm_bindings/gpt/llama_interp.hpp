// The Embind face of the interpretability calls on a Llama (attnlab/interp/llama_interp.hpp), beside the
// GPT's (interp.hpp) and returning the same shapes; web/lib/interp.js serves both models. Every call
// reads a LlamaHandle's model, which the JS layer keeps alive as long as the call or handle.
#pragma once

#include <emscripten/val.h>

#include "attnlab/interp/llama_interp.hpp"
#include "llama.hpp"

namespace attnlab::wasm {

// ids, names (string[]: the points to keep; empty = all), patches ([{ name, source, value?, positions?,
// heads? }] as the GPT's), firstPosition → { logits, names: string[], hooks: { [name]: { shape, data } } }
val llama_run_with_hooks_js(const LlamaHandle& model, const val& ids, const val& names, const val& patches, int first_position,
                            const val& hook_names, const val& hook_call);  // hook_*: JsHooks' (interp.hpp)
val llama_hook_names_js(const LlamaHandle& model);  // string[] in forward order

class LlamaPatchingSweepHandle {
 public:
  static LlamaPatchingSweepHandle* create(const LlamaHandle& model, const val& clean, const val& corrupted, const val& metric);
  val metrics() const;                                                      // { clean, corrupted, position }
  val grid_shape(const std::string& what, const std::string& per) const;   // number[]
  val layer_cells(const std::string& what, const std::string& per, int layer) const;  // Float32Array
  val cells(const std::string& what, const std::string& per, int layer, int first, int count) const;  // Float32Array
  val path_patching(const val& sender, const val& receivers) const;         // { clean, corrupted, patched, normalised }

 private:
  LlamaPatchingSweepHandle(const Llama& model, std::span<const int> clean, std::span<const int> corrupted, LogitDiffMetric metric)
      : sweep_(model, clean, corrupted, metric) {}
  LlamaPatchingSweep sweep_;
};

val llama_logit_lens_js(const LlamaHandle& model, const val& ids, const val& positions, int k, int target);
val llama_direct_logit_attribution_js(const LlamaHandle& model, const val& ids, int position, int target, int baseline);
val llama_head_circuit_js(const LlamaHandle& model, int layer, int head, int distance);
val llama_ov_copying_score_js(const LlamaHandle& model, int layer, int head);
val llama_ov_copying_scores_js(const LlamaHandle& model, bool fold_ln, bool centre_writing, bool centre_unembed);
val llama_composition_scores_js(const LlamaHandle& model, int draws, double seed, bool fold_ln, bool centre_writing);

}  // namespace attnlab::wasm
