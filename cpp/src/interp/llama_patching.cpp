// Activation patching on a Llama: the corrupted prompt run with one hook point given the clean run's
// values through a hook function.
#include "attnlab/interp/llama_interp.hpp"

#include <algorithm>

#include "interp/patch_grid.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

// The metric's row of a forward: only the last row's logits when the metric reads the last position.
LlamaForwardOptions metric_run(const LogitDiffMetric& metric, int T) {
  LlamaForwardOptions options;
  options.logits = metric.position == T - 1 ? LogitRows::last : LogitRows::all;
  return options;
}

double metric_from(const Matrix& logits, const LogitDiffMetric& metric) {
  return patch_grid::logit_diff(logits.rows() == 1 ? logits : Matrix(logits.row(metric.position)), metric);
}

}  // namespace

LlamaPatchingSweep::LlamaPatchingSweep(const Llama& model, std::span<const int> clean, std::span<const int> corrupted,
                                       LogitDiffMetric metric)
    : model_(model), clean_ids_(clean.begin(), clean.end()), corrupted_ids_(corrupted.begin(), corrupted.end()),
      metric_(patch_grid::checked_metric("activation_patching", clean, corrupted, metric, model.config().vocab_size)) {
  const int T = static_cast<int>(clean.size());
  HookValues kept;
  LlamaForwardOptions clean_run = metric_run(metric_, T);
  clean_run.hooks = &kept;
  clean_metric_ = metric_from(model.forward(clean, clean_run).logits, metric_);
  for (auto& [name, value] : kept) clean_.emplace(std::move(name), std::move(value));
  HookValues corrupted_kept;
  LlamaForwardOptions corrupted_run = metric_run(metric_, T);
  corrupted_run.hooks = &corrupted_kept;
  corrupted_metric_ = metric_from(model.forward(corrupted, corrupted_run).logits, metric_);
  for (auto& [name, value] : corrupted_kept)
    if (name.ends_with("attn.hook_z")) corrupted_z_.push_back(std::move(value));
  patch_grid::require_difference("activation_patching", clean_metric_, corrupted_metric_);
}

int LlamaPatchingSweep::heads_at(Hook hook) const {
  return hook == Hook::k || hook == Hook::v ? model_.config().num_kv_heads : model_.config().num_heads;
}

Shape LlamaPatchingSweep::grid_shape(PatchWhat what, PatchPer per) const {
  return patch_grid::shape(what, per, model_.config().num_layers, heads_at(patch_grid::point_of(what, 0).hook), static_cast<int>(clean_ids_.size()));
}

double LlamaPatchingSweep::metric_of(std::span<const int> ids, std::vector<LlamaPatch> patches) const {
  const int T = static_cast<int>(ids.size());
  LlamaForwardOptions options = metric_run(metric_, T);
  options.hook_fn = patch_function("activation_patching", model_, std::move(patches), T);
  return metric_from(model_.forward(ids, options).logits, metric_);
}

std::vector<float> LlamaPatchingSweep::layer_cells(PatchWhat what, PatchPer per, int layer) const {
  return cells(what, per, layer, 0, -1);
}

std::vector<float> LlamaPatchingSweep::cells(PatchWhat what, PatchPer per, int layer, int first, int count) const {
  // one layer's cells: T, H (Hkv), T·H or 1 patched runs of the corrupted prompt (those in [first, first + count))
  const Shape shape = grid_shape(what, per);
  if (layer < 0 || layer >= shape[0])
    detail::fail("activation_patching", "layer ", layer, " is outside the model's layers 0 … ", shape[0] - 1);
  const Tensor& clean_value = clean_.at(hook_name(patch_grid::point_of(what, layer)));
  std::vector<float> values;
  for (const Patch& cell : patch_grid::cell_patches(what, per, layer, clean_value, heads_at(patch_grid::point_of(what, 0).hook),
                                                    static_cast<int>(clean_ids_.size()), first, count)) {
    const double patched = metric_of(corrupted_ids_, {{hook_name(cell.point), cell.source, cell.value, cell.positions, cell.heads}});
    values.push_back(patch_grid::normalised(patched, clean_metric_, corrupted_metric_));
  }
  return values;
}

PatchingGrid activation_patching(const Llama& model, std::span<const int> clean, std::span<const int> corrupted,
                                 PatchWhat what, PatchPer per, LogitDiffMetric metric,
                                 const std::function<bool(int, int)>& progress) {
  return patch_grid::sweep(LlamaPatchingSweep(model, clean, corrupted, metric), what, per, progress);
}

PathPatchingResult path_patching(const LlamaPatchingSweep& sweep, HeadRef sender, std::span<const PathReceiver> receivers) {
  const char* fn = "path_patching";
  const Llama& model = sweep.model();
  const LlamaConfig& c = model.config();
  patch_grid::check_path(fn, sender, receivers, c.num_layers, c.num_heads, c.num_kv_heads);
  const auto ids = sweep.clean_ids();
  const int T = static_cast<int>(ids.size());

  // Step 1: the clean run, the sender's z from the corrupted run, every other head's z from the sender's layer
  // on frozen at its clean value (the MLPs recompute); keep what the receivers read.
  std::vector<LlamaPatch> step1{{hook_name({Hook::z, sender.layer}), PatchSource::value, sweep.corrupted_z(sender.layer), {}, {sender.head}}};
  for (int l = sender.layer; l < c.num_layers; ++l) {
    std::vector<int> others;
    for (int h = 0; h < c.num_heads; ++h)
      if (l != sender.layer || h != sender.head) others.push_back(h);
    const std::string z = hook_name({Hook::z, l});
    if (!others.empty()) step1.push_back({z, PatchSource::value, sweep.clean_value(z), {}, others});
  }
  HookValues sent;
  LlamaForwardOptions run;
  run.logits = LogitRows::none;
  run.hooks = &sent;
  run.hook_fn = patch_function(fn, model, std::move(step1), T);
  model.forward(ids, run);
  const auto sent_value = [&](const std::string& name) -> const Tensor& {
    return std::find_if(sent.begin(), sent.end(), [&](const auto& kept) { return kept.first == name; })->second;
  };

  // Step 2: the clean run with only the receivers' inputs from step 1.
  std::vector<LlamaPatch> step2;
  for (const PathReceiver& r : receivers) {
    const std::string name = hook_name({r.input, r.layer});
    step2.push_back({name, PatchSource::value, sent_value(name), {}, {r.head}});
  }
  const double patched = sweep.metric_of(ids, std::move(step2));
  return {sweep.clean_metric(), sweep.corrupted_metric(), patched,
          patch_grid::path_normalised(patched, sweep.clean_metric(), sweep.corrupted_metric())};
}

}  // namespace attnlab
