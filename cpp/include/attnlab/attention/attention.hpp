// Scaled dot-product attention: softmax(Q·Kᵀ · scale + bias, masked) · V.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <optional>
#include <vector>

#include "attnlab/tensor/matrix.hpp"
#include "attnlab/tensor/trace.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

class Rng;

struct AttentionOptions {
  const Matrix* mask = nullptr;  // [n_q×n_k], 1 = may attend, 0 = blocked (score → −∞)
  // Causal, aligned to the last key: query i sits at position i + n_k − n_q and may attend keys at
  // positions ≤ its own (torch.tril for n_q = n_k). Combined with `mask` when both are given. Kept
  // as a rule rather than a matrix, so attention_output never builds an n×n mask.
  bool causal = false;
  std::optional<float> scale;    // default 1/√d_k; 1 means "no scaling"; any finite value
  const Matrix* bias = nullptr;  // [n_q×n_k] added to the scaled scores; finite
  // ALiBi: −slope·|i' − j| added to the scaled scores (i' = i + n_k − n_q), as alibi_bias() builds it.
  std::optional<float> alibi_slope;
  float dropout = 0.0f;          // probability of zeroing a weight (training only), needs rng
  Rng* rng = nullptr;            // the seeded stream dropout draws from
};

struct AttentionResult {
  Matrix scores;         // [n_q×n_k] raw Q·Kᵀ
  Matrix scaled_scores;  // [n_q×n_k] scores·scale (+ bias)
  Matrix masked_scores;  // [n_q×n_k] scaled scores with blocked entries set to −∞
  Matrix weights;        // [n_q×n_k] softmax rows (after dropout, if any): what multiplies V
  // [n_q×n_k] the softmax rows before dropout, kept only when dropout > 0 (empty otherwise, when they
  // are `weights`): the backward pass differentiates the softmax at these, and reads which entries
  // dropout zeroed from `weights` (backward.hpp).
  Matrix weights_before_dropout;
  Matrix output;         // [n_q×d_v] weights·V
};

// Q [n_q×d_k], K [n_k×d_k], V [n_k×d_v] → AttentionResult. n_q ≠ n_k (cross-attention) and d_v ≠ d_k
// are fine. A query row whose keys are all blocked gets weights 0 and output 0, never NaN; scores
// that overflow float32 (Q·Kᵀ too large) are an Error, not a NaN.
// Traced steps: scores, scaled_scores, (bias), (masked_scores), softmax_exp, weights, (dropout), output.
AttentionResult scaled_dot_product_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                             const AttentionOptions& options = {},
                                             const Tracer& tracer = {});

// The output alone, computed FlashAttention-style: keys in blocks, an online softmax per query row
// (running max and sum, earlier partial outputs rescaled as the max grows), so the extra memory is
// O(block² + n_q·d_v) rather than O(n_q·n_k) — long sequences fit where the n×n weights would not.
// Equals scaled_dot_product_attention(…).output up to float rounding; mask, scale and bias as there;
// no dropout. Traced steps, one per (query block, key block): "block{qb}.{kb}" with the block's
// scaled scores, its exp(score − running max), and the running max and sum after it.
Matrix attention_output(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionOptions& options = {},
                        const Tracer& tracer = {});

// One key block of flash_attention_trace: the state of every query row after it.
struct FlashAttentionBlock {
  Eigen::Index key_start = 0, key_count = 0;  // keys key_start … key_start + key_count − 1
  Matrix scores;       // [n_q×key_count] this block's scaled scores (bias added, blocked entries −∞)
  Matrix running_max;  // [n_q×1] m: the largest score seen so far (−∞ while every key so far is blocked)
  Matrix running_sum;  // [n_q×1] l: Σ exp(score − m) over the keys seen so far
  Matrix rescale;      // [n_q×1] exp(m_old − m_new), what the earlier accumulator was multiplied by
  Matrix accumulator;  // [n_q×d_v] Σ exp(score − m)·v over the keys seen so far (unnormalised output)
};

struct FlashAttentionTrace {
  std::vector<FlashAttentionBlock> blocks;  // one per key block, in order
  Matrix output;                            // [n_q×d_v] the last accumulator divided by the last sum
};

// attention_output's loop made visible: keys in blocks of block_size, all query rows at once, every
// block's scores, running max, running sum and accumulator kept (memory O(n_q·n_k + blocks·n_q·d_v):
// for teaching, not for long sequences). The same block step as attention_output runs, so the output
// equals it; mask, causal, scale, bias and ALiBi as there; no dropout.
FlashAttentionTrace flash_attention_trace(const Matrix& q, const Matrix& k, const Matrix& v, Eigen::Index block_size,
                                          const AttentionOptions& options = {});

}  // namespace attnlab
ATTNLAB_API_END
