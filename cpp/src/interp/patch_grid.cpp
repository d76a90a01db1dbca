#include "interp/patch_grid.hpp"

#include <utility>

#include "tensor/checks.hpp"

namespace attnlab::patch_grid {

HookPoint point_of(PatchWhat what, int layer) {
  constexpr Hook kHooks[] = {Hook::resid_pre, Hook::attn_out, Hook::mlp_out, Hook::z, Hook::pattern, Hook::q, Hook::k, Hook::v};
  return {kHooks[static_cast<int>(what)], layer};
}

double logit_diff(const Matrix& logits_row, const LogitDiffMetric& metric) {
  return static_cast<double>(logits_row(0, metric.target)) - static_cast<double>(logits_row(0, metric.baseline));
}

LogitDiffMetric checked_metric(const char* fn, std::span<const int> clean, std::span<const int> corrupted,
                               LogitDiffMetric metric, int vocab_size) {
  if (clean.size() != corrupted.size())
    detail::fail(fn, "the clean prompt has ", clean.size(), " tokens and the corrupted prompt ", corrupted.size(),
                 ": patching puts activations back position by position, so both need the same number of tokens");
  const int T = static_cast<int>(clean.size());
  for (const auto& [name, id] : {std::pair{"target", metric.target}, std::pair{"baseline", metric.baseline}})
    if (id < 0 || id >= vocab_size) detail::fail(fn, "metric.", name, " ", id, " is outside the vocabulary 0 … ", vocab_size - 1);
  const int given = metric.position;
  if (metric.position == -1) metric.position = T - 1;
  if (metric.position < 0 || metric.position >= T)
    detail::fail(fn, "metric.position ", given, " is outside the prompts' positions 0 … ", T - 1);
  return metric;
}

void require_difference(const char* fn, double clean_metric, double corrupted_metric) {
  if (clean_metric == corrupted_metric)
    detail::fail(fn, "the clean and corrupted prompts give the same logit difference (", clean_metric,
                 "): there is no difference for patching to recover");
}

void check_path(const char* fn, HeadRef sender, std::span<const PathReceiver> receivers, int L, int H, int kv_heads) {
  if (sender.layer < 0 || sender.layer >= L || sender.head < 0 || sender.head >= H)
    detail::fail(fn, "sender is layer ", sender.layer, ", head ", sender.head, " but the model has layers 0 … ", L - 1,
                 " and heads 0 … ", H - 1);
  if (receivers.empty()) detail::fail(fn, "receivers is empty (name at least one { layer, head, input })");
  for (std::size_t i = 0; i < receivers.size(); ++i) {
    const PathReceiver& r = receivers[i];
    if (r.input != Hook::q && r.input != Hook::k && r.input != Hook::v) detail::fail(fn, "receivers[", i, "].input must be q, k or v");
    const int heads = r.input == Hook::q ? H : kv_heads;
    const char* kind = r.input == Hook::q || kv_heads == H ? "a head" : "a key/value head";
    if (r.layer <= sender.layer || r.layer >= L || r.head < 0 || r.head >= heads)
      detail::fail(fn, "receivers[", i, "] is layer ", r.layer, ", head ", r.head, ": a receiver must be ", kind, " (0 … ",
                   heads - 1, ") of a later layer than the sender's ", sender.layer, " (up to ", L - 1, ")");
  }
}

Shape shape(PatchWhat what, PatchPer per, int num_layers, int heads, int T) {
  const std::int64_t L = num_layers, H = heads;
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

std::vector<Patch> layer_patches(PatchWhat what, PatchPer per, int layer, const Tensor& clean_value, int heads, int T) {
  return cell_patches(what, per, layer, clean_value, heads, T, 0, -1);
}

std::vector<Patch> cell_patches(PatchWhat what, PatchPer per, int layer, const Tensor& clean_value, int heads, int T, int first,
                                int count) {
  const HookPoint point = point_of(what, layer);
  const int n = per == PatchPer::all ? 1 : per == PatchPer::head ? heads : point.per_head() ? T * heads : T;
  if (first < 0 || first > n || count < -1 || (count >= 0 && count > n - first))
    detail::fail("activation_patching", "cells ", first, " … ", first + count - 1, " are outside the layer's cells 0 … ", n - 1);
  std::vector<Patch> cells;
  for (int i = first, end = count < 0 ? n : first + count; i < end; ++i) {  // only these built: each holds a copy of the value
    if (per == PatchPer::all) cells.push_back({.point = point, .value = clean_value});
    else if (per == PatchPer::head) cells.push_back({.point = point, .value = clean_value, .heads = {i}});
    else if (point.per_head()) cells.push_back({.point = point, .value = clean_value, .positions = {i / heads}, .heads = {i % heads}});
    else cells.push_back({.point = point, .value = clean_value, .positions = {i}});
  }
  return cells;
}

}  // namespace attnlab::patch_grid
