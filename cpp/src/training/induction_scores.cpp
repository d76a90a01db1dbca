#include "attnlab/training/induction_scores.hpp"

#include "attnlab/training/training.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

InductionScores induction_scores(const std::vector<std::vector<Matrix>>& attention, int segment_length) {
  // attention [layers][heads] → [N×N]; L = segment_length → scores [layers·heads]
  constexpr const char* fn = "induction_scores";
  if (attention.empty() || attention.front().empty()) detail::fail(fn, "attention has no heads");
  const auto n = attention.front().front().rows();
  const int length = segment_length;
  if (length < 2 || 2 * length > n)
    detail::fail(fn, "segment_length must be in 2 … N/2 = ", n / 2, ", got ", segment_length);
  const Eigen::Index second = n - length;  // where the second copy starts
  const Eigen::Index first = second - length;  // P: where the first copy starts
  InductionScores scores;
  for (std::size_t layer = 0; layer < attention.size(); ++layer) {
    for (std::size_t head = 0; head < attention[layer].size(); ++head) {
      const Matrix& w = attention[layer][head];
      if (w.rows() != n || w.cols() != n)
        detail::fail(fn, "attention[", layer, "][", head, "] is ", shape_of(w), " but attention[0][0] is ", n, "×", n);
      double previous = 0.0, induction = 0.0;
      for (Eigen::Index t = second; t < n; ++t) previous += w(t, t - 1);
      // The second copy's s_i sits at second + i − 1 and its next token s_{i+1} first appeared at first + i.
      for (Eigen::Index i = 1; i < length; ++i) induction += w(second + i - 1, first + i);
      scores.previous_token.push_back(static_cast<float>(previous / static_cast<double>(length)));
      scores.induction.push_back(static_cast<float>(induction / static_cast<double>(length - 1)));
    }
  }
  return scores;
}

InductionScores induction_scores(TaskTrainer& trainer, const std::vector<TaskExample>& examples) {
  constexpr const char* fn = "induction_scores";
  if (trainer.task().kind() != TaskKind::repeat)
    detail::fail(fn, "the trainer's task is '", trainer.task().name(), "', not 'repeat'");
  if (examples.empty()) detail::fail(fn, "examples is empty");
  InductionScores mean;
  for (const TaskExample& example : examples) {
    const InductionScores one = induction_scores(trainer.inspect(example).attention, repeat_segment_length(example));
    if (mean.induction.empty()) mean = InductionScores{std::vector<float>(one.induction.size()), std::vector<float>(one.induction.size())};
    for (std::size_t h = 0; h < one.induction.size(); ++h) {
      mean.previous_token[h] += one.previous_token[h];
      mean.induction[h] += one.induction[h];
    }
  }
  const auto count = static_cast<float>(examples.size());
  for (std::size_t h = 0; h < mean.induction.size(); ++h) {
    mean.previous_token[h] /= count;
    mean.induction[h] /= count;
  }
  return mean;
}

}  // namespace attnlab
