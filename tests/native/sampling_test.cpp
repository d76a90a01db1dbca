// Sampling against distributions computed by hand from the formula.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attnlab/gpt/sampling.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

// logits ln 1, ln 2, ln 3, ln 4: softmax = 0.1, 0.2, 0.3, 0.4.
const std::vector<float> kLogits = {0.0f, std::log(2.0f), std::log(3.0f), std::log(4.0f)};

void expect_probabilities(const std::vector<float>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) EXPECT_NEAR(actual[i], expected[i], 1e-6) << "token " << i;
}

TEST(Sampling, TemperatureOneIsTheSoftmax) {
  expect_probabilities(sampling_distribution(kLogits, {}), {0.1, 0.2, 0.3, 0.4});
}

TEST(Sampling, TemperatureRescalesTheLogits) {
  // T = 0.5 squares the odds: 1, 4, 9, 16 over 30. T = 2: √1, √2, √3, √4 over their sum.
  expect_probabilities(sampling_distribution(kLogits, {.temperature = 0.5f}), {1 / 30.0, 4 / 30.0, 9 / 30.0, 16 / 30.0});
  const double s = 1 + std::sqrt(2.0) + std::sqrt(3.0) + 2;
  expect_probabilities(sampling_distribution(kLogits, {.temperature = 2.0f}),
                       {1 / s, std::sqrt(2.0) / s, std::sqrt(3.0) / s, 2 / s});
}

TEST(Sampling, TemperatureZeroIsGreedyAndTiesGoToTheSmallerId) {
  expect_probabilities(sampling_distribution(kLogits, {.temperature = 0.0f}), {0, 0, 0, 1});
  expect_probabilities(sampling_distribution(std::vector<float>{1, 5, 5, 2}, {.temperature = 0.0f}), {0, 1, 0, 0});
}

TEST(Sampling, TopKKeepsTheKMostLikely) {
  expect_probabilities(sampling_distribution(kLogits, {.top_k = 2}), {0, 0, 3 / 7.0, 4 / 7.0});
  expect_probabilities(sampling_distribution(kLogits, {.top_k = 10}), {0.1, 0.2, 0.3, 0.4});
}

TEST(Sampling, TopPKeepsTheSmallestNucleusReachingP) {
  // sorted 0.4, 0.3, 0.2, 0.1: cumulative 0.4, 0.7, 0.9, 1.0
  expect_probabilities(sampling_distribution(kLogits, {.top_p = 0.4f}), {0, 0, 0, 1});
  expect_probabilities(sampling_distribution(kLogits, {.top_p = 0.5f}), {0, 0, 3 / 7.0, 4 / 7.0});
  expect_probabilities(sampling_distribution(kLogits, {.top_p = 0.85f}), {0, 2 / 9.0, 3 / 9.0, 4 / 9.0});
  // top-k first, then top-p within it: k = 3 keeps 0.2, 0.3, 0.4 → 2/9, 3/9, 4/9; p = 0.5 keeps 4/9, 3/9
  expect_probabilities(sampling_distribution(kLogits, {.top_k = 3, .top_p = 0.5f}), {0, 0, 3 / 7.0, 4 / 7.0});
}

TEST(Sampling, TopPOfOneCutsNothing) {
  // The last token's share is e^−20 / (3 + e^−20) ≈ 7e−10, under the 1e−6 the nucleus allows for a float
  // top_p: at top_p = 1 it stays drawable all the same (1 is "no top-p").
  const std::vector<float> logits = {0, 0, 0, -20};
  const double rare = std::exp(-20.0) / (3 + std::exp(-20.0)), common = 1 / (3 + std::exp(-20.0));
  const std::vector<float> out = sampling_distribution(logits, {.top_p = 1.0f});
  expect_probabilities(out, {common, common, common, rare});
  EXPECT_NEAR(out[3], rare, 1e-3 * rare);  // expect_probabilities' 1e-6 alone would let a cut 0 pass
}

TEST(Sampling, SeededDrawsRepeatAndFollowTheDistribution) {
  Rng a(7), b(7);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(sample(kLogits, {}, a).token, sample(kLogits, {}, b).token);
  Rng rng(1);
  std::vector<int> counts(4, 0);
  const int draws = 40000;
  for (int i = 0; i < draws; ++i) ++counts[static_cast<std::size_t>(sample(kLogits, {}, rng).token)];
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(counts[i] / double(draws), 0.1 * double(i + 1), 0.01) << i;
  // A filtered token is never drawn, and the result carries the distribution.
  for (int i = 0; i < 200; ++i) {
    const SampledToken s = sample(kLogits, {.top_k = 2}, rng);
    EXPECT_GE(s.token, 2);
    EXPECT_FLOAT_EQ(s.probabilities[0], 0.0f);
  }
}

