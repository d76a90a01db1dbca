// Head scores on a model whose attention is known by hand: with every parameter 0, LayerNorm outputs
// its bias (0), so q = k = 0 and every head attends uniformly: row i gives 1/(i + 1) to each key.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "attnlab/gpt/head_scores.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

const GPTConfig kScoredConfig{.vocab_size = 20, .context_length = 16, .d_model = 8, .num_heads = 2, .num_layers = 2};

double mean_uniform_weight(int first, int n) {  // mean over rows i in [first, n) of 1/(i + 1)
  double sum = 0;
  for (int i = first; i < n; ++i) sum += 1.0 / (i + 1);
  return sum / (n - first);
}

TEST(HeadScores, UniformAttentionGivesTheHandComputedMeans) {
  const GPT model(kScoredConfig);  // all zeros
  const std::vector<int> text = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  const HeadScores s = head_scores(model, text, {.repeat_length = 5, .samples = 2, .seed = 9});
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h) {
      EXPECT_NEAR(s.previous_token(l, h), mean_uniform_weight(1, 10), 1e-6);
      EXPECT_NEAR(s.first_token(l, h), mean_uniform_weight(1, 10), 1e-6);
      EXPECT_NEAR(s.induction(l, h), mean_uniform_weight(5, 10), 1e-6);
      EXPECT_NEAR(s.duplicate_token(l, h), mean_uniform_weight(5, 10), 1e-6);
    }
}

// A random model, whose heads attend unevenly: every score is the definition (DESIGN.md, after Olsson
// et al. 2022) applied here to the attention maps the forward returns, in double precision. A wrong
// key (i − T instead of i − T + 1, say) would not pass, as it would with uniform attention.
TEST(HeadScores, RandomModelScoresFollowTheDefinitions) {
  const GPTConfig config{.vocab_size = 40, .context_length = 24, .d_model = 16, .num_heads = 4, .num_layers = 2};
  GPT model(config, 5);
  for (ParameterRef& p : model.parameters())  // larger weights than GPT-2's init, for sharper attention
    for (std::int64_t i = 0; i < p.size; ++i) p.value[i] *= 20.0f;
  model.weights_changed();
  const std::vector<int> text = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
  const int T = 10, samples = 3;
  const HeadScoreOptions options{.repeat_length = T, .samples = samples, .seed = 4, .token_low = 2, .token_high = 30};
  const HeadScores s = head_scores(model, text, options);

  // mean over rows i in [first, n) of w(i, key(i)), per layer and head, averaged over the maps given
  const auto mean_weight = [&](const std::vector<std::vector<std::vector<Matrix>>>& maps, int l, int h, int first,
                               auto key) {
    double total = 0.0;
    for (const auto& attention : maps) {
      const Matrix& w = attention[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
      double sum = 0.0;
      for (int i = first; i < w.rows(); ++i) sum += w(i, key(i));
      total += sum / (w.rows() - first);
    }
    return total / static_cast<double>(maps.size());
  };
  const std::vector<std::vector<std::vector<Matrix>>> on_text = {model.forward(text, {.attention = true}).attention};
  std::vector<std::vector<std::vector<Matrix>>> repeated;
  for (int k = 0; k < samples; ++k) {
    const std::vector<int> ids = repeated_random_tokens(T, 2, 30, 4 + static_cast<std::uint64_t>(k));
    for (int i = 0; i < T; ++i) ASSERT_EQ(ids[static_cast<std::size_t>(i)], ids[static_cast<std::size_t>(i + T)]);
    repeated.push_back(model.forward(ids, {.attention = true}).attention);
  }
  double spread = 0.0;
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 4; ++h) {
      EXPECT_NEAR(s.previous_token(l, h), mean_weight(on_text, l, h, 1, [](int i) { return i - 1; }), 1e-6);
      EXPECT_NEAR(s.first_token(l, h), mean_weight(on_text, l, h, 1, [](int) { return 0; }), 1e-6);
      EXPECT_NEAR(s.induction(l, h), mean_weight(repeated, l, h, T, [&](int i) { return i - T + 1; }), 1e-6);
      EXPECT_NEAR(s.duplicate_token(l, h), mean_weight(repeated, l, h, T, [&](int i) { return i - T; }), 1e-6);
      spread = std::max(spread, static_cast<double>(std::abs(s.induction(l, h) - s.duplicate_token(l, h))));
    }
  EXPECT_GT(spread, 0.01) << "the heads attend too evenly for the test to tell keys apart";
}

TEST(HeadScores, RepeatedRandomTokensRepeatAndStayInRange) {
  const std::vector<int> ids = repeated_random_tokens(7, 3, 9, 42);
  ASSERT_EQ(ids.size(), 14u);
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(ids[i], ids[i + 7]);
    EXPECT_GE(ids[i], 3);
    EXPECT_LT(ids[i], 9);
  }
  EXPECT_EQ(ids, repeated_random_tokens(7, 3, 9, 42));
  EXPECT_NE(ids, repeated_random_tokens(7, 3, 9, 43));
  expect_error([] { repeated_random_tokens(0, 3, 9, 1); }, "repeated_random_tokens: length must be in 1 … 1048576, got 0");
  expect_error([] { repeated_random_tokens(kMaxRepeatLength + 1, 3, 9, 1); },
               "repeated_random_tokens: length must be in 1 … 1048576, got 1048577");
  expect_error([] { repeated_random_tokens(4, 9, 9, 1); }, "repeated_random_tokens: the token range [9, 9) is empty or negative");
}

TEST(HeadScores, TokenLossesOfAZeroModelAreLogV) {
  // all-zero weights: every logit 0, so every next token has probability 1/V
  const GPT model(kScoredConfig);
  const std::vector<float> losses = token_losses(model, std::vector<int>{1, 2, 3, 4});
  ASSERT_EQ(losses.size(), 3u);
  for (float loss : losses) EXPECT_NEAR(loss, std::log(20.0), 1e-5);
}

TEST(HeadScores, BadArgumentsAreNamed) {
  const GPT model(kScoredConfig);
  expect_error([&] { head_scores(model, std::vector<int>{1}); }, "head_scores: text must have at least 2 tokens, got 1");
  expect_error([&] { head_scores(model, std::vector<int>{1, 2}, {.repeat_length = 9}); },
               "head_scores: repeat_length 9 repeated twice does not fit context_length 16");
  expect_error([&] { head_scores(model, std::vector<int>{1, 2}, {.token_low = 5, .token_high = 30}); },
               "head_scores: the token range [5, 30) is not inside the vocabulary 0 … 19");
  expect_error([&] { token_losses(model, std::vector<int>{1}); }, "token_losses: ids must have at least 2 tokens, got 1");
}

}  // namespace
}  // namespace attnlab
