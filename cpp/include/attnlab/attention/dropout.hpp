// Inverted dropout as in torch.nn.Dropout: each entry is zeroed with probability p and the survivors
// are scaled by 1/(1−p), so the expected value is unchanged. Draws come from the seeded Rng, in
// row-major order, one uniform per entry, so a lesson's dropout pattern is reproducible.
#pragma once

#include "attnlab/tensor/api.hpp"

#include "attnlab/tensor/matrix.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

class Rng;

// x [rows×cols] → same shape. p in [0, 1); p = 0 returns x unchanged and draws nothing.
Matrix dropout(const Matrix& x, float p, Rng& rng);
// The same (same draws, same result), also writing the pattern into `scale`: 0 where dropped,
// 1/(1−p) where kept — what the backward pass multiplies the gradient by. p = 0 leaves scale empty.
Matrix dropout(const Matrix& x, float p, Rng& rng, Matrix& scale);
// The pattern alone, drawn as dropout() draws it: [rows×cols] of 0 (dropped, uniform < p) or 1/(1−p).
// p = 0 returns an empty matrix and draws nothing.
Matrix dropout_mask(Eigen::Index rows, Eigen::Index cols, float p, Rng& rng);

}  // namespace attnlab
ATTNLAB_API_END
