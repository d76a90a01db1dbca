// The "it" sentence model: its sentences and split, its gradient (central differences of its own loss),
// and its .safetensors round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "attnlab/referent/referent_encoder.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

std::string key(const ReferentData& data, const ReferentSentence& s) {
  return data.frames[static_cast<std::size_t>(s.frame)].name + "|" + s.first + "|" + s.second + "|" + s.adjective;
}

// The (animal/object noun, place/container noun, adjective) combination, whichever the noun order.
std::string combination(const ReferentData& data, const ReferentSentence& s) {
  const bool reversed = data.frames[static_cast<std::size_t>(s.frame)].name.ends_with("-reversed");
  return (reversed ? s.second + "|" + s.first : s.first + "|" + s.second) + "|" + s.adjective;
}

TEST(ReferentSentences, EveryCombinationOnceSplitByCombination) {
  const ReferentData data = referent_sentences();
  ASSERT_EQ(data.frames.size(), 4u);
  // 20 animals × 16 places × 12 adjectives in two orders, 16 objects × 14 containers × 10 in two orders.
  EXPECT_EQ(data.train.size() + data.held_out.size(), 2u * 20 * 16 * 12 + 2u * 16 * 14 * 10);
  std::set<std::string> train_keys, held_keys, train_combos, held_combos;
  for (const ReferentSentence& s : data.train) {
    train_keys.insert(key(data, s));
    train_combos.insert(combination(data, s));
    EXPECT_FALSE(s.held_out);
  }
  for (const ReferentSentence& s : data.held_out) {
    held_keys.insert(key(data, s));
    held_combos.insert(combination(data, s));
    EXPECT_TRUE(s.held_out);
  }
  EXPECT_EQ(train_keys.size(), data.train.size());  // no sentence twice
  EXPECT_EQ(held_keys.size(), data.held_out.size());
  for (const std::string& c : held_combos) EXPECT_EQ(train_combos.count(c), 0u) << c;  // no combination on both sides
  // About a fifth is held out, the lesson's own pair included, in both noun orders.
  const double share = static_cast<double>(data.held_out.size()) / (data.train.size() + data.held_out.size());
  EXPECT_GT(share, 0.15);
  EXPECT_LT(share, 0.25);
  EXPECT_TRUE(make_referent_sentence(data, 0, "animal", "street", "tired").held_out);
  EXPECT_TRUE(make_referent_sentence(data, 1, "street", "animal", "wide").held_out);
  // Every word of the held-out sentences is in some training sentence.
  std::set<std::string> train_words;
  for (const ReferentSentence& s : data.train) train_words.insert(s.words.begin(), s.words.end());
  for (const ReferentSentence& s : data.held_out)
    for (const std::string& w : s.words) EXPECT_EQ(train_words.count(w), 1u) << w;
}

