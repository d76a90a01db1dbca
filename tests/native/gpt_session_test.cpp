// The KV-cache decoder against the full forward (the same model, a different computation), and the
// multiply-add counts against the formula counted by hand.
#include <gtest/gtest.h>

#include "attnlab/gpt/gpt_session.hpp"
#include "expect_error.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

using testing::MatricesNear;

const GPTConfig kSessionConfig{.vocab_size = 31, .context_length = 12, .d_model = 24, .num_heads = 3, .num_layers = 2};

TEST(GPTSession, OneTokenAtATimeGivesTheFullForwardsLogits) {
  const GPT model(kSessionConfig, 5);
  const std::vector<int> ids = {4, 8, 15, 16, 23, 30, 0, 1, 2, 3, 5, 7};
  const GPTOutput full = model.forward(ids, {.attention = true});
  GPTSession session(model);
  for (std::size_t t = 0; t < ids.size(); ++t) {
    const Matrix logits = session.append(ids[t]);
    EXPECT_TRUE(MatricesNear(logits, full.logits.row(static_cast<Eigen::Index>(t)), 1e-5f, 1e-5f)) << "position " << t;
    for (int l = 0; l < kSessionConfig.num_layers; ++l)
      for (int h = 0; h < kSessionConfig.num_heads; ++h)
        EXPECT_TRUE(MatricesNear(session.last_attention()[l][h],
                                 full.attention[l][h].row(static_cast<Eigen::Index>(t)).head(static_cast<Eigen::Index>(t) + 1),
                                 1e-6f, 1e-5f));
  }
  EXPECT_EQ(session.length(), 12);
  EXPECT_EQ(session.keys(1).rows(), 12);
  EXPECT_EQ(session.values(0).cols(), 24);
  expect_error([&] { session.append(1); },
               "GPTSession::append: the context is full: 12 tokens = context_length (reset() to start again)");
  session.reset();
  EXPECT_TRUE(MatricesNear(session.append(ids[0]), full.logits.row(0), 1e-5f, 1e-5f));
}

TEST(GPTSession, MultiplyAddsAsCountedByHand) {
  // d 24, L 2, V 31: per layer 12·24² = 6912 per row; attention 2·keys·24; output 31·24 = 744
  EXPECT_EQ(gpt_multiply_adds(kSessionConfig, 1, true), 2 * (6912 + 48) + 744);
  EXPECT_EQ(gpt_multiply_adds(kSessionConfig, 5, true), 2 * (6912 + 2 * 5 * 24) + 744);
  // without the cache, 5 rows seeing 1 + 2 + 3 + 4 + 5 = 15 keys
  EXPECT_EQ(gpt_multiply_adds(kSessionConfig, 5, false), 2 * (5 * 6912 + 2 * 15 * 24) + 744);
}

TEST(Generate, IsSeededAndGreedyFollowsTheArgmax) {
  const GPT model(kSessionConfig, 2);
  const std::vector<int> prompt = {1, 2, 3};
  const Generation a = generate(model, prompt, {.max_tokens = 6, .seed = 11});
  const Generation b = generate(model, prompt, {.max_tokens = 6, .seed = 11});
  EXPECT_EQ(a.tokens, b.tokens);
  ASSERT_EQ(a.tokens.size(), 6u);
  // greedy: each token is the argmax of the full forward over everything before it
  const Generation greedy = generate(model, prompt, {.max_tokens = 4, .sampling = {.temperature = 0}});
  std::vector<int> ids = prompt;
  for (int token : greedy.tokens) {
    Eigen::Index best = 0;
    model.forward(ids).logits.row(static_cast<Eigen::Index>(ids.size()) - 1).maxCoeff(&best);
    EXPECT_EQ(token, best);
    ids.push_back(token);
  }
  for (float p : greedy.probabilities) EXPECT_EQ(p, 1.0f);
  // the context (12) stops generation: after 10 prompt tokens, 2 more fit and the 12th position still
  // predicts a 3rd (which is never fed back)
  EXPECT_EQ(generate(model, std::vector<int>(10, 1), {.max_tokens = 5}).tokens.size(), 3u);
  // a stop token ends it
  const Generation stopped = generate(model, prompt, {.max_tokens = 6, .seed = 11, .stop_token = a.tokens[1]});
  EXPECT_EQ(stopped.tokens.size(), a.tokens[0] == a.tokens[1] ? 1u : 2u);
}

TEST(Generate, BadArgumentsAreNamed) {
  const GPT model(kSessionConfig, 2);
  expect_error([&] { generate(model, std::vector<int>{}, {}); }, "generate: the prompt is empty (give at least one token)");
  expect_error([&] { generate(model, std::vector<int>{1}, {.max_tokens = -1}); }, "generate: max_tokens must be ≥ 0, got -1");
  expect_error([&] { generate(model, std::vector<int>(13, 1), {}); }, "generate: the prompt has 13 tokens but context_length is 12");
  expect_error([&] { generate(model, std::vector<int>{1}, {.sampling = {.top_p = 2}}); },
               "sampling_distribution: top_p must be in (0, 1], got 2");
  GPTSession session(model);
  expect_error([&] { session.append(31); }, "GPTSession::append: id 31 is outside the vocabulary 0 … 30");
  expect_error([&] { session.keys(2); }, "GPTSession::keys: layer 2 is not in 0 … 1");
}

}  // namespace
}  // namespace attnlab
