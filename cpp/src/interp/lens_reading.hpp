// What the logit lens of any model shares: its arguments' checks, and reading each row of logits as a
// cell (softmax in double, the top k, the target's probability and rank).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "attnlab/interp/logit_lens.hpp"

namespace attnlab::lens_reading {

// k in 1 … V, target −1 or a token, each position in 0 … T−1 → the positions read (every one when empty).
std::vector<int> checked_positions(const char* function, std::span<const int> positions, int T, int k, int target, int vocab_size);

// early [points·P × V] (point-major: the P positions of points[0], then of points[1], …) and the run's
// own logits [T×V] → the lens: each early point, then `final_point` read from the run's logits.
LogitLens read(std::vector<std::string> points, std::string final_point, std::vector<int> positions, const Matrix& early,
               const Matrix& final_logits, int k, int target);

}  // namespace attnlab::lens_reading
