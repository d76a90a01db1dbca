// Row-wise softmax, numerically stable: each row has its maximum subtracted before exp, so logits of
// magnitude 1e4 give finite weights. −∞ means "blocked": its weight is exactly 0, and a row that is
// entirely −∞ gives all-zero weights rather than NaN (0/0).
#pragma once

#include "attnlab/tensor/api.hpp"

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// logits [rows×cols] → weights [rows×cols], each row summing to 1 (or all 0 if fully blocked).
// Throws attnlab::Error on an empty matrix, NaN or +∞.
Matrix softmax(const Matrix& logits);

// The three passes of a row softmax, kept for the learner: row_max [rows×1], exp = exp(x − row_max)
// [rows×cols], row_sum [rows×1] (Σ exp; 0 for a fully blocked row), and weights = exp / row_sum.
struct SoftmaxBreakdown {
  Matrix row_max, exp, row_sum, weights;
};
SoftmaxBreakdown softmax_breakdown(const Matrix& logits);

}  // namespace attnlab
ATTNLAB_API_END
