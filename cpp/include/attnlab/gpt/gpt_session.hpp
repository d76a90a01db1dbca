// Decoding one token at a time with a KV cache, and generation.
//
// A full forward over n tokens recomputes every earlier position's keys and values; but with a causal
// mask those never change once computed. A session keeps them (per layer: K and V [t×d], head h in
// columns h·d_head …) and, for each new token, computes only its own row: one query attending over
// the cache. The logits are the full forward's last row (to float rounding).
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <span>
#include <vector>

#include "attnlab/gpt/gpt.hpp"
#include "attnlab/gpt/sampling.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

class GPTSession {
 public:
  explicit GPTSession(const GPT& model);  // the model must outlive the session

  // Feeds token `id` at position length(); returns the logits [1×V] for the token after it.
  // Error when the context is full (length() == context_length) or id is outside the vocabulary.
  Matrix append(int id);
  int length() const { return length_; }
  void reset() { length_ = 0; }

  // The cache: layer l's keys and values so far, [length×d].
  Matrix keys(int layer) const;
  Matrix values(int layer) const;
  // The last appended token's attention weights, [layer][head] → [1×length].
  const std::vector<std::vector<Matrix>>& last_attention() const { return last_attention_; }

 private:
  const GPT& model_;
  std::vector<Matrix> keys_, values_;  // [layer] → [context_length×d], the first length_ rows filled
  std::vector<std::vector<Matrix>> last_attention_;
  int length_ = 0;
};

// Multiply-adds to get the next-token logits after `n` tokens: with a cache (the new token's row
// only) or without (a full forward over all n tokens, logits for the last one only). Per layer, one
// row costs 12d² (c_attn 3d², c_proj d², the MLP 8d²) plus 2·(keys seen)·d for attention; the output
// layer V·d.
std::int64_t gpt_multiply_adds(const GPTConfig& config, std::int64_t n, bool with_cache);

struct GenerateOptions {
  int max_tokens = 32;          // ≥ 0 new tokens (fewer if the context fills or a stop token appears)
  SamplingOptions sampling;     // its penalties see the prompt and the tokens generated so far
  std::uint64_t seed = 0;
  int stop_token = -1;          // generation ends after producing it (−1: none)
  std::vector<int> stop_tokens;  // the same for each of these
};

// Why generation ended.
enum class StopReason { max_tokens, stop_token, context_full };

struct Generation {
  std::vector<int> tokens;                  // the new tokens (not the prompt)
  std::vector<float> probabilities;         // each one's probability in the distribution it was drawn from
  StopReason stopped = StopReason::max_tokens;
};

// The prompt through a session, then max_tokens draws (one Rng(seed) stream), each fed back.
Generation generate(const GPT& model, std::span<const int> prompt, const GenerateOptions& options);

}  // namespace attnlab
ATTNLAB_API_END
