// Learning BPE merges. Expected values come from: corpora small enough to count by hand; training
// by its definition (naive_merges below recounts every pair before each merge, where train updates
// counts incrementally); GPT-2's file format read back by from_gpt2; and (natively, when Debian's
// bible-kjv is installed) the King James text.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "attnlab/text/bpe.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

using Ids = std::vector<int>;

std::string spelled(const std::string& bytes) {  // GPT-2's spelling of a token
  std::string out;
  for (char byte : bytes) out += gpt2_byte_to_text(static_cast<std::uint8_t>(byte));
  return out;
}

// merges.txt of training by its definition: the corpus's distinct pieces (GPT-2's rule) with their
// counts, each as one token per byte (id = byte); before each merge every adjacent pair is counted
// afresh; the most frequent pair (ties: smaller left id, then smaller right) becomes the next id,
// replacing the pair left to right in every piece. Stops after `max_merges` merges, or when the best
// pair is seen fewer than `min_count` times.
std::string naive_merges(std::string_view corpus, int max_merges, int min_count) {
  std::map<std::string, long long> piece_counts;
  for (std::string_view piece : BpeTokenizer::pretokenize(corpus)) ++piece_counts[std::string(piece)];
  std::vector<std::pair<Ids, long long>> words;
  for (const auto& [piece, count] : piece_counts) {
    Ids word;
    for (char byte : piece) word.push_back(static_cast<unsigned char>(byte));
    words.emplace_back(std::move(word), count);
  }
  std::vector<std::string> bytes;
  for (int b = 0; b < 256; ++b) bytes.emplace_back(1, static_cast<char>(b));
  std::string merges = "#version: 0.2\n";
  for (int m = 0; m < max_merges; ++m) {
    std::map<std::pair<int, int>, long long> pair_counts;  // in (left, right) order: the first maximum wins ties
    for (const auto& [word, count] : words)
      for (std::size_t i = 0; i + 1 < word.size(); ++i) pair_counts[{word[i], word[i + 1]}] += count;
    std::pair<int, int> best;
    long long best_count = 0;
    for (const auto& [pair, count] : pair_counts)
      if (count > best_count) std::tie(best, best_count) = std::tie(pair, count);
    if (best_count == 0 || best_count < min_count) break;
    const int merged = static_cast<int>(bytes.size());
    const std::string& left = bytes[static_cast<std::size_t>(best.first)];
    const std::string& right = bytes[static_cast<std::size_t>(best.second)];
    merges += spelled(left) + " " + spelled(right) + "\n";
    bytes.push_back(left + right);
    for (auto& [word, count] : words) {
      Ids next;
      for (std::size_t i = 0; i < word.size(); ++i) {
        const bool here = i + 1 < word.size() && word[i] == best.first && word[i + 1] == best.second;
        next.push_back(here ? merged : word[i]);
        if (here) ++i;
      }
      word = std::move(next);
    }
  }
  return merges;
}

TEST(BpeTrain, LearnsTheMergesCountedByHand) {
  // pieces "aaa", " aaa", " ab". Pairs: (a, a) 4 times (twice in each "aaa": overlapping pairs count),
  // (Ġ, a) twice, (a, b) once. Merge a a → 256 "aa", left to right: aa a, Ġ aa a, Ġ a b.
  // Now (aa, a) twice → 257 "aaa": aaa, Ġ aaa, Ġ a b. Every pair left is seen once: below min_count 2.
  const BpeTokenizer t = BpeTokenizer::train("aaa aaa ab", {.vocab_size = 1000, .min_count = 2});
  EXPECT_EQ(t.merges_text(), "#version: 0.2\na a\naa a\n");
  EXPECT_EQ(t.merge_count(), 2);
  EXPECT_EQ(t.vocab_size(), 259);
  EXPECT_EQ(t.token_bytes(0), std::string(1, '\0'));
  EXPECT_EQ(t.token_bytes(' '), " ");
  EXPECT_EQ(t.token_bytes(256), "aa");
  EXPECT_EQ(t.token_bytes(257), "aaa");
  EXPECT_EQ(t.end_of_text(), 258);
  EXPECT_EQ(t.token_bytes(258), "<|endoftext|>");
  EXPECT_EQ(t.encode("aaa aaa ab"), (Ids{257, ' ', 257, ' ', 'a', 'b'}));
  EXPECT_EQ(t.encode("aaaa"), (Ids{256, 256}));
  // min_count 1 goes on through the pairs seen once, smaller ids first: (Ġ=32, a=97) → 258 " a";
  // then (Ġ, aaa=257) before (Ġa=258, b) → 259 " aaa"; then 260 " ab"; <|endoftext|> is 261.
  const BpeTokenizer all = BpeTokenizer::train("aaa aaa ab", {.vocab_size = 1000, .min_count = 1});
  EXPECT_EQ(all.merges_text(), "#version: 0.2\na a\naa a\nĠ a\nĠ aaa\nĠa b\n");
  EXPECT_EQ(all.end_of_text(), 261);
  EXPECT_EQ(all.encode("aaa aaa ab"), (Ids{257, 259, 260}));
}

