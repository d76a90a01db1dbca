// Reference kernels: the plainest correct loops (products accumulate in double). Every fast kernel is
// tested against these.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "tensor/parallel.hpp"

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

void softmax_rows(Matrix& x) { softmax_rows_with(&online_softmax_step, x); }

void online_softmax_step(MatrixSpan s, float* row_max, float* row_sum, float* rescale) {
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
    // The sum in double: in float, each term under an ulp of the running sum rounds to a whole ulp or
    // none, and many small exps beside one large one shift every weight by ~1e-6. (The SIMD kernels
    // keep 8–32 partial sums, which has the same effect on rows this short.)
    double sum = 0.0;
    for (Eigen::Index c = 0; c < row.size(); ++c) {
      row[c] = std::exp(row[c] - new_max);
      sum += row[c];
    }
    row_sum[r] = static_cast<float>(static_cast<double>(row_sum[r]) * rescale[r] + sum);
    row_max[r] = new_max;
  }
}

}  // namespace attnlab::kernels::reference

namespace attnlab::kernels {

void divide_rows(MatrixSpan x, const float* row_sum) {
  for (Eigen::Index r = 0; r < x.rows(); ++r)
    if (row_sum[r] > 0.0f) x.row(r) *= 1.0f / row_sum[r];
}

void softmax_rows_with(OnlineSoftmaxStep step, Matrix& x) {
  // x [rows×cols]; runs of rows split over threads (a row's softmax does not depend on the others)
  constexpr Eigen::Index kRowMultiple = 16;  // the x86 kernel rescales 16 rows at a time
  const Eigen::Index rows = x.rows();
  const int tasks = detail::task_count(8.0 * static_cast<double>(rows) * static_cast<double>(x.cols()),
                                       rows / kRowMultiple);  // ~8 multiply-adds per exp
  detail::parallel_for(tasks, [&](int task) {
    const detail::RowRange range = detail::task_rows(rows, tasks, task, kRowMultiple);
    const Eigen::Index n = range.end - range.begin;
    if (n <= 0) return;
    const auto count = static_cast<std::size_t>(n);
    std::vector<float> max(count, -std::numeric_limits<float>::infinity()), sum(count, 0.0f), rescale(count);
    MatrixSpan block = x.middleRows(range.begin, n);
    step(block, max.data(), sum.data(), rescale.data());
    divide_rows(block, sum.data());
  });
}

}  // namespace attnlab::kernels
