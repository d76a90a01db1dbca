#include "attnlab/training/loss.hpp"

#include <cmath>
#include <cstddef>

#include "tensor/checks.hpp"

namespace attnlab {

namespace {

// `valid` is empty (all n rows count) or n entries of 0/1; returns how many rows count. `against`
// names what fixes n in the message ("x is 5×8", "n is 5").
int count_valid_rows(std::string_view function, const std::vector<int>& valid, Eigen::Index n,
                     const std::string& against) {
  if (valid.empty()) return static_cast<int>(n);
  if (static_cast<Eigen::Index>(valid.size()) != n)
    detail::fail(function, "valid has ", valid.size(), " entries but ", against,
                 " (one 1/0 per row, or none for every row)");
  int count = 0;
  for (std::size_t i = 0; i < valid.size(); ++i) {
    if (valid[i] != 0 && valid[i] != 1)
      detail::fail(function, "valid[", i, "] = ", valid[i], " must be 1 (a real row) or 0 (padding)");
    count += valid[i];
  }
  return count;
}

bool counts(const std::vector<int>& valid, Eigen::Index row) {
  return valid.empty() || valid[static_cast<std::size_t>(row)] == 1;
}

}  // namespace

CrossEntropyResult cross_entropy(const Matrix& logits, const std::vector<int>& targets, int ignore_index) {
  // logits [n×C], targets [n] → loss (a number), d_logits [n×C]
  constexpr const char* kFunction = "cross_entropy";
  detail::require_non_empty(kFunction, "logits", logits);
  detail::require_finite(kFunction, "logits", logits);
  const Eigen::Index n = logits.rows(), classes = logits.cols();
  if (static_cast<Eigen::Index>(targets.size()) != n)
    detail::fail(kFunction, "targets has ", targets.size(), " entries but logits is ", shape_of(logits),
                 " (one target per row)");
  int count = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (targets[i] == ignore_index) continue;
    if (targets[i] < 0 || targets[i] >= classes)
      detail::fail(kFunction, "targets[", i, "] = ", targets[i], " is not a class of logits ", shape_of(logits),
                   " (0..", classes - 1, ") nor ignore_index = ", ignore_index);
    ++count;
  }
  detail::require_within_budget(kFunction, 1, static_cast<double>(n), static_cast<double>(classes), "the gradient");

  CrossEntropyResult result{0.0f, Matrix::Zero(n, classes)};
  if (count == 0) return result;  // nothing to average: 0 rather than PyTorch's 0/0 = NaN
  double total = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const int target = targets[static_cast<std::size_t>(i)];
    if (target == ignore_index) continue;
    // 1. loss_i = log Σ_j exp(x_j) − x_target, with the row maximum taken out of the exponentials.
    const double max = logits.row(i).maxCoeff();
    double sum = 0.0;
    for (Eigen::Index j = 0; j < classes; ++j) sum += std::exp(logits(i, j) - max);
    total += max + std::log(sum) - logits(i, target);
    // 2. ∂loss/∂x_ij = (softmax_ij − [j = target]) / count, the mean spreading 1/count to each row.
    for (Eigen::Index j = 0; j < classes; ++j) {
      const double softmax = std::exp(logits(i, j) - max) / sum;
      result.d_logits(i, j) = static_cast<float>((softmax - (j == target ? 1.0 : 0.0)) / count);
    }
  }
  result.loss = static_cast<float>(total / count);
  if (!std::isfinite(result.loss))
    detail::fail(kFunction, "the loss ", total / count, " overflows float32 (logits ", shape_of(logits),
                 " differ by more than 3.4e38 within a row: scale them down)");
  return result;
}

Matrix mean_pool(const Matrix& x, const std::vector<int>& valid) {
  // x [n×d], valid [n] or empty → pooled [1×d]
  constexpr const char* kFunction = "mean_pool";
  detail::require_non_empty(kFunction, "x", x);
  detail::require_finite(kFunction, "x", x);
  const int count = count_valid_rows(kFunction, valid, x.rows(), "x is " + shape_of(x));
  Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(x.cols());  // double: n rows of float add up exactly enough
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    if (counts(valid, i)) sum += x.row(i).cast<double>();
  if (count == 0) return Matrix::Zero(1, x.cols());  // no real row: zeros, not 0/0
  return (sum / count).cast<float>();
}

Matrix mean_pool_backward(int n, const Matrix& d_pooled, const std::vector<int>& valid) {
  // d_pooled [1×d], valid [n] or empty → d_x [n×d]
  constexpr const char* kFunction = "mean_pool_backward";
  detail::require_positive(kFunction, "n", n);
  detail::require_non_empty(kFunction, "d_pooled", d_pooled);
  if (d_pooled.rows() != 1)
    detail::fail(kFunction, "d_pooled is ", shape_of(d_pooled), " but must be 1×d (one row, as mean_pool returns)");
  detail::require_finite(kFunction, "d_pooled", d_pooled);
  const int count = count_valid_rows(kFunction, valid, n, "n is " + std::to_string(n));
  detail::require_within_budget(kFunction, 1, n, static_cast<double>(d_pooled.cols()), "the gradient");
  // Undo `pooled = Σ_valid x_i / count`: each valid row receives d_pooled / count, padding nothing.
  Matrix d_x = Matrix::Zero(n, d_pooled.cols());
  if (count == 0) return d_x;
  const Matrix share = (d_pooled.cast<double>() / count).cast<float>();
  for (Eigen::Index i = 0; i < n; ++i)
    if (counts(valid, i)) d_x.row(i) = share;
  return d_x;
}

}  // namespace attnlab
