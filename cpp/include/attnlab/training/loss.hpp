// What a classifier built on attention ends in: the token vectors averaged into one (mean pooling) and
// the cross-entropy loss against the true classes, each with its gradient for training.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <vector>

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct CrossEntropyResult {
  float loss;        // mean over the rows that count (not ignore_index)
  Matrix d_logits;   // [n×C] ∂loss/∂logits: (softmax − one_hot(target)) / count; 0 on ignored rows
};

// logits [n×C] (one row of class scores per example), targets n class indices in 0..C−1 → the loss of
// torch.nn.CrossEntropyLoss() (mean reduction) and its gradient. Computed as log-sum-exp − logit of
// the target, with the row maximum subtracted first, so logits of magnitude 1e4 are fine. Rows whose
// target is ignore_index (padding) are left out of the mean; if every row is ignored the loss is 0
// and the gradient 0 (PyTorch gives NaN). Throws Error on an empty or non-finite logits matrix, a
// targets count other than n, or a target outside 0..C−1 that is not ignore_index.
CrossEntropyResult cross_entropy(const Matrix& logits, const std::vector<int>& targets, int ignore_index = -100);

// x [n×d] → [1×d]: the mean of x's rows. `valid` is empty (every row counts) or n entries of 1 (a real
// token) and 0 (padding, left out), as a key-padding mask marks keys. No valid row gives zeros, not NaN.
Matrix mean_pool(const Matrix& x, const std::vector<int>& valid = {});

// d_pooled [1×d] = ∂L/∂mean_pool(x, valid) → ∂L/∂x [n×d]: each valid row gets d_pooled / count, padding
// rows get 0.
Matrix mean_pool_backward(int n, const Matrix& d_pooled, const std::vector<int>& valid = {});

}  // namespace attnlab
ATTNLAB_API_END