// Rows of `vocab` logits, normal(0, sigma) from Rng(seed), one after another.
std::vector<float> normal_logits(int vocab, float sigma, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> logits(static_cast<std::size_t>(vocab));
  for (float& x : logits) x = rng.normal(0.0f, sigma);
  return logits;
}

// The softmax of logits / temperature in double, keeping only `kept` (ids), renormalised over them.
std::vector<double> softmax_over(const std::vector<float>& logits, const std::vector<std::size_t>& kept, double temperature = 1.0) {
  std::vector<double> q(logits.size(), 0.0);
  double total = 0.0;
  for (const std::size_t i : kept) total += q[i] = std::exp(static_cast<double>(logits[i]) / temperature);
  for (double& x : q) x /= total;
  return q;
}

// Ids by descending logit (no ties in normal logits).
std::vector<std::size_t> by_descending_logit(const std::vector<float>& logits) {
  std::vector<std::size_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return logits[a] > logits[b]; });
  return order;
}

// Draws `draws` tokens with Rng(seed) and checks their frequencies against q: a token of q = 0 is never
// drawn, and Pearson's chi-square over the others stays under its 1 − 10⁻⁴ quantile (Wilson–Hilferty,
// z = 3.719): a fresh seed would fail 1 time in 10,000; a wrong distribution (an off-by-one cut, a lost
// temperature, a missing renormalisation) fails by far.
void expect_draws_follow(const std::vector<float>& logits, const SamplingOptions& options, const std::vector<double>& q,
                         int draws, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<int> counts(logits.size(), 0);
  for (int i = 0; i < draws; ++i) ++counts[static_cast<std::size_t>(sample(logits, options, rng).token)];
  double chi_square = 0.0;
  int bins = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (q[i] == 0.0) {
      EXPECT_EQ(counts[i], 0) << "token " << i << " is cut, yet was drawn";
      continue;
    }
    const double expected = q[i] * draws;
    ASSERT_GE(expected, 5.0) << "token " << i << ": too rare a bin for chi-square";  // the test's own validity
    chi_square += (counts[i] - expected) * (counts[i] - expected) / expected;
    ++bins;
  }
  const double df = bins - 1, z = 3.719;
  const double bound = df * std::pow(1.0 - 2.0 / (9.0 * df) + z * std::sqrt(2.0 / (9.0 * df)), 3.0);
  EXPECT_LT(chi_square, bound) << bins << " tokens drawn";
}

TEST(Sampling, TwoHundredThousandDrawsFollowTheSoftmax) {
  // 64 tokens, temperature 1 and 0.7, no cut: every token's share is exp(logit / T) / Σ, in double here
  const std::vector<float> logits = normal_logits(64, 1.0f, 31);
  std::vector<std::size_t> all(logits.size());
  std::iota(all.begin(), all.end(), 0);
  expect_draws_follow(logits, {}, softmax_over(logits, all), 200000, 1);
  expect_draws_follow(logits, {.temperature = 0.7f}, softmax_over(logits, all, static_cast<double>(0.7f)), 200000, 2);
}

TEST(Sampling, TwoHundredThousandDrawsFollowTheTopK) {
  // top-k 10 of 200 (found with a heap) and 50 of 200 (partial selection): the k largest logits,
  // their softmax renormalised over them
  const std::vector<float> logits = normal_logits(200, 1.0f, 32);
  const std::vector<std::size_t> order = by_descending_logit(logits);
  expect_draws_follow(logits, {.top_k = 10}, softmax_over(logits, {order.begin(), order.begin() + 10}), 200000, 3);
  const std::vector<float> flat = normal_logits(200, 0.3f, 33);
  const std::vector<std::size_t> flat_order = by_descending_logit(flat);
  expect_draws_follow(flat, {.top_k = 50}, softmax_over(flat, {flat_order.begin(), flat_order.begin() + 50}), 200000, 4);
}

TEST(Sampling, TwoHundredThousandDrawsFollowTheNucleus) {
  // top-p 0.6 of 200: the most likely tokens until their share reaches 0.6, renormalised; then
  // top-k 10 and top-p 0.6 together (the nucleus of the whole distribution, cut at 10 tokens if longer)
  const std::vector<float> logits = normal_logits(200, 1.5f, 34);
  std::vector<std::size_t> all(logits.size());
  std::iota(all.begin(), all.end(), 0);
  const std::vector<double> softmax = softmax_over(logits, all);
  const std::vector<std::size_t> order = by_descending_logit(logits);
  const double top_p = static_cast<double>(0.6f);
  std::size_t n = 0;
  double mass = 0.0;
  while (mass < top_p) mass += softmax[order[n++]];
  ASSERT_GT(mass - softmax[order[n - 1]], 0.0);
  ASSERT_GT(std::min(top_p - (mass - softmax[order[n - 1]]), mass - top_p), 1e-5) << "a cut this close is the 1e-6's to decide";
  ASSERT_GT(n, 10u) << "the top-k 10 below is meant to cut the nucleus";
  expect_draws_follow(logits, {.top_p = 0.6f}, softmax_over(logits, {order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n)}), 200000, 5);
  expect_draws_follow(logits, {.top_k = 10, .top_p = 0.6f}, softmax_over(logits, {order.begin(), order.begin() + 10}), 200000, 6);
}

