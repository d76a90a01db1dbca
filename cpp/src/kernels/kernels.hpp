// The hot kernels behind one interface: every matrix product and softmax in the core goes through
// here, so a target can swap in its own implementation (the native build uses Eigen's vectorised
// GEMM) without touching the math that calls them.
#pragma once

#include "attnlab/matrix.hpp"

namespace attnlab::kernels {

// C[m×n] = A[m×k] · B[k×n]
Matrix matmul(const Matrix& a, const Matrix& b);

// C[m×n] = A[m×k] · B[n×k]ᵀ  (Q·Kᵀ, and x·Wᵀ for PyTorch-layout weights)
Matrix matmul_transposed(const Matrix& a, const Matrix& b);

// In place, row by row: x ← exp(x − max) / Σ exp(x − max). Entries of −∞ (blocked) become 0;
// a row that is entirely −∞ becomes all 0 (not NaN). Expects no NaN and no +∞.
void softmax_rows(Matrix& x);

}  // namespace attnlab::kernels
