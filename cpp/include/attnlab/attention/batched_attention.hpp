// Scaled dot-product attention with a batch, as every tutorial writes it:
//   q, k, v (batch, heads, seq, d_k) = x.view(batch, seq, heads, d_k).transpose(1, 2)
//   weights = softmax(q @ k.transpose(-2, -1) * scale, masked)    (batch, heads, n_q, n_k)
//   output  = weights @ v                                          (batch, heads, n_q, d_v)
// Each (…) slice is exactly the 2-D scaled_dot_product_attention (attention.hpp) of that slice: the
// same numbers to the bit, the same masked-row rule (a query whose keys are all blocked gets weights
// 0 and output 0, never NaN).
//
// Masks, and which way round they read:
//   mask, MaskKind::binary    1 = may attend, 0 = blocked: attnlab's convention, the tutorials'
//                             scores.masked_fill(mask == 0, -inf), and F.scaled_dot_product_attention's
//                             boolean attn_mask (True = takes part). nn.MultiheadAttention's boolean
//                             attn_mask is the opposite (True = blocked): pass 1 − mask.
//   mask, MaskKind::additive  added to the scaled scores, −∞ blocks: torch's float attn_mask.
//   key_padding_mask          (batch, n_k), 1 = PAD, 0 = real token: PyTorch's key_padding_mask, so
//                             `tokens == pad_id` goes in as it does to nn.MultiheadAttention —
//                             the opposite sense of a binary mask, as in PyTorch.
//   causal                    query i attends keys ≤ i (aligned to the last key when n_q ≠ n_k).
// All that are given apply together: a key is attended only where every one allows it.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <optional>

#include "attnlab/tensor/tensor.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

class Rng;

// How BatchedAttentionOptions::mask reads (see above).
enum class MaskKind { binary, additive };

struct BatchedAttentionOptions {
  // Broadcasts to the scores (…, n_q, n_k): (n_q, n_k), (1, 1, n_q, n_k), (batch, 1, 1, n_k), …
  const Tensor* mask = nullptr;
  MaskKind mask_kind = MaskKind::binary;
  bool causal = false;
  // (batch, n_k), 1 = PAD: sequence b's padded keys are blocked for all its queries and heads.
  const Tensor* key_padding_mask = nullptr;
  std::optional<float> scale;  // default 1/√d_k
  // Dropout on the weights, drawn from rng slice after slice in row-major order of the batch dims:
  // the draws a loop of 2-D calls over the slices makes.
  float dropout = 0.0f;
  Rng* rng = nullptr;
  // false: the output alone, each slice by attention_output (online softmax, no n_q × n_k matrices:
  // the 2-D call's numbers with weights: false); weights is then empty. Ignored with dropout > 0.
  bool need_weights = true;
};

struct BatchedAttentionResult {
  Tensor output;   // (…, n_q, d_v)
  Tensor weights;  // (…, n_q, n_k), after dropout if any; empty when need_weights is false
};

// q (…, n_q, d_k), k (…, n_k, d_k), v (…, n_k, d_v), their leading dims "…" broadcast together by
// PyTorch's rules (a (n_k, d_k) K serves every head) → output (…, n_q, d_v), weights (…, n_q, n_k).
BatchedAttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                                    const BatchedAttentionOptions& options = {});

}  // namespace attnlab
ATTNLAB_API_END