TEST(Sampling, TiesAtTheCutGoToTheSmallerIdsInALargeVocabulary) {
  // 5,000 equal logits: top-k 40 keeps ids 0–39, top-k 600 ids 0–599, and top-p 0.0105 the first 53
  // (53 × 1/5,000 = 0.0106, 52 of them 0.0104), each at 1/k; two tokens above the rest come first
  std::vector<float> logits(5000, 0.0f);
  const auto expect_first = [&](const SamplingOptions& options, std::size_t n) {
    const std::vector<float> p = sampling_distribution(logits, options);
    for (std::size_t i = 0; i < p.size(); ++i) {
      ASSERT_FLOAT_EQ(p[i], i < n ? 1.0f / static_cast<float>(n) : 0.0f) << "token " << i << " of top " << n;
    }
  };
  expect_first({.top_k = 40}, 40);
  expect_first({.top_k = 600}, 600);
  expect_first({.top_p = 0.0105f}, 53);
  logits[4000] = logits[4999] = 1.0f;
  const std::vector<float> p = sampling_distribution(logits, {.top_k = 40});
  EXPECT_GT(p[4000], 0.0f);
  EXPECT_GT(p[4999], 0.0f);
  EXPECT_GT(p[37], 0.0f);
  EXPECT_EQ(p[38], 0.0f);
}

// The tokens of `steps` draws from Rng(seed), each from a fresh row of `vocab` logits, normal(0, 3)
// from Rng(1234) (rounded to halves when `ties`: many equal logits, so the cuts fall inside ties),
// with the tokens drawn so far as the context.
std::vector<int> seeded_tokens(int vocab, bool ties, const SamplingOptions& options, std::uint64_t seed, int steps) {
  Rng logits_rng(1234), rng(seed);
  std::vector<int> tokens;
  std::vector<float> row(static_cast<std::size_t>(vocab));
  for (int step = 0; step < steps; ++step) {
    for (float& x : row) x = ties ? std::round(logits_rng.normal(0.0f, 3.0f) * 2.0f) / 2.0f : logits_rng.normal(0.0f, 3.0f);
    tokens.push_back(sample(row, tokens, options, rng).token);
  }
  return tokens;
}

TEST(Sampling, SeededTokensAreTheSortingImplementations) {
  // Captured from the implementation that ranked every token with a stable sort (attnlab at 6608c36,
  // before sampling became O(V)), by this same seeded_tokens in a small program linked against it:
  // the same seeds must keep drawing the same tokens.
  using Tokens = std::vector<int>;
  EXPECT_EQ(seeded_tokens(4096, false, {}, 7, 24),
            (Tokens{2738, 1092, 2233, 3048, 2201, 24, 3361, 1466, 2079, 2974, 3863, 807, 1366, 1732, 1100, 2933, 861, 2768, 3654, 34, 3292, 3053, 3148, 2016}));
  EXPECT_EQ(seeded_tokens(4096, false, {.top_k = 40}, 7, 24),
            (Tokens{2738, 1092, 1476, 3040, 2201, 24, 3361, 1242, 2621, 3256, 3863, 807, 1666, 1640, 1123, 3000, 861, 2623, 3654, 91, 3562, 2964, 2515, 2016}));
  EXPECT_EQ(seeded_tokens(4096, false, {.top_p = 0.9f}, 7, 24),
            (Tokens{2738, 1092, 2004, 3040, 2201, 24, 3361, 1454, 2354, 3256, 3863, 807, 1447, 1732, 1113, 2933, 861, 2725, 3654, 34, 3385, 3052, 3111, 2016}));
  EXPECT_EQ(seeded_tokens(4096, false, {.temperature = 0.7f, .top_k = 50, .top_p = 0.95f}, 7, 24),
            (Tokens{2738, 1290, 1207, 2887, 2201, 24, 2541, 1190, 3892, 3256, 3863, 807, 2160, 1640, 1156, 3502, 861, 2554, 3654, 92, 3747, 2892, 1840, 2016}));
  EXPECT_EQ(seeded_tokens(4096, true, {.top_k = 40}, 7, 24),
            (Tokens{2738, 1092, 1476, 3040, 2201, 24, 3361, 1475, 2621, 3256, 3863, 807, 1581, 1732, 884, 3002, 861, 2554, 3654, 91, 3485, 2892, 2515, 2016}));
  EXPECT_EQ(seeded_tokens(4096, true, {.top_p = 0.5f}, 7, 24),
            (Tokens{2738, 1092, 1207, 2633, 2201, 24, 2541, 1811, 3892, 3256, 3863, 807, 2160, 1732, 884, 3502, 861, 2554, 3654, 353, 3562, 2892, 2280, 1285}));
  EXPECT_EQ(seeded_tokens(4096, false, {.temperature = 0.05f}, 7, 24),  // most tokens' p underflows to 0
            (Tokens{2738, 2510, 630, 2633, 2201, 306, 2541, 1190, 3892, 3256, 1040, 3995, 2160, 1640, 3243, 3502, 2795, 2179, 3654, 2411, 3747, 2880, 238, 233}));
  EXPECT_EQ(seeded_tokens(4096, false, {.temperature = 1.3f, .top_k = 30, .repetition_penalty = 1.3f, .presence_penalty = 0.5f}, 7, 24),
            (Tokens{2738, 1092, 1505, 3040, 2201, 24, 3370, 1475, 1933, 2974, 3863, 807, 1342, 1732, 1123, 2721, 861, 2623, 3654, 34, 3525, 2964, 2965, 2016}));
  EXPECT_EQ(seeded_tokens(4096, false, {.temperature = 0.0f}, 7, 24),
            (Tokens{2738, 2510, 630, 747, 2201, 841, 2541, 1190, 3892, 3256, 1040, 3995, 2160, 1640, 3243, 3502, 2795, 2179, 3654, 2411, 3747, 2880, 238, 233}));
}

