// What every activation-patching sweep shares, whatever the model: the metric's checks, the grid's
// shape and its cells (one Patch each, in the grid's row-major order), and a cell's normalised value.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "attnlab/interp/patching.hpp"
#include "tensor/checks.hpp"

namespace attnlab::patch_grid {

// The hook point `what` names in `layer` (hook_resid_pre, hook_attn_out, …, attn.hook_v).
HookPoint point_of(PatchWhat what, int layer);

// logits_row [1×V] → logit[target] − logit[baseline], in double.
double logit_diff(const Matrix& logits_row, const LogitDiffMetric& metric);

// The metric with position −1 resolved to the last; Error (naming `function`) unless the prompts have the
// same number of tokens (both said) and the metric's tokens and position are in range.
LogitDiffMetric checked_metric(const char* function, std::span<const int> clean, std::span<const int> corrupted,
                               LogitDiffMetric metric, int vocab_size);
// Error unless the clean and corrupted runs' metrics differ (else nothing can be recovered).
void require_difference(const char* function, double clean_metric, double corrupted_metric);

// (L, T) by position, (L, heads) by head, (L, T, heads) for a per-head point by position, (L,) for all;
// `heads` is the point's number of heads. Error for resid_pre, attn_out or mlp_out by head.
Shape shape(PatchWhat what, PatchPer per, int num_layers, int heads, int T);

// One layer's cells: `point` given `clean_value` at each cell's positions and heads, in row-major order.
std::vector<Patch> layer_patches(PatchWhat what, PatchPer per, int layer, const Tensor& clean_value, int heads, int T);

// Cells first … first + count − 1 of layer_patches (count −1: to the end), only those built; Error unless they
// lie within the layer's cells.
std::vector<Patch> cell_patches(PatchWhat what, PatchPer per, int layer, const Tensor& clean_value, int heads, int T, int first,
                                int count);

// Error (naming `function`) unless the sender is a head of the model and every receiver a head of a later
// layer read through q, k or v: a query head (0 … heads − 1) for q, a key/value head (0 … kv_heads − 1) for k and v.
void check_path(const char* function, HeadRef sender, std::span<const PathReceiver> receivers, int num_layers, int heads,
                int kv_heads);

// Path patching's normalised effect: (patched − clean) / (clean − corrupted), 0 = none, −1 = the whole drop.
inline double path_normalised(double patched, double clean, double corrupted) { return (patched - clean) / (clean - corrupted); }

// (patched − corrupted) / (clean − corrupted): 0 = the corrupted run's metric, 1 = the clean run's.
inline float normalised(double patched, double clean, double corrupted) {
  return static_cast<float>((patched - corrupted) / (clean - corrupted));
}

// Every layer's cells of a sweep (PatchingSweep or LlamaPatchingSweep); `progress(layers_done, layers)`
// after each layer returns false to stop (Error).
template <class Sweep>
PatchingGrid sweep(const Sweep& sweep, PatchWhat what, PatchPer per, const std::function<bool(int, int)>& progress) {
  PatchingGrid grid{sweep.grid_shape(what, per), {}, sweep.clean_metric(), sweep.corrupted_metric()};
  const int L = static_cast<int>(grid.shape[0]);
  for (int l = 0; l < L; ++l) {
    const std::vector<float> cells = sweep.layer_cells(what, per, l);
    grid.values.insert(grid.values.end(), cells.begin(), cells.end());
    if (progress && !progress(l + 1, L)) detail::fail("activation_patching", "stopped after ", l + 1, " of ", L, " layers");
  }
  return grid;
}

}  // namespace attnlab::patch_grid
