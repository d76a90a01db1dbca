// The one place that decides which kernels this build runs (see kernels.hpp).
#include "kernels.hpp"

namespace attnlab::kernels {

namespace {
// A product with op(B) used once: pack it, multiply, drop the packing.
Matrix product(MatrixView a, MatrixView b, bool transposed) {
  // A [m×k] · op(B) [k×n] → [m×n]
  const PackedMatrix packed = pack(b, transposed);
  Matrix c(a.rows(), packed.cols);
  gemm(a, packed, 0, 0, packed.cols, 1.0f, false, c.data(), c.cols());
  return c;
}
}  // namespace

Matrix matmul(MatrixView a, MatrixView b) { return product(a, b, false); }
Matrix matmul_transposed(MatrixView a, MatrixView b) { return product(a, b, true); }

#if defined(__wasm_simd128__)

PackedMatrix pack(MatrixView b, bool transposed) { return simd128::pack(b, transposed); }
void gemm(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
          bool accumulate, float* c, Eigen::Index ldc) {
  simd128::gemm(a, b, k0, n0, nc, alpha, accumulate, c, ldc);
}
void softmax_rows(Matrix& x) { softmax_rows_with(&simd128::online_softmax_step, x); }
void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale) {
  simd128::online_softmax_step(s, row_max, row_sum, rescale);
}
const char* variant() { return "wasm-simd128"; }

#else

// Eigen's GEMM packs internally; "packing" here is just op(B) as one row-major panel.
PackedMatrix pack(MatrixView b, bool transposed) {
  // op(B) [depth×cols]
  PackedMatrix packed;
  packed.depth = transposed ? b.cols() : b.rows();
  packed.cols = transposed ? b.rows() : b.cols();
  packed.width = packed.cols;
  packed.data.resize(static_cast<std::size_t>(packed.depth * packed.cols));
  Eigen::Map<Matrix> op_b(packed.data.data(), packed.depth, packed.cols);
  if (transposed) op_b = b.transpose();
  else op_b = b;
  return packed;
}

void gemm(MatrixView a, const PackedMatrix& b, Eigen::Index k0, Eigen::Index n0, Eigen::Index nc, float alpha,
          bool accumulate, float* c, Eigen::Index ldc) {
  // C [m×nc] (+)= alpha · A [m×kc] · op(B)[k0…, n0…]
  using Strided = Eigen::OuterStride<>;
  const Eigen::Map<const Matrix, 0, Strided> op_b(b.at(k0, n0), a.cols(), nc, Strided(b.width));
  Eigen::Map<Matrix, 0, Strided> out(c, a.rows(), nc, Strided(ldc));
  if (accumulate) out.noalias() += alpha * (a * op_b);
  else if (alpha == 1.0f) out.noalias() = a * op_b;
  else out.noalias() = alpha * (a * op_b);
}

void softmax_rows(Matrix& x) { reference::softmax_rows(x); }
void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale) {
  reference::online_softmax_step(s, row_max, row_sum, rescale);
}
#if defined(__EMSCRIPTEN__)
const char* variant() { return "wasm-scalar"; }
#else
const char* variant() { return "eigen"; }
#endif

#endif

}  // namespace attnlab::kernels
