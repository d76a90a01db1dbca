#include "ngram_baselines.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

namespace attnlab::train {

NgramBaselines ngram_baselines(std::span<const int> train, std::span<const int> heldout, int vocab_size) {
  const auto key = [vocab_size](int a, int b) { return static_cast<std::int64_t>(a) * vocab_size + b; };
  std::vector<double> unigram_counts(vocab_size, 0.0);
  std::unordered_map<std::int64_t, double> bigram_counts;
  for (std::size_t i = 0; i < train.size(); ++i) {
    unigram_counts[train[i]] += 1.0;
    if (i > 0) bigram_counts[key(train[i - 1], train[i])] += 1.0;
  }
  // count(a) as a context: every occurrence of a except a final one.
  std::vector<double> context_counts = unigram_counts;
  if (!train.empty()) context_counts[train.back()] -= 1.0;

  const double total = static_cast<double>(train.size());
  const auto p_unigram = [&](int b) { return (unigram_counts[b] + 1.0) / (total + vocab_size); };
  const auto bigram_ce = [&](double alpha) {
    double sum = 0.0;
    for (std::size_t i = 1; i < heldout.size(); ++i) {
      const int a = heldout[i - 1], b = heldout[i];
      const auto found = bigram_counts.find(key(a, b));
      const double pair = found == bigram_counts.end() ? 0.0 : found->second;
      sum -= std::log((pair + alpha * p_unigram(b)) / (context_counts[a] + alpha));
    }
    return sum / static_cast<double>(heldout.size() - 1);
  };

  NgramBaselines result;
  double sum = 0.0;
  for (std::size_t i = 1; i < heldout.size(); ++i) sum -= std::log(p_unigram(heldout[i]));
  result.unigram = sum / static_cast<double>(heldout.size() - 1);
  result.bigram = std::numeric_limits<double>::infinity();
  for (const double alpha : {0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0}) {
    const double ce = bigram_ce(alpha);
    if (ce < result.bigram) {
      result.bigram = ce;
      result.bigram_alpha = alpha;
    }
  }
  return result;
}

}  // namespace attnlab::train
