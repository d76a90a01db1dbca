// Sampling against distributions computed by hand from the formula.
#include <gtest/gtest.h>

#include <cmath>

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
               "penalized_logits: context[1] = 4 is not a token id in [0, 4)");
  expect_error([] { sampling_distribution(kLogits, {.temperature = -1}); },
               "sampling_distribution: temperature must be finite and ≥ 0 (0 = greedy), got -1");
  expect_error([] { sampling_distribution(kLogits, {.top_k = -2}); },
               "sampling_distribution: top_k must be ≥ 0 (0 = no limit), got -2");
  expect_error([] { sampling_distribution(kLogits, {.top_p = 0}); }, "sampling_distribution: top_p must be in (0, 1], got 0");
}

}  // namespace
}  // namespace attnlab
