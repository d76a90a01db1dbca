// Fuzz cases for the N-d Tensor and batched scaled dot-product attention (issue 31), run by the
// fuzz_attention target: each keeps its own row-major reference of the data, so every view, permute
// and broadcast is checked element by element against index arithmetic done here.
#pragma once

#include "fuzz_input.hpp"

namespace attnlab::fuzz {

// A random tensor (rank 1–5, dims 1–4) through 1–4 of view, reshape, permute, transpose, unsqueeze,
// expand and contiguous, plus broadcast_shapes on random shapes (sometimes invalid ones).
void fuzz_tensor(FuzzInput& in);
// Batched SDPA on random small shapes with broadcast (or not) leading dims, binary or additive masks
// that do or do not broadcast to the scores, causal, and a key_padding_mask.
void fuzz_batched_attention(FuzzInput& in);

}  // namespace attnlab::fuzz
