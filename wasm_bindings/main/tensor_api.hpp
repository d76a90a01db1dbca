// The tensor calls of the main module (issue 31): tensors in the tutorials' shapes, (batch, heads, seq,
// d_k), as JS { shape, data } (web/lib/tensor.js). Thin wrappers like api.hpp's: convert, call the core
// (attnlab::Tensor, attention/batched_attention.hpp, layers/batched_multi_head_attention.hpp), convert
// back; undefined on error, with the message kept for takeLastError().
#pragma once

#include <emscripten/val.h>

#include "api.hpp"

namespace attnlab::wasm {

using emscripten::val;

// (…, n_q, d_k) × (…, n_k, d_k) × (…, n_k, d_v) → { output (…, n_q, d_v), weights (…, n_q, n_k) }.
// options: { mask?: Tensor, maskKind?: 'binary' | 'additive', causal?, keyPaddingMask?: Tensor (batch, n_k),
// scale?, dropout?, seed?, weights? (false: { output } alone, by the online softmax) }
val tensor_attention(const val& q, const val& k, const val& v, const val& options);
// x (batch, seq, d_model), or query/key/value for cross-attention (key undefined: self-attention) →
// { output (batch, n_q, d_model), weights (batch, heads, n_q, n_k), averageWeights? (batch, n_q, n_k) }.
// options: { mask?, maskKind?, causal?, keyPaddingMask?, averageWeights?, seed? (dropout while training),
// weights? (false: { output } alone) }
val multi_head_forward_tensor(const MultiHeadAttentionHandle& mha, const val& query, const val& key, const val& value,
                              const val& options);
// x (batch, seq, d_model) → (batch, seq, d_model). options: { mask? (seq, seq) or (batch, seq, seq),
// causal?, keyPaddingMask? (batch, seq) }
val encoder_forward_tensor(TransformerEncoderLayerHandle& layer, const val& x, const val& options);
// The view operations, each returning a contiguous copy (JS tensors hold row-major data).
val reshape_tensor(const val& t, const val& shape);
val permute_tensor(const val& t, const val& dims);
val transpose_tensor(const val& t, int dim0, int dim1);

}  // namespace attnlab::wasm
