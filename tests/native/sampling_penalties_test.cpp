// The sampling penalties against tests/fixtures/sampling_penalties.json: an independent PyTorch
// implementation of each published definition (make_sampling_fixtures.py: Hugging Face's repetition
// and no-repeat-n-gram processors, OpenAI's presence and frequency penalties, HF's top-k/top-p warpers).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "attnlab/gpt/gpt_session.hpp"
#include "attnlab/gpt/sampling.hpp"
#include "fixture.hpp"

namespace attnlab {
namespace {

SamplingOptions options_from(const nlohmann::json& o) {
  return {.temperature = o.at("temperature"), .top_k = o.at("top_k"), .top_p = o.at("top_p"),
          .repetition_penalty = o.at("repetition_penalty"), .no_repeat_ngram_size = o.at("no_repeat_ngram_size"),
          .presence_penalty = o.at("presence_penalty"), .frequency_penalty = o.at("frequency_penalty")};
}

TEST(SamplingPenalties, MatchTheIndependentImplementation) {
  const testing::Fixture f("sampling_penalties");
  for (const auto& c : f.json().at("cases")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    const auto logits = c.at("logits").get<std::vector<float>>();
    const auto context = c.at("context").get<std::vector<int>>();
    const SamplingOptions options = options_from(c.at("options"));
    const std::vector<float> penalized = penalized_logits(logits, context, options);
    const std::vector<float> probabilities = sampling_distribution(logits, context, options);
    for (std::size_t i = 0; i < logits.size(); ++i) {
      const auto& expected = c.at("penalized")[i];
      if (expected.is_null()) {
        EXPECT_EQ(penalized[i], -INFINITY) << "token " << i;
      } else {
        EXPECT_NEAR(penalized[i], expected.get<double>(), 1e-5 * std::max(1.0, std::abs(expected.get<double>()))) << "token " << i;
      }
      EXPECT_NEAR(probabilities[i], c.at("probabilities")[i].get<double>(), 1e-6) << "token " << i;
    }
  }
}

TEST(SamplingPenalties, RepetitionPenaltyByHand) {
  // θ = 2 on a context holding tokens 0 and 1: 4 → 2, −4 → −8; tokens 2 and 3 untouched
  const std::vector<float> out = penalized_logits(std::vector<float>{4, -4, 1, -1}, std::vector<int>{0, 1, 1}, {.repetition_penalty = 2});
  EXPECT_EQ(out, (std::vector<float>{2, -8, 1, -1}));
}

const GPTConfig kPenaltyConfig{.vocab_size = 31, .context_length = 40, .d_model = 24, .num_heads = 2, .num_layers = 2};

TEST(SamplingPenalties, GenerationWithNoRepeatedNgramsHasNone) {
  const GPT model(kPenaltyConfig, 3);
  const std::vector<int> prompt = {1, 2, 3, 1, 2};
  for (int n : {1, 2, 3}) {
    const Generation g = generate(model, prompt, {.max_tokens = n == 1 ? 20 : 30, .sampling = {.temperature = 0.0f, .no_repeat_ngram_size = n}});
    std::vector<int> all = prompt;
    all.insert(all.end(), g.tokens.begin(), g.tokens.end());
    // every n-gram that ends in a generated token is new (prompt n-grams may repeat among themselves)
    std::set<std::vector<int>> seen;
    for (std::size_t end = n; end <= all.size(); ++end) {
      const std::vector<int> gram(all.begin() + static_cast<std::ptrdiff_t>(end - n), all.begin() + static_cast<std::ptrdiff_t>(end));
      const bool generated = end > prompt.size();
      EXPECT_TRUE(!generated || !seen.contains(gram)) << "n = " << n << ": repeated n-gram ending at " << end;
      seen.insert(gram);
    }
  }
}

TEST(SamplingPenalties, GenerationSaysWhyItStopped) {
  const GPT model(kPenaltyConfig, 3);
  EXPECT_EQ(generate(model, std::vector<int>{1}, {.max_tokens = 3}).stopped, StopReason::max_tokens);
  const Generation full = generate(model, std::vector<int>(38, 1), {.max_tokens = 10});
  EXPECT_EQ(full.tokens.size(), 3u);  // positions 39 and 40 fed back, the 40th predicts a third
  EXPECT_EQ(full.stopped, StopReason::context_full);
  const Generation first = generate(model, std::vector<int>{1, 2}, {.max_tokens = 5, .seed = 4});
  const Generation stopped = generate(model, std::vector<int>{1, 2}, {.max_tokens = 5, .seed = 4, .stop_tokens = {30, first.tokens[0]}});
  EXPECT_EQ(stopped.tokens, std::vector<int>{first.tokens[0]});
  EXPECT_EQ(stopped.stopped, StopReason::stop_token);
}

}  // namespace
}  // namespace attnlab
