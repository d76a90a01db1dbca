// Learning BPE merges: a corpus small enough to count by hand, tie-breaking, determinism, the GPT-2
// files written and read back, and (natively, when Debian's bible-kjv is installed) the King James text.
#include <gtest/gtest.h>

#include <cstdio>

#include "attnlab/bpe.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

TEST(BpeTrain, LearnsTheMergesCountedByHand) {
  // pieces "ab", " ab", " ab": (a, b) is seen 3 times, (Ġ, a) twice → merge a b first (256 = "ab");
  // then (Ġ, ab) twice → 257 = " ab"; nothing else is seen twice; <|endoftext|> is 258.
  const BpeTokenizer t = BpeTokenizer::train("ab ab ab", {.vocab_size = 1000, .min_count = 2});
  EXPECT_EQ(t.merge_count(), 2);
  EXPECT_EQ(t.vocab_size(), 259);
  EXPECT_EQ(t.token_bytes(256), "ab");
  EXPECT_EQ(t.token_bytes(257), " ab");
  EXPECT_EQ(t.end_of_text(), 258);
  EXPECT_EQ(t.merges_text(), "#version: 0.2\na b\nĠ ab\n");
  EXPECT_EQ(t.encode("ab ab"), (std::vector<int>{256, 257}));
  EXPECT_EQ(t.encode("abc"), (std::vector<int>{256, 'c'}));
}

TEST(BpeTrain, BreaksTiesBySmallerIdsAndStopsAtTheVocabularySize) {
  // every pair of "xy zw" is seen once: (Ġ=32, z) < (x, y) < (z, w) by their left ids
  const BpeTokenizer t = BpeTokenizer::train("xy zw", {.vocab_size = 258, .min_count = 1});
  EXPECT_EQ(t.merge_count(), 1);  // 256 bytes + 1 merge + <|endoftext|> = 258
  EXPECT_EQ(t.token_bytes(256), " z");
}

TEST(BpeTrain, IsDeterministicAndRoundTripsThroughGPT2Files) {
  const std::string corpus =
      "In the beginning God created the heaven and the earth. And the earth was without form, and void; and "
      "darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters.";
  const BpeTokenizer a = BpeTokenizer::train(corpus, {.vocab_size = 300});
  const BpeTokenizer b = BpeTokenizer::train(corpus, {.vocab_size = 300});
  EXPECT_EQ(a.merges_text(), b.merges_text());
  EXPECT_EQ(a.vocab_json(), b.vocab_json());
  const BpeTokenizer read = BpeTokenizer::from_gpt2(a.vocab_json(), a.merges_text());
  EXPECT_EQ(read.encode(corpus), a.encode(corpus));
  EXPECT_EQ(read.end_of_text(), a.end_of_text());
  EXPECT_LT(a.encode(corpus).size(), corpus.size() * 2 / 3);  // the merges compress the text they came from
  EXPECT_EQ(a.decode(a.encode(corpus)), corpus);
  expect_error([] { BpeTokenizer::train("x", {.vocab_size = 256}); },
               "BpeTokenizer::train: vocab_size must be at least 257 (256 bytes and <|endoftext|>), got 256");
}

#if !defined(__EMSCRIPTEN__)
TEST(BpeTrain, KingJamesBibleRoundTrips) {
  FILE* pipe = popen("bible \"Gen1:1-Rev22:21\" 2>/dev/null", "r");
  std::string text;
  if (pipe) {
    char buffer[65536];
    for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
    pclose(pipe);
  }
  if (text.size() < 1000000) GTEST_SKIP() << "Debian's bible-kjv is not installed";
  const BpeTokenizer t = BpeTokenizer::train(text, {.vocab_size = 4096});
  EXPECT_EQ(t.vocab_size(), 4096);
  const std::vector<int> ids = t.encode(text);
  EXPECT_EQ(t.decode(ids), text);
  EXPECT_LT(ids.size(), text.size() / 3);  // ≈ 4 bytes a token on English prose
}
#endif

}  // namespace
}  // namespace attnlab
