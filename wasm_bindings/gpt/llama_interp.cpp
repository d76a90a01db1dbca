#include "llama_interp.hpp"

#include <set>

#include "attnlab/tensor/error.hpp"
#include "interp.hpp"
#include "shared/convert.hpp"

namespace attnlab::wasm {

val llama_run_with_hooks_js(const LlamaHandle& handle, const val& ids_js, const val& names_js, const val& patches_js,
                            int first_position, const val& hook_names, const val& hook_call) {
  return guarded([&] {
    const char* fn = "runWithHooks";
    const Llama& model = handle.model();
    const std::vector<int> ids = ints_from_js(ids_js, fn);
    const int T = static_cast<int>(ids.size());
    std::set<std::string> names;
    for (std::size_t i = 0, n = names_js["length"].as<std::size_t>(); i < n; ++i) {
      names.insert(names_js[i].as<std::string>());
      llama_hook_shape("runWithCache", model, names_js[i].as<std::string>(), std::max(T, 1));  // an unknown name: Error
    }
    std::vector<LlamaPatch> patches;
    for (std::size_t i = 0, n = patches_js["length"].as<std::size_t>(); i < n; ++i) {
      const val p = patches_js[i];
      LlamaPatch patch{.name = p["name"].as<std::string>()};
      const std::string source = p["source"].as<std::string>();
      patch.source = source == "zero" ? PatchSource::zero : source == "mean" ? PatchSource::mean : PatchSource::value;
      if (patch.source == PatchSource::value) patch.value = tensor_from_js(p["value"], fn);
      patch.positions = int_list(p["positions"]);
      patch.heads = int_list(p["heads"]);
      patches.push_back(std::move(patch));
    }
    // Each point through the patches, then kept if named (every point when no name is).
    const HookFunction patched = patch_function(fn, model, std::move(patches), T);
    val hooks = val::object(), kept = val::array();
    LlamaForwardOptions options;
    options.first_position = first_position;
    const JsHooks functions = js_hooks_from(hook_names, hook_call);
    for (const std::string& name : functions.names) (void)llama_hook_shape(fn, model, name, std::max(T, 1));  // unknown: Error
    options.hook_fn = [&](const std::string& name, Matrix& value) {
      patched(name, value);
      if (functions.names.contains(name)) functions(name, llama_hook_shape(fn, model, name, T), value);
      if (!names.empty() && !names.contains(name)) return;
      val tensor = val::object();
      tensor.set("shape", shape_to_js(llama_hook_shape(fn, model, name, T)));
      tensor.set("data", floats_to_js(value.data(), static_cast<std::size_t>(value.size())));
      hooks.set(name, tensor);
      kept.call<void>("push", name);
    };
    const LlamaOutput out = model.forward(ids, options);
    val js = val::object();
    js.set("logits", matrix_to_js(out.logits));
    js.set("names", kept);
    js.set("hooks", hooks);
    return js;
  });
}

val llama_hook_names_js(const LlamaHandle& model) { return strings_to_js(model.model().hook_names()); }

LlamaPatchingSweepHandle* LlamaPatchingSweepHandle::create(const LlamaHandle& model, const val& clean_js,
                                                           const val& corrupted_js, const val& metric) {
  return catching<LlamaPatchingSweepHandle*>([&] {
    const std::vector<int> clean = ints_from_js(clean_js, "activationPatching");
    const std::vector<int> corrupted = ints_from_js(corrupted_js, "activationPatching");
    return new LlamaPatchingSweepHandle(model.model(), clean, corrupted, metric_from_js(metric));
  }, nullptr);
}

val LlamaPatchingSweepHandle::metrics() const { return sweep_metrics_to_js(sweep_); }
val LlamaPatchingSweepHandle::grid_shape(const std::string& what, const std::string& per) const {
  return sweep_grid_shape_js(sweep_, what, per);
}
val LlamaPatchingSweepHandle::path_patching(const val& sender, const val& receivers) const {
  return sweep_path_patching_js(sweep_, sender, receivers);
}
val LlamaPatchingSweepHandle::layer_cells(const std::string& what, const std::string& per, int layer) const {
  return sweep_layer_cells_js(sweep_, what, per, layer);
}
val LlamaPatchingSweepHandle::cells(const std::string& what, const std::string& per, int layer, int first, int count) const {
  return sweep_cells_js(sweep_, what, per, layer, first, count);
}

val llama_logit_lens_js(const LlamaHandle& model, const val& ids_js, const val& positions_js, int k, int target) {
  return guarded([&] {
    const std::vector<int> ids = ints_from_js(ids_js, "logitLens");
    return lens_to_js(logit_lens(model.model(), ids, int_list(positions_js), k, target));
  });
}

val llama_direct_logit_attribution_js(const LlamaHandle& model, const val& ids_js, int position, int target, int baseline) {
  return guarded([&] {
    const std::vector<int> ids = ints_from_js(ids_js, "directLogitAttribution");
    return attribution_to_js(direct_logit_attribution(model.model(), ids, position, target, baseline));
  });
}

val llama_head_circuit_js(const LlamaHandle& model, int layer, int head, int distance) {
  return guarded([&] { return circuit_to_js(head_circuit(model.model(), layer, head, distance)); });
}

val llama_ov_copying_score_js(const LlamaHandle& model, int layer, int head) {
  return guarded([&] { return val(ov_copying_score(model.model(), layer, head)); });
}

val llama_ov_copying_scores_js(const LlamaHandle& model, bool fold_ln, bool centre_writing, bool centre_unembed) {
  return guarded([&] {
    const LlamaConfig& c = model.model().config();
    const CopyingProcessing processing{.fold_ln = fold_ln, .centre_writing = centre_writing, .centre_unembed = centre_unembed};
    return head_scores_to_js(ov_copying_scores(model.model(), processing), c.num_layers, c.num_heads);
  });
}

val llama_composition_scores_js(const LlamaHandle& model, int draws, double seed, bool fold_ln, bool centre_writing) {
  return guarded([&] { return composition_to_js(composition_scores(model.model(), draws, seed_from_js(seed), {fold_ln, centre_writing})); });
}

}  // namespace attnlab::wasm
