// Choosing the next token from a row of logits, as Hugging Face's generate() does, in this order:
//   0. penalties, given the context (the tokens so far: prompt and generated), each as published:
//      a. repetition penalty θ (CTRL, Keskar et al. 2019, as RepetitionPenaltyLogitsProcessor applies
//         it): a logit of a token in the context is divided by θ if positive, multiplied by θ if
//         negative (θ = 1: off; θ > 1 discourages repeats);
//      b. presence and frequency penalties (OpenAI's definitions): logit − frequency·c − presence·[c > 0],
//         c the token's count in the context;
//      c. no-repeat n-gram size n (NoRepeatNGramLogitsProcessor): a token that would complete an n-gram
//         already in the context is blocked (−∞);
//   1. temperature: p ∝ exp(logit / temperature)  (temperature 0 = greedy: all mass on the argmax)
//   2. top-k: keep the k most probable tokens (0 = keep all)
//   3. top-p (nucleus): keep the most probable tokens until their mass reaches top_p (always ≥ 1 token)
//   4. renormalise what is kept, and draw one token from it with a seeded Rng.
// A logit of −∞ is a blocked token (probability 0), as in softmax; every token blocked is an Error.
// Temperature is the softmax's scale: the same 1/√d_k knob attention turns, seen from the output.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <span>
#include <vector>

#include "attnlab/tensor/rng.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct SamplingOptions {
  float temperature = 1.0f;        // ≥ 0 (0 = greedy)
  int top_k = 0;                   // ≥ 0 (0 = no limit)
  float top_p = 1.0f;              // in (0, 1]
  float repetition_penalty = 1.0f;  // > 0 (1 = off)
  int no_repeat_ngram_size = 0;     // ≥ 0 (0 = off)
  float presence_penalty = 0.0f;    // finite (0 = off)
  float frequency_penalty = 0.0f;   // finite (0 = off)

  bool has_penalties() const {
    return repetition_penalty != 1.0f || no_repeat_ngram_size > 0 || presence_penalty != 0.0f || frequency_penalty != 0.0f;
  }
};

// Step 0: the logits with the penalties applied for `context` (token ids, each in [0, V)); blocked
// tokens are −∞. Error for out-of-range options or context ids (named).
std::vector<float> penalized_logits(std::span<const float> logits, std::span<const int> context, const SamplingOptions& options);

// The distribution a token is drawn from: [V] probabilities summing to 1, 0 for filtered tokens.
// Ties in the ordering (for top-k/top-p) go to the smaller id. Error for empty logits, a NaN or +∞,
// every logit −∞, or out-of-range options (named). No context: the penalties have nothing to penalise.
std::vector<float> sampling_distribution(std::span<const float> logits, const SamplingOptions& options);
// The same after penalized_logits(logits, context, options).
std::vector<float> sampling_distribution(std::span<const float> logits, std::span<const int> context,
                                         const SamplingOptions& options);

struct SampledToken {
  int token = 0;
  std::vector<float> probabilities;  // [V]: the distribution it was drawn from
};

// One draw: u = rng.uniform_double(), then the first id whose cumulative probability exceeds u.
SampledToken sample(std::span<const float> logits, const SamplingOptions& options, Rng& rng);
SampledToken sample(std::span<const float> logits, std::span<const int> context, const SamplingOptions& options, Rng& rng);

}  // namespace attnlab
ATTNLAB_API_END
