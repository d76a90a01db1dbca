// Writing a Patch into a hook point's Matrix (hook_points.hpp's layout).
#pragma once

#include "attnlab/interp/hooked_gpt.hpp"

namespace attnlab {

// The chosen entries of `value` [rows×cols] (the point's Matrix for a run of T tokens) replaced as
// `patch` says: positions × heads, each a row segment (a row's d_head columns at (T, heads, d_head)
// points; a query row of that head's [T×T] at (heads, T, T) points; the whole row elsewhere).
void apply_patch(const Patch& patch, Matrix& value, const GPTConfig& config, int T);

}  // namespace attnlab
