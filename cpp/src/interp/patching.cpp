#include "attnlab/interp/patching.hpp"

#include <algorithm>

#include "interp/patch_grid.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

using patch_grid::point_of;

PatchingSweep::PatchingSweep(const HookedGPT& model, std::span<const int> clean, std::span<const int> corrupted,
                             LogitDiffMetric metric)
    : model_(model), clean_ids_(clean.begin(), clean.end()), corrupted_ids_(corrupted.begin(), corrupted.end()),
      metric_(patch_grid::checked_metric("activation_patching", clean, corrupted, metric, model.config().vocab_size)) {
  const char* fn = "activation_patching";
  HookedRunOptions whole;
  whole.keep = model.keep_list(fn, {});
  whole.logits_position = metric_.position;
  clean_ = model.run(clean, whole);
  corrupted_ = model.run(corrupted, whole);
  clean_metric_ = patch_grid::logit_diff(clean_.logits, metric_);
  corrupted_metric_ = patch_grid::logit_diff(corrupted_.logits, metric_);
  patch_grid::require_difference(fn, clean_metric_, corrupted_metric_);
}

double PatchingSweep::metric_of(std::span<const int> ids, const HookedRunOptions& options) const {
  HookedRunOptions run = options;
  run.logits_position = metric_.position;
  return patch_grid::logit_diff(model_.run(ids, run).logits, metric_);
}

Shape PatchingSweep::grid_shape(PatchWhat what, PatchPer per) const {
  const GPTConfig& c = model_.config();
  return patch_grid::shape(what, per, c.num_layers, c.num_heads, static_cast<int>(clean_ids_.size()));
}

std::vector<float> PatchingSweep::layer_cells(PatchWhat what, PatchPer per, int layer) const {
  return cells(what, per, layer, 0, -1);
}

std::vector<float> PatchingSweep::cells(PatchWhat what, PatchPer per, int layer, int first, int count) const {
  // one layer's cells: T, H, T·H or 1 patched runs of the corrupted prompt (those in [first, first + count))
  const Shape shape = grid_shape(what, per);
  if (layer < 0 || layer >= shape[0])
    detail::fail("activation_patching", "layer ", layer, " is outside the model's layers 0 … ", shape[0] - 1);
  const Tensor clean_value = clean_.cache.get(hook_name(point_of(what, layer)));
  std::vector<float> values;
  HookedRunOptions options;
  options.base = &corrupted_.cache;
  for (Patch& cell : patch_grid::cell_patches(what, per, layer, clean_value, model_.config().num_heads,
                                              static_cast<int>(clean_ids_.size()), first, count)) {
    options.patches = {std::move(cell)};
    values.push_back(patch_grid::normalised(metric_of(corrupted_ids_, options), clean_metric_, corrupted_metric_));
  }
  return values;
}

PatchingGrid activation_patching(const HookedGPT& model, std::span<const int> clean, std::span<const int> corrupted,
                                 PatchWhat what, PatchPer per, LogitDiffMetric metric,
                                 const std::function<bool(int, int)>& progress) {
  return patch_grid::sweep(PatchingSweep(model, clean, corrupted, metric), what, per, progress);
}

PathPatchingResult path_patching(const PatchingSweep& sweep, HeadRef sender, std::span<const PathReceiver> receivers) {
  const HookedGPT& model = sweep.model();
  const GPTConfig& c = model.config();
  patch_grid::check_path("path_patching", sender, receivers, c.num_layers, c.num_heads, c.num_heads);
  const auto ids = sweep.clean_ids();
  const int H = c.num_heads;

  // Step 1: the clean run, the sender's z from the corrupted run, every other head's z frozen at its clean
  // value; keep the receivers' inputs.
  HookedRunOptions step1;
  step1.base = &sweep.clean().cache;
  const Tensor corrupted_z = sweep.corrupted().cache.get(hook_name({Hook::z, sender.layer}));
  step1.patches.push_back({.point = {Hook::z, sender.layer}, .value = corrupted_z, .heads = {sender.head}});
  for (int l = sender.layer; l < c.num_layers; ++l) {
    std::vector<int> others;
    for (int h = 0; h < H; ++h)
      if (l != sender.layer || h != sender.head) others.push_back(h);
    if (!others.empty())
      step1.patches.push_back({.point = {Hook::z, l}, .value = sweep.clean().cache.get(hook_name({Hook::z, l})), .heads = others});
  }
  step1.keep.assign(static_cast<std::size_t>(hook_count(c.num_layers)), false);
  for (const PathReceiver& r : receivers) step1.keep[static_cast<std::size_t>(hook_index({r.input, r.layer}, c.num_layers))] = true;
  const HookedRun sent = model.run(ids, step1);

  // Step 2: the clean run with only the receivers' inputs from step 1.
  HookedRunOptions step2;
  step2.base = &sweep.clean().cache;
  for (const PathReceiver& r : receivers)
    step2.patches.push_back({.point = {r.input, r.layer}, .value = sent.cache.get(hook_name({r.input, r.layer})), .heads = {r.head}});

  const double patched = sweep.metric_of(ids, step2);
  return {sweep.clean_metric(), sweep.corrupted_metric(), patched,
          patch_grid::path_normalised(patched, sweep.clean_metric(), sweep.corrupted_metric())};
}

}  // namespace attnlab
