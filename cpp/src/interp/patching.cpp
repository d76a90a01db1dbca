#include "attnlab/interp/patching.hpp"

#include <algorithm>

#include "tensor/checks.hpp"

namespace attnlab {

namespace {

HookPoint point_of(PatchWhat what, int layer) {
  constexpr Hook kHooks[] = {Hook::resid_pre, Hook::attn_out, Hook::mlp_out, Hook::z, Hook::pattern, Hook::q, Hook::k, Hook::v};
  return {kHooks[static_cast<int>(what)], layer};
}

double logit_diff(const Matrix& logits_row, const LogitDiffMetric& metric) {
  return static_cast<double>(logits_row(0, metric.target)) - static_cast<double>(logits_row(0, metric.baseline));
}

}  // namespace

PatchingSweep::PatchingSweep(const HookedGPT& model, std::span<const int> clean, std::span<const int> corrupted,
                             LogitDiffMetric metric)
    : model_(model), clean_ids_(clean.begin(), clean.end()), corrupted_ids_(corrupted.begin(), corrupted.end()), metric_(metric) {
  const char* fn = "activation_patching";
  const GPTConfig& c = model.config();
  if (clean.size() != corrupted.size())
    detail::fail(fn, "the clean prompt has ", clean.size(), " tokens and the corrupted prompt ", corrupted.size(),
                 ": patching puts activations back position by position, so both need the same number of tokens");
  const int T = static_cast<int>(clean.size());
  for (const auto& [name, id] : {std::pair{"target", metric.target}, std::pair{"baseline", metric.baseline}})
    if (id < 0 || id >= c.vocab_size) detail::fail(fn, "metric.", name, " ", id, " is outside the vocabulary 0 … ", c.vocab_size - 1);
  if (metric_.position == -1) metric_.position = T - 1;
  if (metric_.position < 0 || metric_.position >= T)
    detail::fail(fn, "metric.position ", metric.position, " is outside the prompts' positions 0 … ", T - 1);
  HookedRunOptions whole;
  whole.keep = model.keep_list(fn, {});
  whole.logits_position = metric_.position;
  clean_ = model.run(clean, whole);
  corrupted_ = model.run(corrupted, whole);
  clean_metric_ = logit_diff(clean_.logits, metric_);
  corrupted_metric_ = logit_diff(corrupted_.logits, metric_);
  if (clean_metric_ == corrupted_metric_)
    detail::fail(fn, "the clean and corrupted prompts give the same logit difference (", clean_metric_,
                 "): there is no difference for patching to recover");
}

double PatchingSweep::metric_of(std::span<const int> ids, const HookedRunOptions& options) const {
  HookedRunOptions run = options;
  run.logits_position = metric_.position;
  return logit_diff(model_.run(ids, run).logits, metric_);
}

Shape PatchingSweep::grid_shape(PatchWhat what, PatchPer per) const {
  const GPTConfig& c = model_.config();
  const std::int64_t L = c.num_layers, H = c.num_heads, T = static_cast<std::int64_t>(clean_ids_.size());
  const bool per_head = point_of(what, 0).per_head();
  switch (per) {
    case PatchPer::all: return {L};
    case PatchPer::position: return per_head ? Shape{L, T, H} : Shape{L, T};
    case PatchPer::head:
      if (!per_head)
        detail::fail("activation_patching", "per head needs a per-head point (z, pattern, q, k, v), got ",
                     hook_name(point_of(what, 0)).substr(9));
      return {L, H};
  }
  return {};
}

std::vector<float> PatchingSweep::layer_cells(PatchWhat what, PatchPer per, int layer) const {
  // one layer's cells: T, H, T·H or 1 patched runs of the corrupted prompt
  const Shape shape = grid_shape(what, per);
  if (layer < 0 || layer >= shape[0])
    detail::fail("activation_patching", "layer ", layer, " is outside the model's layers 0 … ", shape[0] - 1);
  const HookPoint point = point_of(what, layer);
  const Tensor clean_value = clean_.cache.get(hook_name(point));
  const int T = static_cast<int>(clean_ids_.size()), H = model_.config().num_heads;
  // The cells' patches, in the grid's row-major order.
  std::vector<Patch> cells;
  const Patch whole{.point = point, .value = clean_value};
  if (per == PatchPer::all) cells.push_back(whole);
  for (int p = 0; per == PatchPer::position && p < T; ++p) {
    if (!point.per_head()) cells.push_back({.point = point, .value = clean_value, .positions = {p}});
    for (int h = 0; point.per_head() && h < H; ++h) cells.push_back({.point = point, .value = clean_value, .positions = {p}, .heads = {h}});
  }
  for (int h = 0; per == PatchPer::head && h < H; ++h) cells.push_back({.point = point, .value = clean_value, .heads = {h}});

  std::vector<float> values;
  HookedRunOptions options;
  options.base = &corrupted_.cache;
  for (Patch& cell : cells) {
    options.patches = {std::move(cell)};
    const double metric = metric_of(corrupted_ids_, options);
    values.push_back(static_cast<float>((metric - corrupted_metric_) / (clean_metric_ - corrupted_metric_)));
  }
  return values;
}

PatchingGrid activation_patching(const HookedGPT& model, std::span<const int> clean, std::span<const int> corrupted,
                                 PatchWhat what, PatchPer per, LogitDiffMetric metric,
                                 const std::function<bool(int, int)>& progress) {
  const PatchingSweep sweep(model, clean, corrupted, metric);
  PatchingGrid grid{sweep.grid_shape(what, per), {}, sweep.clean_metric(), sweep.corrupted_metric()};
  const int L = model.config().num_layers;
  for (int l = 0; l < L; ++l) {
    const std::vector<float> cells = sweep.layer_cells(what, per, l);
    grid.values.insert(grid.values.end(), cells.begin(), cells.end());
    if (progress && !progress(l + 1, L)) detail::fail("activation_patching", "stopped after ", l + 1, " of ", L, " layers");
  }
  return grid;
}

PathPatchingResult path_patching(const PatchingSweep& sweep, HeadRef sender, std::span<const PathReceiver> receivers) {
  const char* fn = "path_patching";
  const HookedGPT& model = sweep.model();
  const GPTConfig& c = model.config();
  if (sender.layer < 0 || sender.layer >= c.num_layers || sender.head < 0 || sender.head >= c.num_heads)
    detail::fail(fn, "sender is layer ", sender.layer, ", head ", sender.head, " but the model has layers 0 … ",
                 c.num_layers - 1, " and heads 0 … ", c.num_heads - 1);
  if (receivers.empty()) detail::fail(fn, "receivers is empty (name at least one { layer, head, input })");
  for (std::size_t i = 0; i < receivers.size(); ++i) {
    const PathReceiver& r = receivers[i];
    if (r.layer <= sender.layer || r.layer >= c.num_layers || r.head < 0 || r.head >= c.num_heads)
      detail::fail(fn, "receivers[", i, "] is layer ", r.layer, ", head ", r.head, ": a receiver must be a head (0 … ",
                   c.num_heads - 1, ") of a later layer than the sender's ", sender.layer, " (up to ", c.num_layers - 1, ")");
    if (r.input != Hook::q && r.input != Hook::k && r.input != Hook::v) detail::fail(fn, "receivers[", i, "].input must be q, k or v");
  }
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

  PathPatchingResult result{sweep.clean_metric(), sweep.corrupted_metric(), sweep.metric_of(ids, step2), 0.0};
  result.normalised = (result.patched_metric - result.clean_metric) / (result.clean_metric - result.corrupted_metric);
  return result;
}

}  // namespace attnlab
