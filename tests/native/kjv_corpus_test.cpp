// The training corpus's preparation (cpp/train/): the `bible -f` listing parsed into chapters, the
// chapter split, and the n-gram baselines on a hand-sized example.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "expect_error.hpp"
#include "kjv_corpus.hpp"
#include "ngram_baselines.hpp"

namespace attnlab::train {
namespace {

constexpr const char* kListing =
    "Ge1:1 In the beginning God created the heaven and the earth.\n"
    "Ge1:2 And the earth was without form, and void.\n"
    "Ge2:1 Thus the heavens and the earth were finished.\n"
    "SSol1:1 The song of songs, which is Solomon's.\n";

TEST(KjvCorpus, ListingBecomesChaptersOfVersesWithoutReferences) {
  const std::vector<Chapter> chapters = parse_bible_listing(kListing);
  ASSERT_EQ(chapters.size(), 3u);
  EXPECT_EQ(chapters[0].reference, "Ge1");
  EXPECT_EQ(chapters[0].verses, 2);
  EXPECT_EQ(chapters[0].text, "In the beginning God created the heaven and the earth.\nAnd the earth was without form, and void.\n");
  EXPECT_EQ(chapters[1].reference, "Ge2");
  EXPECT_EQ(chapters[2].reference, "SSol1");
  EXPECT_EQ(chapters[2].text, "The song of songs, which is Solomon's.\n");
}

TEST(KjvCorpus, ALineWithoutAReferenceIsAnErrorNamingTheLine) {
  expect_error([] { parse_bible_listing("Ge1:1 In the beginning\nGenesis 1\n"); },
               "parse_bible_listing: line 2 has no \"Book<chapter>:<verse> \" reference: \"Genesis 1\"");
  expect_error([] { parse_bible_listing(":1 text\n"); },
               "parse_bible_listing: line 1 has no \"Book<chapter>:<verse> \" reference: \":1 text\"");
}

TEST(KjvCorpus, EveryNthChapterIsHeldOut) {
  const CorpusSplit split = split_chapters(parse_bible_listing(kListing), 2);
  EXPECT_EQ(split.train_chapters, 2);
  EXPECT_EQ(split.heldout_chapters, 1);
  EXPECT_EQ(split.heldout, "Thus the heavens and the earth were finished.\n\n");
  EXPECT_EQ(split.train.substr(split.train.size() - 41), "\nThe song of songs, which is Solomon's.\n\n");
  expect_error([] { split_chapters({}, 1); }, "split_chapters: heldout_every must be at least 2, got 1");
}

TEST(NgramBaselines, MatchTheFormulasOnAHandSizedExample) {
  // train 0 1 0 1: unigram counts 2, 2 → add-one p = 3/6 each; bigram counts (0,1) = 2, (1,0) = 1;
  // as contexts 0 occurs 2 times, 1 once (the final 1 has no successor). Held-out 0 1 1 scores
  // p(1|0) and p(1|1).
  const std::vector<int> train{0, 1, 0, 1}, heldout{0, 1, 1};
  const NgramBaselines result = ngram_baselines(train, heldout, 2);
  EXPECT_NEAR(result.unigram, std::log(2.0), 1e-12);
  double best = std::numeric_limits<double>::infinity();
  for (const double alpha : {0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0}) {
    const double ce = -(std::log((2.0 + 0.5 * alpha) / (2.0 + alpha)) + std::log(0.5 * alpha / (1.0 + alpha))) / 2.0;
    best = std::min(best, ce);
  }
  EXPECT_NEAR(result.bigram, best, 1e-12);
  EXPECT_LT(result.bigram, result.unigram);
}

}  // namespace
}  // namespace attnlab::train