TEST(Sampling, MinusInfinityIsABlockedToken) {
  // −∞ as in softmax: probability 0, the rest renormalised (0.2, 0.4 of 0.6), at every temperature
  const std::vector<float> blocked = {0.0f, -INFINITY, std::log(2.0f), -INFINITY};
  expect_probabilities(sampling_distribution(blocked, {}), {1 / 3.0, 0, 2 / 3.0, 0});
  expect_probabilities(sampling_distribution(blocked, {.temperature = 0.0f}), {0, 0, 1, 0});
  expect_probabilities(sampling_distribution(blocked, {.top_k = 3}), {1 / 3.0, 0, 2 / 3.0, 0});
  Rng rng(5);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(sample(blocked, {}, rng).token % 2 == 0);
}

TEST(Sampling, BadOptionsAreNamed) {
  expect_error([] { sampling_distribution({}, {}); }, "sampling_distribution: logits is empty");
  expect_error([] { sampling_distribution(std::vector<float>{1, NAN}, {}); },
               "sampling_distribution: logits[1] is NaN (only −∞, a blocked token, may be non-finite)");
  expect_error([] { sampling_distribution(std::vector<float>{INFINITY, 1}, {}); },
               "sampling_distribution: logits[0] is +∞ (only −∞, a blocked token, may be non-finite)");
  expect_error([] { sampling_distribution(std::vector<float>{-INFINITY, -INFINITY}, {}); },
               "sampling_distribution: every one of the 2 logits is −∞: no token may be drawn");
  expect_error([] { sampling_distribution(kLogits, {.repetition_penalty = 0}); },
               "sampling_distribution: repetition_penalty must be finite and > 0 (1 = off), got 0");
  expect_error([] { sampling_distribution(kLogits, {.no_repeat_ngram_size = -1}); },
               "sampling_distribution: no_repeat_ngram_size must be ≥ 0 (0 = off), got -1");
  expect_error([] { penalized_logits(std::vector<float>{-3e38f, 1.0f}, std::vector<int>{0}, {.repetition_penalty = 2.0f}); },
               "penalized_logits: a penalty pushed logits[0] past float32's range");
  expect_error([] { penalized_logits(kLogits, std::vector<int>{0, 4}, {.repetition_penalty = 1.2f}); },
               "penalized_logits: context[1] = 4 is not a token id in 0 … 3");
  expect_error([] { sampling_distribution(kLogits, {.temperature = -1}); },
               "sampling_distribution: temperature must be finite and ≥ 0 (0 = greedy), got -1");
  expect_error([] { sampling_distribution(kLogits, {.top_k = -2}); },
               "sampling_distribution: top_k must be ≥ 0 (0 = no limit), got -2");
  expect_error([] { sampling_distribution(kLogits, {.top_p = 0}); }, "sampling_distribution: top_p must be in (0, 1], got 0");
}

}  // namespace
}  // namespace attnlab
