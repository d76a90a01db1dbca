// The logit lens (nostalgebraist 2020): read the residual stream part-way through the model as if it
// were the last layer's — ln_final with that point's own statistics, then the unembedding — and see
// which tokens it already favours. Points: each block's hook_resid_pre and hook_resid_mid, and the last
// block's hook_resid_post, whose row is the model's own distribution (bit for bit: the run's logits).
#pragma once

#include "attnlab/tensor/api.hpp"

#include <span>
#include <string>
#include <vector>

#include "attnlab/interp/hooked_gpt.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct LensCell {
  std::vector<int> top_ids;              // the k most likely tokens, most likely first (ties: lower id)
  std::vector<float> top_probabilities;  // their probabilities
  float target_probability = 0.0f;      // the target's (when one was given)
  int target_rank = 0;                   // 1 = the most likely; 1 + the number of tokens scored higher
};

struct LogitLens {
  std::vector<std::string> points;     // hook names, in forward order (2·L + 1)
  std::vector<int> positions;          // the positions read
  std::vector<std::vector<LensCell>> cells;  // [point][position]
};

// ids [T]; positions in 0 … T−1 (all when empty); 1 ≤ k ≤ V; target −1 (none) or a token id.
LogitLens logit_lens(const HookedGPT& model, std::span<const int> ids, std::span<const int> positions, int k,
                     int target = -1);

}  // namespace attnlab
ATTNLAB_API_END
