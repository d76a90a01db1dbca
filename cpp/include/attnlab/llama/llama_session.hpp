// Decoding with a KV cache for the Llama family, and generation.
//
// The cache keeps, per layer, the keys and values of the key/value heads only: [tokens × Hkv·hd] each,
// H / Hkv times smaller than multi-head attention's (LlamaConfig::kv_cache_bytes_per_token).
//
// Two policies:
//   - the full cache (window = 0): every token stays; keys are stored turned by RoPE at their
//     positions, and a new token's logits are the full forward's last row (to float rounding). A
//     config's sliding_window (Mistral) masks the keys older than the window, as the forward does.
//   - attention sinks (StreamingLLM, Xiao et al. 2023; sinks = s, window = w > 0): the first s tokens
//     stay for ever, and of the rest only the last w (the new token included); the others are evicted,
//     so the cache never holds more than s + w tokens however long the text. As StreamingLLM does,
//     RoPE uses positions within the cache, not in the text: keys are stored before rotation and turned
//     at every step to their cache positions 0 … n − 1, the new query at n − 1. With s = 0 this is a
//     plain window cache, whose loss StreamingLLM found to blow up once the first tokens are evicted.
//     This policy replaces a config's own sliding_window.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <span>
#include <vector>

#include "attnlab/gpt/gpt_session.hpp"
#include "attnlab/llama/llama.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct LlamaCachePolicy {
  int sinks = 0;   // s ≥ 0: the first tokens kept for ever (only with a window)
  int window = 0;  // w ≥ 0: 0 keeps every token; w > 0 keeps the last w besides the sinks
};

class LlamaSession {
 public:
  // The model must outlive the session. Error for a negative sinks or window, or sinks without a window.
  explicit LlamaSession(const Llama& model, LlamaCachePolicy policy = {});

  // Reads token `id`; returns the logits [1×V] for the token after it.
  Matrix append(int id);
  // Reads several tokens (the full cache: in one pass, as the forward; with sinks: one at a time, as
  // StreamingLLM reads a stream); returns the logits [n×V] after each of them.
  Matrix append(std::span<const int> ids);

  int length() const { return length_; }                     // tokens read so far
  int cached() const { return static_cast<int>(index_.size()); }  // tokens in the cache now
  const std::vector<int>& cached_tokens() const { return index_; }  // their positions in the text, in order
  std::int64_t cache_bytes() const;                           // cached() · kv_cache_bytes_per_token
  const LlamaCachePolicy& policy() const { return policy_; }
  void reset();

  // Layer l's cache [cached × Hkv·hd]: keys as stored (turned at their text positions with the full
  // cache, not turned with sinks), values.
  const Matrix& keys(int layer) const;
  const Matrix& values(int layer) const;
  // The last token's attention weights, [layer][head] → [1×cached].
  const std::vector<std::vector<Matrix>>& last_attention() const { return last_attention_; }

 private:
  Matrix read(std::span<const int> ids);  // full cache: ids' rows in one pass
  Matrix read_streaming(int id);          // sinks: one token

  const Llama& model_;
  LlamaCachePolicy policy_;
  std::vector<Matrix> keys_, values_;  // [layer] → [cached × Hkv·hd]
  std::vector<int> index_;             // the cached tokens' positions in the text
  std::vector<std::vector<Matrix>> last_attention_;
  int length_ = 0;
};

// The prompt through a session with `policy`, then max_tokens draws (one Rng(seed) stream), each fed
// back (gpt_session.hpp's GenerateOptions; a Llama has no fixed context, so it stops only at max_tokens
// or a stop token).
Generation generate(const Llama& model, std::span<const int> prompt, const GenerateOptions& options,
                    LlamaCachePolicy policy = {});

}  // namespace attnlab
ATTNLAB_API_END
