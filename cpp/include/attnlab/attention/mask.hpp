// Attention masks in the tutorials' convention: 1 = may attend, 0 = blocked. A blocked score becomes
// −∞ before the softmax, so its weight is exactly 0. A query row whose keys are all blocked gets
// weights 0 and output 0 — never NaN.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <vector>

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// [n×n] lower-triangular ones: query i may attend keys 0..i (torch.tril(torch.ones(n, n))).
Matrix causal_mask(int n);

// [n_q×n_k] causal mask aligned to the last key, as when decoding with a cache: the queries are the
// last n_q positions of the sequence, so query i may attend keys 0..i + (n_k − n_q). With n_q > n_k
// the first n_q − n_k rows have no visible key.
Matrix causal_mask(int n_q, int n_k);

// [n_q×n_k] key-padding mask: keys 0..valid_length−1 are real tokens, the rest padding (blocked).
Matrix key_padding_mask(int n_q, int n_k, int valid_length);

// One key-padding mask per sequence of a padded batch, from the valid lengths.
std::vector<Matrix> key_padding_masks(int n_q, int n_k, const std::vector<int>& valid_lengths);

// Elementwise AND of two masks of the same shape (e.g. causal and padding together).
Matrix combine_masks(const Matrix& a, const Matrix& b);

}  // namespace attnlab
ATTNLAB_API_END
