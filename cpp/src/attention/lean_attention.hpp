// Attention weights and output without the intermediate score matrices: what MultiHeadAttention
// keeps per head when the weights are asked for but no trace, dropout or backward cache is.
#pragma once

#include "attnlab/attention/attention.hpp"

namespace attnlab::detail {

// Q [n_q×d_k], K [n_k×d_k], V [n_k×d_v] → AttentionResult with only `weights` [n_q×n_k] and `output`
// [n_q×d_v] filled, bit for bit those of scaled_dot_product_attention: the scale is applied where the
// product is stored, masking and the softmax work in place, so there is one n_q×n_k matrix, not four.
// With a bias, ALiBi or dropout it is scaled_dot_product_attention itself.
AttentionResult lean_attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionOptions& options);

}  // namespace attnlab::detail