TEST(BpeTrain, BreaksTiesBySmallerIdsLeftThenRight) {
  // "xy zw": (x, y), (Ġ, z), (z, w) each once; Ġ is 32, the smallest left id
  EXPECT_EQ(BpeTokenizer::train("xy zw", {.vocab_size = 258, .min_count = 1}).merges_text(), "#version: 0.2\nĠ z\n");
  // "acab": (a, c), (c, a), (a, b) each once; (a, b) and (a, c) share the left id, b < c
  EXPECT_EQ(BpeTokenizer::train("acab", {.vocab_size = 258, .min_count = 1}).merges_text(), "#version: 0.2\na b\n");
}

TEST(BpeTrain, StopsAtTheVocabularySize) {
  const BpeTokenizer bytes_only = BpeTokenizer::train("aaa aaa ab", {.vocab_size = 257});
  EXPECT_EQ(bytes_only.merge_count(), 0);
  EXPECT_EQ(bytes_only.vocab_size(), 257);
  EXPECT_EQ(bytes_only.end_of_text(), 256);
  const BpeTokenizer two = BpeTokenizer::train("aaa aaa ab", {.vocab_size = 259, .min_count = 1});
  EXPECT_EQ(two.merges_text(), "#version: 0.2\na a\naa a\n");
  EXPECT_EQ(two.vocab_size(), 259);
  const BpeTokenizer empty = BpeTokenizer::train("");
  EXPECT_EQ(empty.vocab_size(), 257);
  EXPECT_EQ(empty.encode("any text"), (Ids{'a', 'n', 'y', ' ', 't', 'e', 'x', 't'}));
}

TEST(BpeTrain, AgreesWithTrainingByDefinition) {
  std::mt19937 rng(5);
  for (int round = 0; round < 300; ++round) {
    // few letters, so pairs overlap and tie often; é's two bytes also come alone (not UTF-8)
    std::string corpus(rng() % 80, ' ');
    for (char& c : corpus) c = "abcab  \n'x\xc3\xa9"[rng() % 12];
    const int min_count = 1 + static_cast<int>(rng() % 3);
    const BpeTokenizer t = BpeTokenizer::train(corpus, {.vocab_size = 256 + 40 + 1, .min_count = min_count});
    ASSERT_EQ(t.merges_text(), naive_merges(corpus, 40, min_count)) << "corpus: '" << corpus << "'";
    EXPECT_EQ(t.vocab_size(), 256 + t.merge_count() + 1);
    EXPECT_EQ(t.decode(t.encode(corpus)), corpus);
  }
}

const std::string kGenesis =
    "In the beginning God created the heaven and the earth. And the earth was without form, and void; and "
    "darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters.\n"
    "And God said, Let there be light: and there was light. And God saw the light, that it was good: and "
    "God divided the light from the darkness.\n";

