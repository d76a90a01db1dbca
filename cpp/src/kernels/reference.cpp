// Reference kernels: the plainest correct loops (products accumulate in double). Every fast kernel is
// tested against these.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels.hpp"

namespace attnlab::kernels::reference {

Matrix matmul(MatrixView a, MatrixView b) {
  // A [m×k] · B [k×n] → [m×n]
  Matrix c(a.rows(), b.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < b.cols(); ++j) {
      double sum = 0.0;
      for (Eigen::Index p = 0; p < a.cols(); ++p) sum += static_cast<double>(a(i, p)) * b(p, j);
      c(i, j) = static_cast<float>(sum);
    }
  return c;
}

Matrix matmul_transposed(MatrixView a, MatrixView b) {
  // A [m×k] · B [n×k]ᵀ → [m×n]
  const Matrix bt = b.transpose();
  return matmul(a, bt);
}

void softmax_rows(Matrix& x) {
  // x [rows×cols]. Per row: 1) max, 2) exp(x − max) and the sum, 3) divide.
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

void online_softmax_step(Matrix& s, float* row_max, float* row_sum, float* rescale) {
  // s [rows×cols]; row_max, row_sum, rescale [rows]
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    auto row = s.row(r);
    const float new_max = std::max(row_max[r], row.maxCoeff());
    if (new_max == -std::numeric_limits<float>::infinity()) {  // every key so far blocked
      row.setZero();
      rescale[r] = 0.0f;
      continue;
    }
    rescale[r] = std::exp(row_max[r] - new_max);  // exp(−∞) = 0 on the first block
    float sum = 0.0f;
    for (Eigen::Index c = 0; c < row.size(); ++c) {
      row[c] = std::exp(row[c] - new_max);
      sum += row[c];
    }
    row_sum[r] = row_sum[r] * rescale[r] + sum;
    row_max[r] = new_max;
  }
}

}  // namespace attnlab::kernels::reference
