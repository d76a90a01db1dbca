// Activation patching on a Llama: the corrupted prompt run with one hook point given the clean run's
// values through a hook function.
#include "attnlab/interp/llama_interp.hpp"

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
  corrupted_metric_ = metric_from(model.forward(corrupted, metric_run(metric_, T)).logits, metric_);
  patch_grid::require_difference("activation_patching", clean_metric_, corrupted_metric_);
}

int LlamaPatchingSweep::heads_at(Hook hook) const {
  return hook == Hook::k || hook == Hook::v ? model_.config().num_kv_heads : model_.config().num_heads;
}

Shape LlamaPatchingSweep::grid_shape(PatchWhat what, PatchPer per) const {
  return patch_grid::shape(what, per, model_.config().num_layers, heads_at(patch_grid::point_of(what, 0).hook), static_cast<int>(clean_ids_.size()));
}

double LlamaPatchingSweep::metric_of(const Patch& patch) const {
  const int T = static_cast<int>(corrupted_ids_.size());
  LlamaForwardOptions options = metric_run(metric_, T);
  options.hook_fn = patch_function("activation_patching", model_,
                                   {{hook_name(patch.point), patch.source, patch.value, patch.positions, patch.heads}}, T);
  return metric_from(model_.forward(corrupted_ids_, options).logits, metric_);
}

std::vector<float> LlamaPatchingSweep::layer_cells(PatchWhat what, PatchPer per, int layer) const {
  // one layer's cells: T, H (Hkv), T·H or 1 patched runs of the corrupted prompt
  const Shape shape = grid_shape(what, per);
  if (layer < 0 || layer >= shape[0])
    detail::fail("activation_patching", "layer ", layer, " is outside the model's layers 0 … ", shape[0] - 1);
  const Tensor& clean_value = clean_.at(hook_name(patch_grid::point_of(what, layer)));
  std::vector<float> values;
  for (const Patch& cell : patch_grid::layer_patches(what, per, layer, clean_value, heads_at(patch_grid::point_of(what, 0).hook), static_cast<int>(clean_ids_.size())))
    values.push_back(patch_grid::normalised(metric_of(cell), clean_metric_, corrupted_metric_));
  return values;
}

PatchingGrid activation_patching(const Llama& model, std::span<const int> clean, std::span<const int> corrupted,
                                 PatchWhat what, PatchPer per, LogitDiffMetric metric,
                                 const std::function<bool(int, int)>& progress) {
  return patch_grid::sweep(LlamaPatchingSweep(model, clean, corrupted, metric), what, per, progress);
}

}  // namespace attnlab
