#include "attnlab/interp/attribution_patching.hpp"

#include "interp/patch_entries.hpp"
#include "interp/patch_grid.hpp"

namespace attnlab {

PatchingGrid attribution_patching(const PatchingSweep& sweep, PatchWhat what, PatchPer per) {
  const HookedGPT& model = sweep.model();
  const GPTConfig& c = model.config();
  const ActivationCache& clean = sweep.clean().cache;
  const ActivationCache& corrupted = sweep.corrupted().cache;
  const int T = corrupted.seq_len(), hd = c.d_model / c.num_heads;
  // ∂(logit[target] − logit[baseline] at the metric's position)/∂logits: +1 and −1 in that row   [T×V]
  const LogitDiffMetric& metric = sweep.metric();
  Matrix d_logits = Matrix::Zero(T, c.vocab_size);
  d_logits(metric.position, metric.target) += 1.0f;
  d_logits(metric.position, metric.baseline) -= 1.0f;
  const ActivationCache gradient = model.gradients(corrupted.ids(), d_logits);

  PatchingGrid grid{sweep.grid_shape(what, per), {}, sweep.clean_metric(), sweep.corrupted_metric()};
  for (int l = 0; l < c.num_layers; ++l) {
    const HookPoint point = patch_grid::point_of(what, l);
    // Each entry's first-order share: (A_clean − A_corrupted) ⊙ ∂metric/∂A   [the point's Matrix layout]
    const Matrix share = (clean.at(point) - corrupted.at(point)).cwiseProduct(gradient.at(point));
    const Tensor shares(hook_shape(point, T, c), std::vector<float>(share.data(), share.data() + share.size()));
    // A cell's estimate is the sum of the shares it would patch: its Patch written into zeros picks them out.
    for (const Patch& cell : patch_grid::layer_patches(what, per, l, shares, c.num_heads, T)) {
      Matrix picked = Matrix::Zero(share.rows(), share.cols());
      apply_patch(cell, picked, c.num_heads, hd, T);
      const double estimate = picked.cast<double>().sum();
      grid.values.push_back(static_cast<float>(estimate / (sweep.clean_metric() - sweep.corrupted_metric())));
    }
  }
  return grid;
}

}  // namespace attnlab
