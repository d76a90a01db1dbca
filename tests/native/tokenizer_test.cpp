#include <gtest/gtest.h>

#include "attnlab/tensor/error.hpp"
#include "attnlab/text/tokenizer.hpp"

namespace attnlab {
namespace {

using Tokens = std::vector<std::string>;

TEST(Tokenizer, SplitsTheTutorialSentences) {
  EXPECT_EQ(tokenize("The cat sat on the mat"), (Tokens{"the", "cat", "sat", "on", "the", "mat"}));
  EXPECT_EQ(tokenize("The animal didn't cross the street because it was too tired."),
            (Tokens{"the", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired", "."}));
}

TEST(Tokenizer, PunctuationWhitespaceAndUtf8) {
  EXPECT_EQ(tokenize("  Hello,world!  'quoted' "), (Tokens{"hello", ",", "world", "!", "'", "quoted", "'"}));
  EXPECT_EQ(tokenize("Le chat s'assoit — café"), (Tokens{"le", "chat", "s'assoit", "—", "café"}));
  EXPECT_TRUE(tokenize(" \t\n").empty());
  // Abbreviations and numbers keep their dots and commas; a sentence's full stop is its own token.
  EXPECT_EQ(tokenize("The U.S.A. is big."), (Tokens{"the", "u.s.a.", "is", "big", "."}));
  EXPECT_EQ(tokenize("e.g. 3.14 or 1,000, i.e. pi"), (Tokens{"e.g.", "3.14", "or", "1,000", ",", "i.e.", "pi"}));
  EXPECT_EQ(tokenize("I saw a. Mr. Smith paid 5."), (Tokens{"i", "saw", "a", ".", "mr", ".", "smith", "paid", "5", "."}));
}

TEST(Vocabulary, IdsInFirstSeenOrderAfterPadAndUnknown) {
  const Vocabulary vocab({"The cat sat on the mat", "the dog sat"});
  EXPECT_EQ(vocab.size(), 2 + 6);  // <pad> <unk> the cat sat on mat dog
  EXPECT_EQ(vocab.id("<pad>"), Vocabulary::kPadId);
  EXPECT_EQ(vocab.id("the"), 2);
  EXPECT_EQ(vocab.id("dog"), 7);
  EXPECT_EQ(vocab.encode("The mat sat quietly"), (std::vector<int>{2, 6, 4, Vocabulary::kUnknownId}));
  EXPECT_EQ(vocab.decode({2, 3, 4}), "the cat sat");
  EXPECT_THROW(vocab.token(8), Error);
}

}  // namespace
}  // namespace attnlab
