// Native kernels: Eigen's GEMM (SSE/AVX-vectorised) and a straightforward stable softmax.
#include <cmath>
#include <limits>

#include "kernels.hpp"

namespace attnlab::kernels {

Matrix matmul(const Matrix& a, const Matrix& b) { return a * b; }

Matrix matmul_transposed(const Matrix& a, const Matrix& b) { return a * b.transpose(); }

void softmax_rows(Matrix& x) {
  // x: [rows × cols]. Per row: 1) max, 2) exp(x − max) and the sum, 3) divide.
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    auto row = x.row(r);
    const float max = row.maxCoeff();
    if (max == -std::numeric_limits<float>::infinity()) {  // every key blocked
      row.setZero();
      continue;
    }
    float sum = 0.0f;
    for (Eigen::Index c = 0; c < row.size(); ++c) {
      row[c] = std::exp(row[c] - max);  // exp(−∞) = 0 for blocked keys
      sum += row[c];
    }
    row /= sum;  // sum ≥ 1: the max entry contributes exp(0)
  }
}

}  // namespace attnlab::kernels
