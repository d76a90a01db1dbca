// The hot kernels behind one interface: every matrix product and softmax in the core goes through
// here. One dispatch point (dispatch.cpp) picks the implementation for the target:
//   native        Eigen's GEMM (SSE/AVX-vectorised) + the reference softmax
//   wasm scalar   Eigen's GEMM (Eigen 3.4 does not vectorise on wasm32) + the reference softmax
//   wasm SIMD     register-blocked wasm_simd128 GEMM and softmax (simd128.cpp)
// The plain loops in reference.cpp are what every fast variant is tested against.
#pragma once

#include "attnlab/matrix.hpp"

namespace attnlab::kernels {

// C[m×n] = A[m×k] · B[k×n]
Matrix matmul(const Matrix& a, const Matrix& b);

// C[m×n] = A[m×k] · B[n×k]ᵀ  (Q·Kᵀ, and x·Wᵀ for PyTorch-layout weights)
Matrix matmul_transposed(const Matrix& a, const Matrix& b);

// In place, row by row: x ← exp(x − max) / Σ exp(x − max). Entries of −∞ (blocked) become exactly
// 0; a row that is entirely −∞ becomes all 0 (not NaN). Expects no NaN and no +∞.
void softmax_rows(Matrix& x);

// Which implementation this build dispatches to: "eigen", "wasm-scalar" or "wasm-simd128".
const char* variant();

namespace reference {
Matrix matmul(const Matrix& a, const Matrix& b);
Matrix matmul_transposed(const Matrix& a, const Matrix& b);
void softmax_rows(Matrix& x);
}  // namespace reference

#if defined(__wasm_simd128__)
namespace simd128 {
Matrix matmul(const Matrix& a, const Matrix& b);
Matrix matmul_transposed(const Matrix& a, const Matrix& b);
void softmax_rows(Matrix& x);
}  // namespace simd128
#endif

}  // namespace attnlab::kernels
