// The one place that decides which kernels this build runs (see kernels.hpp).
#include <limits>
#include <vector>

#include "kernels.hpp"

namespace attnlab::kernels {

#if defined(__wasm_simd128__)

Matrix matmul(MatrixView a, MatrixView b) { return simd128::matmul(a, b); }
Matrix matmul_transposed(MatrixView a, MatrixView b) { return simd128::matmul_transposed(a, b); }
// A whole-row softmax is one online-softmax step from an empty state, then each row ÷ its sum.
void softmax_rows(Matrix& x) {
  const auto rows = static_cast<std::size_t>(x.rows());
  std::vector<float> max(rows, -std::numeric_limits<float>::infinity()), sum(rows, 0.0f), rescale(rows);
  simd128::online_softmax_step(x, max.data(), sum.data(), rescale.data());
  for (Eigen::Index r = 0; r < x.rows(); ++r)
    if (sum[static_cast<std::size_t>(r)] > 0.0f) x.row(r) *= 1.0f / sum[static_cast<std::size_t>(r)];
}
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
