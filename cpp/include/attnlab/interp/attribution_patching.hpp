// Attribution patching (Nanda 2023; Syed, Rager and Conmy 2023): every cell of an activation-patching grid
// estimated at once, to first order, from the corrupted run's gradient — one forward and one backward
// instead of a forward per cell.
//
// Activation patching (patching.hpp) puts a clean activation A_clean into the corrupted run. Its linear
// estimate, around the corrupted run:
//   metric(corrupted, A ← A_clean) ≈ metric(corrupted) + Σ_cell (A_clean − A_corrupted) ⊙ ∂metric/∂A
// summed over the entries the cell patches (a position's row, a head's columns, a query row of a head's
// pattern), and normalised as activation patching normalises: estimate / (clean − corrupted), so the two
// grids can be read side by side. Exact where the metric is linear in A along the way (a head whose
// output reaches the logits only through linear maps); it fails where the path is far from linear — a
// patched residual stream, which passes every later LayerNorm, attention softmax and MLP, or a change so
// large that the softmax saturates.
#pragma once

#include "attnlab/tensor/api.hpp"

#include "attnlab/interp/patching.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// The grid activation_patching(sweep's prompts, what, per) would return, estimated: same shape, same
// normalisation, same clean and corrupted metrics. Every PatchWhat and PatchPer that activation
// patching takes.
PatchingGrid attribution_patching(const PatchingSweep& sweep, PatchWhat what, PatchPer per);

}  // namespace attnlab
ATTNLAB_API_END
