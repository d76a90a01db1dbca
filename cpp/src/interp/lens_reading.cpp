#include "interp/lens_reading.hpp"

#include <algorithm>
#include <numeric>

#include "tensor/checks.hpp"

namespace attnlab::lens_reading {

namespace {

// One row of logits [V] → the cell: softmax (in double), the top k, the target's probability and rank.
LensCell read_cell(const Eigen::Ref<const Eigen::RowVectorXf>& logits, int k, int target) {
  const double max = logits.maxCoeff();
  const Eigen::RowVectorXd e = (logits.cast<double>().array() - max).exp();
  const double sum = e.sum();
  std::vector<int> order(static_cast<std::size_t>(logits.size()));
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [&](int a, int b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
  LensCell cell;
  for (int i = 0; i < k; ++i) {
    cell.top_ids.push_back(order[static_cast<std::size_t>(i)]);
    cell.top_probabilities.push_back(static_cast<float>(e[order[static_cast<std::size_t>(i)]] / sum));
  }
  if (target >= 0) {
    cell.target_probability = static_cast<float>(e[target] / sum);
    cell.target_rank = 1 + static_cast<int>((logits.array() > logits[target]).count());
  }
  return cell;
}

}  // namespace

std::vector<int> checked_positions(const char* fn, std::span<const int> positions, int T, int k, int target, int vocab_size) {
  if (k < 1 || k > vocab_size) detail::fail(fn, "k must be in 1 … ", vocab_size, " (the vocabulary), got ", k);
  if (target < -1 || target >= vocab_size) detail::fail(fn, "target ", target, " is outside the vocabulary 0 … ", vocab_size - 1);
  for (const int p : positions)
    if (p < 0 || p >= T) detail::fail(fn, "position ", p, " is outside the prompt's positions 0 … ", T - 1);
  std::vector<int> chosen(positions.begin(), positions.end());
  if (chosen.empty()) chosen.resize(static_cast<std::size_t>(T)), std::iota(chosen.begin(), chosen.end(), 0);
  return chosen;
}

LogitLens read(std::vector<std::string> points, std::string final_point, std::vector<int> positions, const Matrix& early,
               const Matrix& final_logits, int k, int target) {
  LogitLens lens;
  const auto P = static_cast<Eigen::Index>(positions.size());
  for (std::size_t i = 0; i <= points.size(); ++i) {
    const bool last = i == points.size();
    lens.points.push_back(last ? final_point : points[i]);
    lens.cells.emplace_back();
    for (Eigen::Index j = 0; j < P; ++j)
      lens.cells.back().push_back(last ? read_cell(final_logits.row(positions[static_cast<std::size_t>(j)]), k, target)
                                       : read_cell(early.row(static_cast<Eigen::Index>(i) * P + j), k, target));
  }
  lens.positions = std::move(positions);
  return lens;
}

}  // namespace attnlab::lens_reading
