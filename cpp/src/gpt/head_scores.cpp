#include "attnlab/gpt/head_scores.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/tensor/rng.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

std::vector<int> repeated_random_tokens(int length, int low, int high, std::uint64_t seed) {
  if (length < 1 || length > kMaxRepeatLength) {
    detail::fail("repeated_random_tokens", "length must be in 1 … ", kMaxRepeatLength, ", got ", length);
  }
  if (low < 0 || high <= low) detail::fail("repeated_random_tokens", "the token range [", low, ", ", high, ") is empty or negative");
  Rng rng(seed);
  std::vector<int> ids(2 * static_cast<std::size_t>(length));
  const auto range = static_cast<std::uint32_t>(high - low);
  for (int i = 0; i < length; ++i) ids[static_cast<std::size_t>(i)] = low + static_cast<int>(rng.next_u32() % range);
  std::copy_n(ids.begin(), length, ids.begin() + length);
  return ids;
}

namespace {

// attention [L][H] → [n×n] each; adds, per head, the mean over rows i in [first, n) of weight(i, key(i)).
template <typename Key>
void add_mean_weight(const std::vector<std::vector<Matrix>>& attention, int first, Key key, double share, Matrix& out) {
  for (std::size_t l = 0; l < attention.size(); ++l)
    for (std::size_t h = 0; h < attention[l].size(); ++h) {
      const Matrix& w = attention[l][h];
      double sum = 0.0;
      for (Eigen::Index i = first; i < w.rows(); ++i) sum += w(i, key(i));
      out(static_cast<Eigen::Index>(l), static_cast<Eigen::Index>(h)) +=
          static_cast<float>(share * sum / static_cast<double>(w.rows() - first));
    }
}

}  // namespace

HeadScores head_scores(const GPT& model, std::span<const int> text, const HeadScoreOptions& options) {
  const char* fn = "head_scores";
  const GPTConfig& c = model.config();
  if (text.size() < 2) detail::fail(fn, "text must have at least 2 tokens, got ", text.size());
  const int T = options.repeat_length > 0 ? options.repeat_length : std::min(50, c.context_length / 2);
  if (T < 1 || 2 * T > c.context_length)
    detail::fail(fn, "repeat_length ", T, " repeated twice does not fit context_length ", c.context_length);
  if (options.samples < 1) detail::fail(fn, "samples must be ≥ 1, got ", options.samples);
  const int high = options.token_high > 0 ? options.token_high : c.vocab_size;
  if (options.token_low < 0 || high > c.vocab_size || options.token_low >= high)
    detail::fail(fn, "the token range [", options.token_low, ", ", high, ") is not inside the vocabulary 0 … ",
                 c.vocab_size - 1);

  HeadScores scores;
  for (Matrix* m : {&scores.previous_token, &scores.first_token, &scores.induction, &scores.duplicate_token})
    m->setZero(c.num_layers, c.num_heads);
  // Ordinary text: i → i − 1 and i → 0, for i ≥ 1.
  const GPTOutput on_text = model.forward(text, {.attention = true});
  add_mean_weight(on_text.attention, 1, [](Eigen::Index i) { return i - 1; }, 1.0, scores.previous_token);
  add_mean_weight(on_text.attention, 1, [](Eigen::Index) { return Eigen::Index{0}; }, 1.0, scores.first_token);
  // Repeated random tokens: i → i − T + 1 and i → i − T, for i in the second copy.
  const double share = 1.0 / options.samples;
  for (int s = 0; s < options.samples; ++s) {
    const std::vector<int> ids = repeated_random_tokens(T, options.token_low, high, options.seed + static_cast<std::uint64_t>(s));
    const GPTOutput out = model.forward(ids, {.attention = true});
    add_mean_weight(out.attention, T, [T](Eigen::Index i) { return i - T + 1; }, share, scores.induction);
    add_mean_weight(out.attention, T, [T](Eigen::Index i) { return i - T; }, share, scores.duplicate_token);
  }
  return scores;
}

std::vector<float> token_losses(const GPT& model, std::span<const int> ids, const GPTForwardOptions& options) {
  // ids [n] → losses [n − 1]
  if (ids.size() < 2) detail::fail("token_losses", "ids must have at least 2 tokens, got ", ids.size());
  GPTForwardOptions every_row = options;  // a loss per position needs every position's logits
  every_row.logits = LogitRows::all;
  const Matrix logits = model.forward(ids, every_row).logits;
  std::vector<float> losses(ids.size() - 1);
  for (std::size_t t = 0; t + 1 < ids.size(); ++t) {
    const auto row = logits.row(static_cast<Eigen::Index>(t));
    const float max = row.maxCoeff();
    const double log_sum = std::log((row.array() - max).cast<double>().exp().sum()) + max;
    losses[t] = static_cast<float>(log_sum - row(ids[t + 1]));
  }
  return losses;
}

}  // namespace attnlab
