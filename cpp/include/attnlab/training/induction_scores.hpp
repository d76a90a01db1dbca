// Per-head scores of the induction-head lesson, on examples of the repeat task (tasks.hpp):
//   r₁ … r_P  s₁ … s_L  s₁ … s_L      (N = P + 2L tokens; the second copy starts at N − L)
// previous-token score: the mean attention from position t to t − 1 over the second copy's positions
//   t = N − L … N − 1 — what the first layer's head does that the induction head builds on;
// induction score: the mean attention from the second copy's s_i (position N − L + i − 1) to the
//   first copy's s_{i+1} (position P + i), i = 1 … L − 1 — the token to predict, one after the match.
// Heads are layer-major: index layer · heads + head.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <vector>

#include "attnlab/tensor/matrix.hpp"
#include "attnlab/training/tasks.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

class TaskTrainer;

struct InductionScores {
  std::vector<float> previous_token;  // [layers·heads]
  std::vector<float> induction;       // [layers·heads]
};

// One example's scores from its attention ([layer][head] → [N×N], as ModelOutput::attention) and its
// segment length L (4 ≤ 2L ≤ N; Error otherwise, or if a weight matrix is not N×N).
InductionScores induction_scores(const std::vector<std::vector<Matrix>>& attention, int segment_length);

// The mean over `examples` (repeat examples, at least one) of each example's scores under the
// trainer's current model.
InductionScores induction_scores(TaskTrainer& trainer, const std::vector<TaskExample>& examples);

}  // namespace attnlab
ATTNLAB_API_END
