// Writing a patch into a hook point's Matrix (hook_points.hpp's layout), for the GPT's named points
// (Patch) and for any model's points described by their layout.
#pragma once

#include <span>

#include "attnlab/interp/hooked_gpt.hpp"

namespace attnlab {

// How a point's Matrix holds its heads: none (heads 0: a row is a position's whole value), (T, heads,
// head_dim) as [T × heads·head_dim], or (heads, T, T) as [heads·T × T] (square).
struct PatchLayout {
  int heads = 0;
  int head_dim = 0;
  bool square = false;
};

// The chosen entries of `value` [rows×cols] (the point's Matrix for a run of T tokens) replaced from
// `source` (value: the whole point's values; zero; mean over the run's own positions): positions (all
// when empty) × heads (all when empty), each a row segment — a row's head_dim columns at (T, heads,
// head_dim) points, a query row of that head's [T×T] at (heads, T, T) points, the whole row elsewhere.
void write_patch(PatchSource source, const Tensor& values, std::span<const int> positions, std::span<const int> heads,
                 PatchLayout layout, Matrix& value, int T);

// A GPT's patch at its point; `heads` is the point's number of heads.
void apply_patch(const Patch& patch, Matrix& value, int heads, int head_dim, int T);

}  // namespace attnlab