TEST(ReferentSentences, TheClassicPairPointsAtDifferentNouns) {
  const ReferentData data = referent_sentences();
  const ReferentSentence tired = make_referent_sentence(data, 0, "animal", "street", "tired");
  const ReferentSentence wide = make_referent_sentence(data, 0, "animal", "street", "wide");
  const std::vector<std::string> words{"the", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired"};
  EXPECT_EQ(tired.words, words);
  EXPECT_EQ(tired.it_position, 7);
  EXPECT_EQ(tired.answer_position, 1);
  EXPECT_EQ(wide.answer_position, 5);
  EXPECT_EQ(data.vocabulary[static_cast<std::size_t>(tired.answer)], "animal");
  EXPECT_EQ(data.vocabulary[static_cast<std::size_t>(wide.answer)], "street");
  // Reversed order: the place comes first, "tired" still means the animal (now the second noun).
  const ReferentSentence reversed = make_referent_sentence(data, 1, "street", "animal", "tired");
  EXPECT_EQ(data.vocabulary[static_cast<std::size_t>(reversed.answer)], "animal");
  EXPECT_EQ(reversed.answer_slot, 1);
  expect_error([&] { make_referent_sentence(data, 0, "street", "animal", "tired"); },
               "make_referent_sentence: 'street' is not a first noun of frame cross");
}

// ∂loss/∂θ by the model's backward against central differences of its own forward (float32, so a
// step of 1e-2 and a few per cent tolerance), on the largest-gradient entry of every tensor.
TEST(ReferentEncoder, GradientMatchesFiniteDifferences) {
  const ReferentData data = referent_sentences();
  ReferentEncoder model({.vocab_size = static_cast<int>(data.vocabulary.size()), .max_len = data.max_len, .d_model = 8,
                         .num_heads = 2, .num_layers = 2, .d_ff = 8, .seed = 7});
  const ReferentSentence& s = data.train[123];
  const std::vector<ParameterRef> params = model.parameters();
  model.zero_grad();
  model.accumulate_gradients(s.tokens, s.it_position, s.answer, 1.0f);
  int checked = 0;
  for (const ParameterRef& p : params) {
    Eigen::Index best = 0;
    for (Eigen::Index i = 0; i < p.size; ++i)
      if (std::fabs(p.grad[i]) > std::fabs(p.grad[best])) best = i;
    const float analytic = p.grad[best];
    if (std::fabs(analytic) < 1e-4f) continue;  // a tensor this sentence barely touches
    const float saved = p.value[best];
    const float h = 1e-2f;
    p.value[best] = saved + h;
    const double up = model.forward(s.tokens, s.it_position, s.answer).loss;
    p.value[best] = saved - h;
    const double down = model.forward(s.tokens, s.it_position, s.answer).loss;
    p.value[best] = saved;
    const double numeric = (up - down) / (2.0 * h);
    EXPECT_NEAR(analytic, numeric, 0.05 * std::fabs(numeric) + 2e-4) << p.name;
    ++checked;
  }
  EXPECT_GE(checked, static_cast<int>(params.size()) - 2);
  // Only the "it" position is read: a forward gives the same loss as the one accumulated.
  const float loss = model.forward(s.tokens, s.it_position, s.answer).loss;
  model.zero_grad();
  EXPECT_FLOAT_EQ(model.accumulate_gradients(s.tokens, s.it_position, s.answer, 1.0f).loss, loss);
}

TEST(ReferentEncoder, SavedWeightsLoadBackIdentically) {
  const ReferentData data = referent_sentences();
  ReferentEncoder model({.vocab_size = static_cast<int>(data.vocabulary.size()), .max_len = data.max_len, .d_model = 16,
                         .num_heads = 2, .num_layers = 2, .d_ff = 16, .seed = 3});
  const std::vector<std::uint8_t> file = model.to_safetensors({{"note", "test"}});
  ReferentEncoder loaded = ReferentEncoder::from_safetensors(file);
  EXPECT_EQ(loaded.config().d_model, 16);
  EXPECT_EQ(loaded.config().num_layers, 2);
  EXPECT_EQ(loaded.parameter_count(), model.parameter_count());
  const std::vector<ParameterRef> a = model.parameters(), b = loaded.parameters();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    ASSERT_EQ(a[i].size, b[i].size);
    EXPECT_TRUE(std::equal(a[i].value, a[i].value + a[i].size, b[i].value)) << a[i].name;
  }
  const ReferentSentence& s = data.held_out[5];
  const ReferentOutput x = model.forward(s.tokens, s.it_position), y = loaded.forward(s.tokens, s.it_position);
  EXPECT_TRUE(x.logits == y.logits);
  EXPECT_TRUE(x.attention[1][0] == y.attention[1][0]);
  // A truncated file is refused before anything is read.
  const std::vector<std::uint8_t> truncated(file.begin(), file.begin() + 4);
  expect_error([&] { ReferentEncoder::from_safetensors(truncated); },
               "parse_safetensors: the file has 4 bytes, fewer than the 8 of the header length");
}

TEST(ReferentEncoder, RefusesBadInput) {
  ReferentEncoder model({.vocab_size = 10, .max_len = 5, .d_model = 8, .num_heads = 2, .num_layers = 1, .d_ff = 8, .seed = 1});
  expect_error([&] { model.forward({1, 2, 3}, 3); }, "ReferentEncoder: it_position 3 is not in 0 … 2");
  expect_error([&] { model.forward({1, 2, 30}, 0); }, "ReferentEncoder: tokens[2] = 30 is outside the vocabulary 0 … 9");
  expect_error([&] { model.forward({1, 2, 3, 4, 5, 6}, 0); }, "ReferentEncoder: tokens has 6 ids but the model takes at most max_len = 5");
}

}  // namespace
}  // namespace attnlab
