// Choosing the next token from a row of logits, as Hugging Face's generate() does, in this order:
//   1. temperature: p ∝ exp(logit / temperature)  (temperature 0 = greedy: all mass on the argmax)
//   2. top-k: keep the k most probable tokens (0 = keep all)
//   3. top-p (nucleus): keep the most probable tokens until their mass reaches top_p (always ≥ 1 token)
//   4. renormalise what is kept, and draw one token from it with a seeded Rng.
// Temperature is the softmax's scale: the same 1/√d_k knob attention turns, seen from the output.
#pragma once

#include <span>
#include <vector>

#include "attnlab/tensor/rng.hpp"

namespace attnlab {

struct SamplingOptions {
  float temperature = 1.0f;  // ≥ 0 (0 = greedy)
  int top_k = 0;             // ≥ 0 (0 = no limit)
  float top_p = 1.0f;        // in (0, 1]
};

// The distribution a token is drawn from: [V] probabilities summing to 1, 0 for filtered tokens.
// Ties in the ordering (for top-k/top-p) go to the smaller id. Error for empty or non-finite logits or
// out-of-range options (named).
std::vector<float> sampling_distribution(std::span<const float> logits, const SamplingOptions& options);

struct SampledToken {
  int token = 0;
  std::vector<float> probabilities;  // [V]: the distribution it was drawn from
};

// One draw: u = rng.uniform_double(), then the first id whose cumulative probability exceeds u.
SampledToken sample(std::span<const float> logits, const SamplingOptions& options, Rng& rng);

}  // namespace attnlab