TEST(BpeTrain, IsDeterministicAndRoundTripsThroughGPT2Files) {
  const BpeTokenizer a = BpeTokenizer::train(kGenesis, {.vocab_size = 300});
  const BpeTokenizer b = BpeTokenizer::train(kGenesis, {.vocab_size = 300});
  EXPECT_EQ(a.merges_text(), b.merges_text());
  EXPECT_EQ(a.vocab_json(), b.vocab_json());
  EXPECT_EQ(a.merges_text(), naive_merges(kGenesis, 300 - 257, 2));
  // vocab.json: ids in order, each token in GPT-2's spelling
  const nlohmann::ordered_json vocab = nlohmann::ordered_json::parse(a.vocab_json());
  ASSERT_EQ(vocab.size(), 300u);
  int id = 0;
  for (const auto& [token, value] : vocab.items()) {
    EXPECT_EQ(value.get<int>(), id);
    EXPECT_EQ(token, id == a.end_of_text() ? "<|endoftext|>" : spelled(a.token_bytes(id)));
    ++id;
  }
  // read back: the same encoding of any text, and the same files again
  const BpeTokenizer read = BpeTokenizer::from_gpt2(a.vocab_json(), a.merges_text());
  for (std::string_view text : {std::string_view(kGenesis), std::string_view("Let there be lightning, 1611!\n"),
                                std::string_view("naïve 日本 😀 \xff\xfe")})
    EXPECT_EQ(read.encode(text), a.encode(text));
  EXPECT_EQ(read.end_of_text(), a.end_of_text());
  EXPECT_EQ(read.vocab_json(), a.vocab_json());
  EXPECT_EQ(read.merges_text(), a.merges_text());
  EXPECT_LT(a.encode(kGenesis).size(), kGenesis.size() / 2);  // the merges compress the text they came from
}

TEST(BpeTrain, LearnsFromTextThatIsNotUtf8) {
  const std::string corpus = "\xff\xfe\xff\xfe \xff\xfe caf\xc3\xa9 caf\xc3\xa9 \xc3";
  const BpeTokenizer t = BpeTokenizer::train(corpus, {.vocab_size = 280});
  EXPECT_EQ(t.merges_text(), naive_merges(corpus, 280 - 257, 2));
  EXPECT_EQ(t.decode(t.encode(corpus)), corpus);
  EXPECT_EQ(BpeTokenizer::from_gpt2(t.vocab_json(), t.merges_text()).encode(corpus), t.encode(corpus));
}

TEST(BpeTrain, RefusesOptionsOutOfRange) {
  expect_error([] { BpeTokenizer::train("x", {.vocab_size = 256}); },
               "BpeTokenizer::train: vocab_size must be at least 257 (256 bytes and <|endoftext|>), got 256");
  expect_error([] { BpeTokenizer::train("x", {.vocab_size = 300, .min_count = 0}); },
               "BpeTokenizer::train: min_count must be at least 1, got 0");
}

#if !defined(__EMSCRIPTEN__)
std::string king_james_bible() {  // "" when Debian's bible-kjv is not installed
  FILE* pipe = popen("bible \"Gen1:1-Rev22:21\" 2>/dev/null", "r");
  std::string text;
  if (pipe) {
    char buffer[65536];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
    pclose(pipe);
  }
  return text.size() > 1000000 ? text : "";
}

TEST(BpeTrain, KingJamesBible) {
  const std::string text = king_james_bible();
  if (text.empty()) GTEST_SKIP() << "Debian's bible-kjv is not installed";
  const auto start = std::chrono::steady_clock::now();
  const BpeTokenizer t = BpeTokenizer::train(text, {.vocab_size = 4096});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("training on the King James Bible (%zu bytes) to %d tokens: %.2f s\n", text.size(), t.vocab_size(),
              seconds);
  EXPECT_EQ(t.vocab_size(), 4096);
  EXPECT_EQ(t.merge_count(), 4096 - 257);
  EXPECT_LT(seconds, 30.0);  // 0.15 s natively; a pass over the corpus per merge would take minutes
  const Ids ids = t.encode(text);
  EXPECT_EQ(t.decode(ids), text);
  EXPECT_LT(ids.size(), text.size() / 3);  // ≈ 4 bytes a token on English prose
  EXPECT_EQ(BpeTokenizer::from_gpt2(t.vocab_json(), t.merges_text()).encode(text), ids);
  // the first merges, by definition, on the first 300 kB
  const std::string genesis = text.substr(0, 300000);
  EXPECT_EQ(BpeTokenizer::train(genesis, {.vocab_size = 257 + 200}).merges_text(), naive_merges(genesis, 200, 2));
}
#endif

}  // namespace
}  // namespace attnlab
