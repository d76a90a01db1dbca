// A TransformerEncoderLayer over a batch, as nn.TransformerEncoderLayer(batch_first=True) runs it
// (issue 31):
//   x (batch, seq, d_model), mask broadcasting to (batch, seq, seq), key_padding_mask (batch, seq)
//   → (batch, seq, d_model)
// Sequence b of the result is TransformerEncoderLayer::forward of sequence b alone, its masks put
// together into the one seq × seq mask that call takes: the same numbers to the bit.
//
// Masks, and which way round they read (as BatchedAttentionOptions, attention/batched_attention.hpp):
//   mask              1 = may attend, 0 = blocked; (seq, seq) for every sequence or (batch, seq, seq)
//                     one per sequence (PyTorch's src_mask: a bool True = blocked, so pass 1 − mask)
//   causal            query i attends keys ≤ i
//   key_padding_mask  (batch, seq), 1 = PAD: PyTorch's src_key_padding_mask
// A padded query still gets an output (its row attends the real keys), as in PyTorch.
#pragma once

#include "attnlab/tensor/api.hpp"

#include "attnlab/layers/encoder_layer.hpp"
#include "attnlab/tensor/tensor.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct BatchedEncoderOptions {
  const Tensor* mask = nullptr;  // broadcasts to (batch, seq, seq), 1 = may attend
  bool causal = false;
  const Tensor* key_padding_mask = nullptr;  // (batch, seq), 1 = PAD
};

// x (batch, seq, d_model) → (batch, seq, d_model). Not const: a layer in training mode draws dropout
// from its own stream, sequence after sequence.
Tensor encoder_layer_forward(TransformerEncoderLayer& layer, const Tensor& x, const BatchedEncoderOptions& options = {});

}  // namespace attnlab
ATTNLAB_API_END
