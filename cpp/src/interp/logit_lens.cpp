#include "attnlab/interp/logit_lens.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tensor/checks.hpp"

namespace attnlab {

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

LogitLens logit_lens(const HookedGPT& model, std::span<const int> ids, std::span<const int> positions, int k, int target) {
  // ids [T] → cells [2L + 1][positions]
  const char* fn = "logit_lens";
  const GPTConfig& c = model.config();
  const int T = static_cast<int>(ids.size()), L = c.num_layers;
  if (k < 1 || k > c.vocab_size) detail::fail(fn, "k must be in 1 … ", c.vocab_size, " (the vocabulary), got ", k);
  if (target < -1 || target >= c.vocab_size)
    detail::fail(fn, "target ", target, " is outside the vocabulary 0 … ", c.vocab_size - 1);
  LogitLens lens;
  for (const int p : positions)
    if (p < 0 || p >= T) detail::fail(fn, "position ", p, " is outside the prompt's positions 0 … ", T - 1);
  lens.positions.assign(positions.begin(), positions.end());
  if (lens.positions.empty()) lens.positions.resize(static_cast<std::size_t>(T)), std::iota(lens.positions.begin(), lens.positions.end(), 0);

  std::vector<HookPoint> points;
  for (int l = 0; l < L; ++l) points.push_back({Hook::resid_pre, l}), points.push_back({Hook::resid_mid, l});
  std::vector<std::string> names;
  for (const HookPoint& point : points) names.push_back(hook_name(point));
  const HookedRun run = model.run_with_cache(ids, names);  // throws for bad ids

  // Every early point's rows at the chosen positions, unembedded in one product: [2L·P × d] → [2L·P × V].
  const auto P = static_cast<Eigen::Index>(lens.positions.size());
  detail::require_within_budget(fn, 1, static_cast<double>(points.size()) * static_cast<double>(P) * c.vocab_size, 1,
                                "the lens's logits (fewer positions take less)");
  Matrix rows(static_cast<Eigen::Index>(points.size()) * P, c.d_model);
  for (std::size_t i = 0; i < points.size(); ++i)
    for (Eigen::Index j = 0; j < P; ++j)
      rows.row(static_cast<Eigen::Index>(i) * P + j) = run.cache.at(points[i]).row(lens.positions[static_cast<std::size_t>(j)]);
  const Matrix early = model.unembed(rows);

  for (std::size_t i = 0; i <= points.size(); ++i) {
    const bool last = i == points.size();
    lens.points.push_back(last ? hook_name({Hook::resid_post, L - 1}) : names[i]);
    lens.cells.emplace_back();
    for (Eigen::Index j = 0; j < P; ++j) {
      const int p = lens.positions[static_cast<std::size_t>(j)];
      lens.cells.back().push_back(last ? read_cell(run.logits.row(p), k, target)
                                       : read_cell(early.row(static_cast<Eigen::Index>(i) * P + j), k, target));
    }
  }
  return lens;
}

}  // namespace attnlab
