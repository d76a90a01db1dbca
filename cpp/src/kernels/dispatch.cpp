// The one place that decides which kernels this build runs (see kernels.hpp).
#include "kernels.hpp"

namespace attnlab::kernels {

#if defined(__wasm_simd128__)

Matrix matmul(MatrixView a, MatrixView b) { return simd128::matmul(a, b); }
Matrix matmul_transposed(MatrixView a, MatrixView b) { return simd128::matmul_transposed(a, b); }
void softmax_rows(Matrix& x) { softmax_rows_with(&simd128::online_softmax_step, x); }
void online_softmax_step(Matrix& s, float* row_max, float* row_sum, float* rescale) {
  simd128::online_softmax_step(s, row_max, row_sum, rescale);
}
const char* variant() { return "wasm-simd128"; }

#else

Matrix matmul(MatrixView a, MatrixView b) { return a * b; }
Matrix matmul_transposed(MatrixView a, MatrixView b) { return a * b.transpose(); }
void softmax_rows(Matrix& x) { reference::softmax_rows(x); }
void online_softmax_step(Matrix& s, float* row_max, float* row_sum, float* rescale) {
  reference::online_softmax_step(s, row_max, row_sum, rescale);
}
#if defined(__EMSCRIPTEN__)
const char* variant() { return "wasm-scalar"; }
#else
const char* variant() { return "eigen"; }
#endif

#endif

}  // namespace attnlab::kernels
