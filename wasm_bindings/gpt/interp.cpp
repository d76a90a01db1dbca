#include "interp.hpp"

#include <limits>

#include "attnlab/interp/attribution.hpp"
#include "attnlab/interp/cache_algebra.hpp"
#include "attnlab/interp/circuits.hpp"
#include "attnlab/interp/logit_lens.hpp"
#include "attnlab/tensor/error.hpp"
#include "shared/convert.hpp"

namespace attnlab::wasm {

std::vector<int> int_list(const val& list) {  // a JS array of integers (checked in web/lib/interp.js)
  std::vector<int> out;
  if (list.isUndefined() || list.isNull()) return out;
  for (std::size_t i = 0, n = list["length"].as<std::size_t>(); i < n; ++i) out.push_back(list[i].as<int>());
  return out;
}

PatchWhat what_from(const std::string& what) {
  static const std::pair<const char*, PatchWhat> kWhats[] = {
      {"resid_pre", PatchWhat::resid_pre}, {"attn_out", PatchWhat::attn_out}, {"mlp_out", PatchWhat::mlp_out},
      {"z", PatchWhat::z}, {"pattern", PatchWhat::pattern}, {"q", PatchWhat::q}, {"k", PatchWhat::k}, {"v", PatchWhat::v}};
  for (const auto& [name, value] : kWhats)
    if (what == name) return value;
  throw Error("activation_patching: what must be resid_pre, attn_out, mlp_out, z, pattern, q, k or v, got " + what);
}

PatchPer per_from(const std::string& per) {
  if (per == "position") return PatchPer::position;
  if (per == "head") return PatchPer::head;
  if (per == "all") return PatchPer::all;
  throw Error("activation_patching: per must be position, head or all, got " + per);
}

val shape_to_js(const Shape& shape) {
  val js = val::array();
  for (const std::int64_t extent : shape) js.call<void>("push", static_cast<double>(extent));
  return js;
}

LogitDiffMetric metric_from_js(const val& metric) {
  return {metric["target"].as<int>(), metric["baseline"].as<int>(), metric["position"].as<int>()};
}

// ---- The package's hook functions ----

JsHooks js_hooks_from(const val& names, const val& call) {
  JsHooks hooks{call, {}};
  for (std::size_t i = 0, n = names["length"].as<std::size_t>(); i < n; ++i) hooks.names.insert(names[i].as<std::string>());
  return hooks;
}

void JsHooks::operator()(const std::string& name, const Shape& shape, Matrix& value) const {
  if (!names.contains(name)) return;
  const auto count = static_cast<std::size_t>(value.size());
  val tensor = val::object();
  tensor.set("shape", shape_to_js(shape));
  tensor.set("data", floats_to_js(value.data(), count));
  const val out = call(name, tensor);
  if (out.isNull()) throw Error("runWithHooks: a hook function for " + name + " threw");
  static const val copy_to_heap = val::module_property("copyToHeap");
  if (!copy_to_heap(out["data"], reinterpret_cast<std::uintptr_t>(value.data()), count).as<bool>())
    throw Error("runWithHooks: a hook function for " + name + " returned " + std::to_string(out["data"]["length"].as<std::size_t>()) +
                " values, not its " + std::to_string(count));
  // −∞ is a value scores hold (the causal mask); NaN and +∞ are not
  if ((value.array().isNaN() || value.array() == std::numeric_limits<float>::infinity()).any())
    throw Error("runWithHooks: a hook function left a NaN or +∞ in " + name);
}

// ---- ActivationCacheHandle ----

ActivationCacheHandle* ActivationCacheHandle::run(const GPTHandle& model, const val& ids_js, const val& names_js,
                                                  const val& patches_js, const val& hook_names, const val& hook_call) {
  return catching<ActivationCacheHandle*>([&] {
    const char* fn = "runWithCache";
    const std::vector<int> ids = ints_from_js(ids_js, fn);
    const HookedGPT hooked(model.model());
    std::vector<std::string> names;
    for (std::size_t i = 0, n = names_js["length"].as<std::size_t>(); i < n; ++i) names.push_back(names_js[i].as<std::string>());
    HookedRunOptions options;
    options.keep = hooked.keep_list(fn, names);
    for (std::size_t i = 0, n = patches_js["length"].as<std::size_t>(); i < n; ++i) {
      const val p = patches_js[i];
      Patch patch;
      patch.point = find_hook("runWithHooks", p["name"].as<std::string>(), hooked.config());
      const std::string source = p["source"].as<std::string>();
      patch.source = source == "zero" ? PatchSource::zero : source == "mean" ? PatchSource::mean : PatchSource::value;
      if (patch.source == PatchSource::value) patch.value = tensor_from_js(p["value"], "runWithHooks");
      patch.positions = int_list(p["positions"]);
      patch.heads = int_list(p["heads"]);
      options.patches.push_back(std::move(patch));
    }
    const JsHooks hooks = js_hooks_from(hook_names, hook_call);
    for (const std::string& name : hooks.names) (void)find_hook("runWithHooks", name, hooked.config());  // unknown: Error
    const int T = static_cast<int>(ids.size());
    if (!hooks.names.empty())
      options.hook = [&](HookPoint point, Matrix& value) { hooks(hook_name(point), hook_shape(point, T, hooked.config()), value); };
    return new ActivationCacheHandle(hooked.run(ids, options));
  }, nullptr);
}

val ActivationCacheHandle::logits() const { return matrix_to_js(run_.logits); }
val ActivationCacheHandle::names() const { return strings_to_js(run_.cache.names()); }
val ActivationCacheHandle::get(const std::string& name) const {
  return guarded([&] {
    // The point's Matrix copied out once, under TransformerLens's shape (cache.get would copy it twice).
    const HookPoint point = find_hook("ActivationCache::get", name, run_.cache.config());
    const Matrix& values = run_.cache.at(point);
    val js = val::object();
    js.set("shape", shape_to_js(hook_shape(point, run_.cache.seq_len(), run_.cache.config())));
    js.set("data", floats_to_js(values.data(), static_cast<std::size_t>(values.size())));
    return js;
  });
}
val ActivationCacheHandle::ids() const { return ints_to_js(run_.cache.ids()); }

// ---- PatchingSweepHandle ----

PatchingSweepHandle* PatchingSweepHandle::create(const GPTHandle& model, const val& clean_js, const val& corrupted_js,
                                                 const val& metric) {
  return catching<PatchingSweepHandle*>([&] {
    const std::vector<int> clean = ints_from_js(clean_js, "activationPatching");
    const std::vector<int> corrupted = ints_from_js(corrupted_js, "activationPatching");
    return new PatchingSweepHandle(model.model(), clean, corrupted, metric_from_js(metric));
  }, nullptr);
}

val PatchingSweepHandle::metrics() const { return sweep_metrics_to_js(sweep_); }

val PatchingSweepHandle::grid_shape(const std::string& what, const std::string& per) const {
  return sweep_grid_shape_js(sweep_, what, per);
}

val PatchingSweepHandle::layer_cells(const std::string& what, const std::string& per, int layer) const {
  return sweep_layer_cells_js(sweep_, what, per, layer);
}

val PatchingSweepHandle::cells(const std::string& what, const std::string& per, int layer, int first, int count) const {
  return sweep_cells_js(sweep_, what, per, layer, first, count);
}

val PatchingSweepHandle::path_patching(const val& sender, const val& receivers) const {
  return sweep_path_patching_js(sweep_, sender, receivers);
}

val PatchingSweepHandle::attribution(const std::string& what, const std::string& per) const {
  return guarded([&] {
    const PatchingGrid grid = attribution_patching(sweep_, what_from(what), per_from(per));
    return floats_to_js(grid.values.data(), grid.values.size());
  });
}

// ---- Free functions ----

val lens_to_js(const LogitLens& lens) {
  val cells = val::array();
  for (const auto& row : lens.cells) {
    val js_row = val::array();
    for (const LensCell& cell : row) {
      val js = val::object();
      js.set("topIds", ints_to_js(cell.top_ids));
      js.set("topProbabilities", floats_to_js(cell.top_probabilities.data(), cell.top_probabilities.size()));
      js.set("targetProbability", cell.target_probability);
      js.set("targetRank", cell.target_rank);
      js_row.call<void>("push", js);
    }
    cells.call<void>("push", js_row);
  }
  val js = val::object();
  js.set("points", strings_to_js(lens.points));
  js.set("positions", ints_to_js(lens.positions));
  js.set("cells", cells);
  return js;
}

val logit_lens_js(const GPTHandle& model, const val& ids_js, const val& positions_js, int k, int target) {
  return guarded([&] {
    const std::vector<int> ids = ints_from_js(ids_js, "logitLens");
    return lens_to_js(logit_lens(HookedGPT(model.model()), ids, int_list(positions_js), k, target));
  });
}

val attribution_to_js(const Attribution& a) {
  static const char* kParts[] = {"embed", "pos_embed", "head", "attn_bias", "mlp", "ln_final_bias"};
  val terms = val::array();
  for (const AttributionTerm& t : a.terms) {
    val js = val::object();
    js.set("part", std::string(kParts[static_cast<int>(t.part)]));
    js.set("layer", t.layer);
    js.set("head", t.head);
    js.set("label", t.label);
    js.set("value", t.value);
    terms.call<void>("push", js);
  }
  val js = val::object();
  js.set("terms", terms);
  js.set("sum", a.sum);
  js.set("logit", a.logit);
  return js;
}

val direct_logit_attribution_js(const GPTHandle& model, const val& ids_js, int position, int target, int baseline) {
  return guarded([&] {
    const std::vector<int> ids = ints_from_js(ids_js, "directLogitAttribution");
    return attribution_to_js(direct_logit_attribution(HookedGPT(model.model()), ids, position, target, baseline));
  });
}

val circuit_to_js(const HeadCircuit& c) {
  val js = val::object();
  js.set("wQ", matrix_to_js(c.w_q));
  js.set("wK", matrix_to_js(c.w_k));
  js.set("wV", matrix_to_js(c.w_v));
  js.set("wO", matrix_to_js(c.w_o));
  return js;
}

val head_circuit_js(const GPTHandle& model, int layer, int head) {
  return guarded([&] { return circuit_to_js(head_circuit(model.model(), layer, head)); });
}

val ov_copying_score_js(const GPTHandle& model, int layer, int head) {
  return guarded([&] { return val(ov_copying_score(model.model(), layer, head)); });
}

val head_scores_to_js(const std::vector<double>& scores, int layers, int heads) {
  Matrix m(layers, heads);
  for (int i = 0; i < layers * heads; ++i) m(i / heads, i % heads) = static_cast<float>(scores[static_cast<std::size_t>(i)]);
  return matrix_to_js(m);
}

val ov_copying_scores_js(const GPTHandle& model, bool fold_ln, bool centre_writing, bool centre_unembed, bool top1) {
  return guarded([&] {
    const GPTConfig& c = model.model().config();
    const CopyingProcessing processing{.fold_ln = fold_ln, .centre_writing = centre_writing, .centre_unembed = centre_unembed};
    return head_scores_to_js(top1 ? ov_copying_top1(model.model(), processing) : ov_copying_scores(model.model(), processing),
                             c.num_layers, c.num_heads);
  });
}

val composition_to_js(const CompositionScores& scores) {
  val pairs = val::array();
  for (const CompositionPair& p : scores.pairs) {
    val from = val::object(), to = val::object(), js = val::object();
    from.set("layer", p.from_layer);
    from.set("head", p.from_head);
    to.set("layer", p.to_layer);
    to.set("head", p.to_head);
    js.set("from", from);
    js.set("to", to);
    js.set("q", p.q);
    js.set("k", p.k);
    js.set("v", p.v);
    pairs.call<void>("push", js);
  }
  val js = val::object();
  js.set("pairs", pairs);
  js.set("baseline", scores.baseline);
  js.set("draws", scores.draws);
  return js;
}

val composition_scores_js(const GPTHandle& model, int draws, double seed, bool fold_ln, bool centre_writing) {
  return guarded([&] { return composition_to_js(composition_scores(model.model(), draws, seed_from_js(seed), {fold_ln, centre_writing})); });
}

// ---- The cache algebra ----

namespace {

val residual_stack_to_js(const ResidualStack& stack) {
  val js = val::object();
  js.set("stack", tensor_to_js(stack.stack));
  js.set("labels", strings_to_js(stack.labels));
  return js;
}

int algebra_position(const val& options) {
  const val position = options["position"];
  return position.isNull() || position.isUndefined() ? kAllPositions : position.as<int>();
}

int algebra_int(const val& options, const char* name, int fallback) {
  const val v = options[name];
  return v.isUndefined() || v.isNull() ? fallback : v.as<int>();
}

bool algebra_flag(const val& options, const char* name) {
  const val v = options[name];
  return !v.isUndefined() && !v.isNull() && v.as<bool>();
}

}  // namespace

val cache_algebra_js(const GPTHandle& model, const val& ids_js, const val& tensors, const std::string& call, const val& options) {
  return guarded([&] {
    const char* fn = "ActivationCache";
    const HookedGPT hooked(model.model());
    const GPTConfig& c = hooked.config();
    ActivationCache cache(c, ints_from_js(ids_js, fn));
    for (std::size_t i = 0, n = tensors["length"].as<std::size_t>(); i < n; ++i) {
      const val entry = tensors[i];
      const HookPoint point = find_hook(fn, entry["name"].as<std::string>(), c);
      const std::vector<float> values = tensor_from_js(entry, fn).contiguous().to_vector();
      const Eigen::Index rows = hook_rows(point, cache.seq_len(), c), cols = hook_cols(point, cache.seq_len(), c);
      if (static_cast<Eigen::Index>(values.size()) != rows * cols) throw Error(std::string(fn) + ": the cache's " + hook_name(point) + " is not of this model");
      cache.set(point, Eigen::Map<const Matrix>(values.data(), rows, cols));
    }
    const int layer = algebra_int(options, "layer", -1), position = algebra_position(options);
    if (call == "result") return tensor_to_js(head_results(hooked, cache, layer));
    if (call == "stackActivation")
      return residual_stack_to_js(stack_activation(hooked, cache, options["name"].as<std::string>(), layer, options["layerType"].as<std::string>()));
    if (call == "applyLnToStack")
      return tensor_to_js(apply_ln_to_stack(hooked, cache, tensor_from_js(options["stack"], "stack"),
                                            {.layer = layer, .mlp_input = algebra_flag(options, "mlpInput"),
                                             .recompute_ln = algebra_flag(options, "recomputeLn"), .position = position}));
    if (call == "logitAttrs")
      return tensor_to_js(logit_attrs(hooked, cache, tensor_from_js(options["stack"], "stack"), int_list(options["tokens"]),
                                      int_list(options["incorrectTokens"]), position));
    const std::string mode = options["mode"].isUndefined() ? "all" : options["mode"].as<std::string>();
    const StackOptions o{.layer = layer, .incl_mid = algebra_flag(options, "inclMid"), .mlp_input = algebra_flag(options, "mlpInput"),
                         .apply_ln = algebra_flag(options, "applyLn"),
                         .incl_embeds = options["inclEmbeds"].isUndefined() || options["inclEmbeds"].as<bool>(),
                         .mode = mode == "attn" ? DecomposeMode::attn : mode == "mlp" ? DecomposeMode::mlp : DecomposeMode::all,
                         .incl_remainder = algebra_flag(options, "inclRemainder"), .position = position};
    if (call == "accumulatedResid") return residual_stack_to_js(accumulated_resid(hooked, cache, o));
    if (call == "decomposeResid") return residual_stack_to_js(decompose_resid(hooked, cache, o));
    if (call == "stackHeadResults") return residual_stack_to_js(stack_head_results(hooked, cache, o));
    throw Error(std::string(fn) + ": no cache call " + call);
  });
}

std::string act_name_js(const std::string& name, int layer, const std::string& layer_type) { return act_name(name, layer, layer_type); }

}  // namespace attnlab::wasm
