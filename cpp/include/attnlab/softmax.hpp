// Row-wise softmax, numerically stable: each row has its maximum subtracted before exp, so logits of
// magnitude 1e4 give finite weights. −∞ means "blocked": its weight is exactly 0, and a row that is
// entirely −∞ gives all-zero weights rather than NaN (0/0).
#pragma once

#include "attnlab/matrix.hpp"

namespace attnlab {

// logits [rows×cols] → weights [rows×cols], each row summing to 1 (or all 0 if fully blocked).
// Throws attnlab::Error on an empty matrix, NaN or +∞.
Matrix softmax(const Matrix& logits);

}  // namespace attnlab
