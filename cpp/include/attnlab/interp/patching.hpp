// Activation patching and path patching, as TransformerLens's patching utilities and Wang et al.
// (2022, the IOI circuit) define them, measured by a logit difference at one position.
//
// Activation patching (denoising): run the corrupted prompt, put back one activation from the clean
// run, and see how much of the clean run's logit difference returns — normalised, 0 = the corrupted
// run's, 1 = the clean run's. One cell per layer × position, layer × head, layer × position × head, or
// layer, by what is patched. Each cell's run starts from the corrupted run's cache at the patched
// block: only what lies downstream is computed.
//
// Path patching (noising, Wang et al.): the sender head's output is taken from the corrupted run and
// allowed to reach the receivers only through their named inputs (q, k or v). Step 1: run the clean
// prompt with the sender's hook_z from the corrupted run and every other head's hook_z frozen at its
// clean value (the MLPs recompute), keeping the receivers' inputs. Step 2: run the clean prompt with
// only those receiver inputs replaced. The metric: the logit difference of step 2, and normalised,
// (patched − clean) / (clean − corrupted): 0 = no effect, −1 = the whole drop to the corrupted run.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "attnlab/interp/hooked_gpt.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// logit[target] − logit[baseline] at `position` (−1: the last).
struct LogitDiffMetric {
  int target = 0;
  int baseline = 0;
  int position = -1;
};

enum class PatchWhat { resid_pre, attn_out, mlp_out, z, pattern, q, k, v };
enum class PatchPer { position, head, all };

// The clean and corrupted runs of a sweep, kept whole; cells are patched runs over them.
class PatchingSweep {
 public:
  // Error unless the prompts have the same number of tokens (both lengths said) and the metric's
  // tokens and position are in range.
  PatchingSweep(const HookedGPT& model, std::span<const int> clean, std::span<const int> corrupted, LogitDiffMetric metric);

  double clean_metric() const { return clean_metric_; }
  double corrupted_metric() const { return corrupted_metric_; }
  // The grid's shape: (L, T) by position, (L, H) by head, (L, T, H) for a per-head point by position,
  // (L,) for all at once; Error for a pairing that does not exist (resid_pre by head).
  Shape grid_shape(PatchWhat what, PatchPer per) const;
  // One layer's cells of that grid, normalised, in row-major order.
  std::vector<float> layer_cells(PatchWhat what, PatchPer per, int layer) const;
  // Cells first … first + count − 1 of that layer (count −1: to the layer's end), equal to layer_cells' same
  // cells: a caller can stop, or let a page answer, between any two cells.
  std::vector<float> cells(PatchWhat what, PatchPer per, int layer, int first, int count) const;
  // The metric of the clean run with these patches (path patching's steps use it).
  double metric_of(std::span<const int> ids, const HookedRunOptions& options) const;

  const HookedGPT& model() const { return model_; }
  const HookedRun& clean() const { return clean_; }
  const HookedRun& corrupted() const { return corrupted_; }
  std::span<const int> clean_ids() const { return clean_ids_; }
  const LogitDiffMetric& metric() const { return metric_; }

 private:
  const HookedGPT& model_;
  std::vector<int> clean_ids_, corrupted_ids_;
  LogitDiffMetric metric_;
  HookedRun clean_, corrupted_;
  double clean_metric_ = 0.0, corrupted_metric_ = 0.0;
};

struct PatchingGrid {
  Shape shape;
  std::vector<float> values;  // normalised, row-major
  double clean_metric = 0.0, corrupted_metric = 0.0;
};

// Every layer's cells; `progress(layers_done, layers)` after each layer returns false to stop (Error).
PatchingGrid activation_patching(const HookedGPT& model, std::span<const int> clean, std::span<const int> corrupted,
                                 PatchWhat what, PatchPer per, LogitDiffMetric metric,
                                 const std::function<bool(int, int)>& progress = {});

struct HeadRef {
  int layer = 0, head = 0;
};
struct PathReceiver {
  int layer = 0, head = 0;
  Hook input = Hook::q;  // Hook::q, Hook::k or Hook::v
};
struct PathPatchingResult {
  double clean_metric = 0.0, corrupted_metric = 0.0;
  double patched_metric = 0.0;  // step 2's logit difference
  double normalised = 0.0;      // (patched − clean) / (clean − corrupted)
};

PathPatchingResult path_patching(const PatchingSweep& sweep, HeadRef sender, std::span<const PathReceiver> receivers);

}  // namespace attnlab
ATTNLAB_API_END
