// Multi-head attention over a batch, as the tutorials write it with tensors (issue 31):
//   x (batch, seq, d_model) → qkv (batch, seq, 3·d_model) → view (batch, seq, 3, heads, d_k)
//   → permute (3, batch, heads, seq, d_k) → q, k, v → batched SDPA → transpose(1, 2)
//   → reshape (batch, seq, d_model) → out_proj.
// It runs a MultiHeadAttention's weights (PyTorch's in_proj_weight / out_proj layout), so sequence b of
// the result is the 2-D MultiHeadAttention::forward of sequence b alone — the same numbers to the bit
// where the 2-D call runs the full softmax (forward with a cache), within 1e-6 of its default path.
//
// Masks, as BatchedAttentionOptions reads them (attention/batched_attention.hpp):
//   mask              broadcasts to the weights (batch, heads, n_q, n_k); MaskKind::binary (1 = may
//                     attend, the opposite of nn.MultiheadAttention's bool attn_mask) or ::additive
//                     (torch's float attn_mask, −∞ blocks)
//   causal            query i attends keys ≤ i
//   key_padding_mask  (batch, n_k), PyTorch's convention: 1 = PAD, 0 = real token
// A query whose keys are all blocked (a sequence that is all padding) gets weights 0, so its output
// is out_proj's bias — never NaN. (torch 1.13's nn.MultiheadAttention gives NaN there.)
#pragma once

#include "attnlab/tensor/api.hpp"

#include "attnlab/attention/batched_attention.hpp"
#include "attnlab/layers/multi_head_attention.hpp"
#include "attnlab/tensor/tensor.hpp"
#include "attnlab/tensor/trace.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

class Rng;

struct BatchedMultiHeadOptions {
  const Tensor* mask = nullptr;  // broadcasts to (batch, heads, n_q, n_k)
  MaskKind mask_kind = MaskKind::binary;
  bool causal = false;
  const Tensor* key_padding_mask = nullptr;  // (batch, n_k), 1 = PAD
  bool average_weights = false;  // also return the mean over heads (PyTorch's average_attn_weights=True)
  // false: the output alone (each head by attention_output, online softmax: the 2-D forward's numbers
  // with need_weights false); weights and average_weights are then empty. Ignored while dropping out.
  bool need_weights = true;
  // Dropout on the weights while the layer is in training mode with config().dropout > 0: drawn from
  // this rng (the layer's own dropout stream is the 2-D forward's).
  Rng* rng = nullptr;
};

struct BatchedMultiHeadOutput {
  Tensor output;           // (batch, n_q, d_model)
  Tensor weights;          // (batch, heads, n_q, n_k): per head, as average_attn_weights=False (empty without need_weights)
  Tensor average_weights;  // (batch, n_q, n_k) when asked for, else empty
};

// Self-attention: x (batch, seq, d_model) → output (batch, seq, d_model).
// With an enabled tracer, records the tutorials' steps with their shapes (Tracer::record_tensors): x;
// qkv (batch, seq, 3·d_model), PyTorch's fused in_proj; qkv.reshape (batch, seq, 3, heads, d_k);
// qkv.permute (3, batch, heads, seq, d_k); q_k_v (each (batch, heads, seq, d_k)); scores (batch, heads,
// n_q, n_k), q·kᵀ/√d_k before any mask; weights; heads (batch, heads, n_q, d_k); transpose
// (batch, n_q, heads, d_k); concat (batch, n_q, d_model); output. Cross-attention records q_k_v from
// the three projections instead of the fused qkv steps.
BatchedMultiHeadOutput multi_head_attention_forward(const MultiHeadAttention& mha, const Tensor& x,
                                                    const BatchedMultiHeadOptions& options = {},
                                                    const Tracer& tracer = {});
// Cross-attention: query (batch, n_q, d_model), key and value (batch, n_k, d_model) → (batch, n_q, d_model).
BatchedMultiHeadOutput multi_head_attention_forward(const MultiHeadAttention& mha, const Tensor& query,
                                                    const Tensor& key, const Tensor& value,
                                                    const BatchedMultiHeadOptions& options = {},
                                                    const Tracer& tracer = {});

}  // namespace attnlab
ATTNLAB_API_END
