// Backward passes of the stateless operations: the softmax and scaled dot-product attention. Each
// takes the forward pass's inputs and results plus the gradient of the loss with respect to the
// forward's output, and returns the gradients with respect to its inputs (vector–Jacobian products,
// as PyTorch's autograd computes them). The layers with parameters have their own backward passes.
#pragma once

#include "attnlab/tensor/api.hpp"

#include "attnlab/attention/attention.hpp"
#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// weights [rows×cols] = softmax(x), d_weights [rows×cols] = ∂L/∂weights → ∂L/∂x [rows×cols]:
// row by row, dx = w ⊙ (dw − Σ_j dw_j·w_j). Entries with weight 0 — blocked (−∞) logits, or a fully
// blocked row — get gradient exactly 0, never NaN. Throws Error on mismatched shapes, an empty
// matrix, weights outside [0, 1] or NaN, and non-finite d_weights.
Matrix softmax_backward(const Matrix& weights, const Matrix& d_weights);

struct AttentionGradients {
  Matrix d_q;     // [n_q×d_k]
  Matrix d_k;     // [n_k×d_k]
  Matrix d_v;     // [n_k×d_v]
  Matrix d_bias;  // [n_q×n_k] when options.bias was given, empty otherwise
};

// The gradients of scaled_dot_product_attention(q, k, v, options) given d_output = ∂L/∂output
// [n_q×d_v]. `forward` is that call's result and `options` the same options (scale, mask, causal,
// bias, alibi_slope, dropout; no rng is drawn from). Blocked entries have weight exactly 0, so they
// pass no gradient back, and a query row with every key blocked gets d_q = 0, never NaN. With dropout
// the softmax is differentiated at forward.weights_before_dropout, and the entries that forward.weights
// holds as 0 are the dropped ones. The ALiBi slope is a fixed hyperparameter: it has no gradient.
// Throws Error on inconsistent shapes, a forward result that does not fit the options, non-finite
// d_output, or gradients that overflow float32.
AttentionGradients scaled_dot_product_attention_backward(const Matrix& q, const Matrix& k, const Matrix& v,
                                                         const AttentionResult& forward, const Matrix& d_output,
                                                         const AttentionOptions& options = {});

}  // namespace attnlab
ATTNLAB_API_END
