// What each attention head does, measured as in the induction-heads literature (Olsson et al. 2022).
// Every score is a mean attention weight, per layer and head, in [0, 1]:
//   previous_token   on ordinary text: the weight from position i to i − 1 (i ≥ 1)
//   first_token      on ordinary text: the weight on position 0 (the "attention sink"), i ≥ 1
//   induction        on random tokens r_0 … r_{T−1} repeated once (2T tokens): the weight from
//                    position i of the second copy (T ≤ i < 2T) to i − T + 1, the token that followed
//                    this token's earlier occurrence
//   duplicate_token  on the same sequence: the weight from i (second copy) to i − T, the earlier
//                    occurrence of the same token
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <span>
#include <vector>

#include "attnlab/gpt/gpt.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct HeadScores {
  Matrix previous_token;   // [layers×heads]
  Matrix first_token;      // [layers×heads]
  Matrix induction;        // [layers×heads]
  Matrix duplicate_token;  // [layers×heads]
};

struct HeadScoreOptions {
  int repeat_length = 0;   // T of the repeated sequence: 0 = min(50, context_length / 2)
  int samples = 4;         // random sequences averaged over
  std::uint64_t seed = 0;
  int token_low = 0;       // random tokens are drawn uniformly from [token_low, token_high)
  int token_high = 0;      // 0 = vocab_size
};

// `text` (2 … context_length ids of ordinary text) for previous_token and first_token; seeded random
// repeated sequences for induction and duplicate_token.
HeadScores head_scores(const GPT& model, std::span<const int> text, const HeadScoreOptions& options = {});

// The random sequence r_0 … r_{T−1} r_0 … r_{T−1}, tokens uniform in [low, high) from Rng(seed);
// T = length in 1 … kMaxRepeatLength.
inline constexpr int kMaxRepeatLength = 1 << 20;
std::vector<int> repeated_random_tokens(int length, int low, int high, std::uint64_t seed);

// Per position t < n − 1, the loss −log p(ids[t+1] | ids[0 … t]) of the forward with `options`
// (ablations included): [n − 1]. On a repeated random sequence, an induction head makes the
// second copy's losses drop.
std::vector<float> token_losses(const GPT& model, std::span<const int> ids, const GPTForwardOptions& options = {});

}  // namespace attnlab
ATTNLAB_API_END
