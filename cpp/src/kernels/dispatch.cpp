// The one place that decides which kernels this build runs (see kernels.hpp).
#include "kernels.hpp"

namespace attnlab::kernels {

#if defined(__wasm_simd128__)

Matrix matmul(const Matrix& a, const Matrix& b) { return simd128::matmul(a, b); }
Matrix matmul_transposed(const Matrix& a, const Matrix& b) { return simd128::matmul_transposed(a, b); }
void softmax_rows(Matrix& x) { simd128::softmax_rows(x); }
const char* variant() { return "wasm-simd128"; }

#else

Matrix matmul(const Matrix& a, const Matrix& b) { return a * b; }
Matrix matmul_transposed(const Matrix& a, const Matrix& b) { return a * b.transpose(); }
void softmax_rows(Matrix& x) { reference::softmax_rows(x); }
#if defined(__EMSCRIPTEN__)
const char* variant() { return "wasm-scalar"; }
#else
const char* variant() { return "eigen"; }
#endif

#endif

}  // namespace attnlab::kernels
