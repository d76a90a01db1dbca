// GPT-2's byte-level BPE: the pre-tokenisation rule and byte alphabet by hand, a tiny vocabulary whose
// encodings are worked out by hand, and GPT-2's real files against an independent implementation
// (tests/fixtures/gpt2_bpe.json, from the npm package gpt-3-encoder: make_bpe_fixture.mjs).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "attnlab/bpe.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

std::vector<std::string> pieces(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view p : BpeTokenizer::pretokenize(text)) out.emplace_back(p);
  return out;
}

TEST(BpePretokenize, FollowsGPT2sRule) {
  using V = std::vector<std::string>;
  EXPECT_EQ(pieces("Hello world"), (V{"Hello", " world"}));
  EXPECT_EQ(pieces("I'm fine, it's OK"), (V{"I", "'m", " fine", ",", " it", "'s", " OK"}));
  EXPECT_EQ(pieces("a  b"), (V{"a", " ", " b"}));           // \s+(?!\S) leaves the last space to " b"
  EXPECT_EQ(pieces("x \n"), (V{"x", " \n"}));               // trailing whitespace is one piece
  EXPECT_EQ(pieces("3.14 apples"), (V{"3", ".", "14", " apples"}));
  EXPECT_EQ(pieces("U.S.A."), (V{"U", ".", "S", ".", "A", "."}));
  EXPECT_EQ(pieces("café naïve"), (V{"café", " naïve"}));   // accented letters are \p{L}
  EXPECT_EQ(pieces("日本語 😀!"), (V{"日本語", " 😀!"}));     // an emoji is neither letter nor number
  EXPECT_EQ(pieces("Ⅻ½"), (V{"Ⅻ½"}));                       // \p{N}: Nl and No too
  EXPECT_EQ(pieces(""), V{});
  // invalid UTF-8: each bad byte is a character of its own, and every byte is still covered
  EXPECT_EQ(pieces("a\xff\xfe b"), (V{"a", "\xff\xfe", " b"}));
}

TEST(BpeAlphabet, IsGPT2sBytesToUnicode) {
  EXPECT_EQ(gpt2_byte_to_text(' '), "Ġ");     // U+0120
  EXPECT_EQ(gpt2_byte_to_text('\n'), "Ċ");    // U+010A
  EXPECT_EQ(gpt2_byte_to_text(0), "Ā");       // U+0100
  EXPECT_EQ(gpt2_byte_to_text('a'), "a");
  EXPECT_EQ(gpt2_byte_to_text(0xAD), "Ń");    // U+0143: the soft hyphen is not printable
  EXPECT_EQ(gpt2_byte_to_text(0xE9), "é");    // printable Latin-1 stands for itself
}

// 256 byte tokens (ids 0–255 in byte order) plus `extra` tokens, as vocab.json text.
std::string tiny_vocab(const std::vector<std::string>& extra) {
  nlohmann::ordered_json vocab;
  for (int b = 0; b < 256; ++b) vocab[gpt2_byte_to_text(static_cast<std::uint8_t>(b))] = b;
  for (std::size_t i = 0; i < extra.size(); ++i) vocab[extra[i]] = 256 + static_cast<int>(i);
  return vocab.dump();
}

TEST(BpeEncode, AppliesMergesInRankOrderByHand) {
  // merges, in rank order: a a → "aa" (256), aa b → "aab" (257), Ġ a → "Ġa" (258)
  const BpeTokenizer t = BpeTokenizer::from_gpt2(tiny_vocab({"aa", "aab", "Ġa"}), "#version: 0.2\na a\naa b\nĠ a\n");
  EXPECT_EQ(t.vocab_size(), 259);
  EXPECT_EQ(t.merge_count(), 3);
  // "aaab": a a a b → (rank 0, left to right) aa a b → no "aa b" pair at [aa, a]… [a, b]: stays
  EXPECT_EQ(t.encode("aaab"), (std::vector<int>{256, 'a', 'b'}));
  // "aab": aa b → aab
  EXPECT_EQ(t.encode("aab"), (std::vector<int>{257}));
  // " aab": the piece " aab": Ġ a a b → rank 0 first (a a): Ġ aa b → rank 1: Ġ aab (Ġ a never applies)
  EXPECT_EQ(t.encode(" aab"), (std::vector<int>{' ', 257}));
  EXPECT_EQ(t.encode(" ab"), (std::vector<int>{258, 'b'}));
  EXPECT_EQ(t.decode(std::vector<int>{258, 'b', 257}), " abaab");
  EXPECT_EQ(t.token_text(258), "Ġa");
  EXPECT_EQ(t.end_of_text(), -1);
  // the steps replay the merges
  const std::vector<BpePiece> steps = t.encode_with_steps(" aab");
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].bytes, (std::vector<int>{' ', 'a', 'a', 'b'}));
  ASSERT_EQ(steps[0].steps.size(), 2u);
  EXPECT_EQ(steps[0].steps[0].rank, 0);
  EXPECT_EQ(steps[0].steps[0].tokens, (std::vector<int>{' ', 256, 'b'}));
  EXPECT_EQ(steps[0].steps[1].merged, 257);
  EXPECT_EQ(steps[0].ids, (std::vector<int>{' ', 257}));
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(BpeGPT2, MatchesAnIndependentEncoderOnThousandsOfStrings) {
  const std::string dir = ATTNLAB_GPT2_VOCAB_DIR;
  const BpeTokenizer t = BpeTokenizer::from_gpt2(read_text(dir + "/encoder.json"), read_text(dir + "/vocab.bpe"));
  EXPECT_EQ(t.vocab_size(), 50257);
  EXPECT_EQ(t.merge_count(), 50000);
  EXPECT_EQ(t.end_of_text(), 50256);
  EXPECT_EQ(t.token_text(464), "The");  // GPT-2's id for "The"
  const nlohmann::json fixture = nlohmann::json::parse(read_text(std::string(ATTNLAB_FIXTURE_DIR) + "/gpt2_bpe.json"));
  int checked = 0;
  for (const auto& c : fixture.at("cases")) {
    const std::string text = c.at("text").get<std::string>();
    const std::vector<int> ids = t.encode(text);
    EXPECT_EQ(ids, c.at("ids").get<std::vector<int>>()) << "text: '" << text << "'";
    EXPECT_EQ(t.decode(ids), text);
    ++checked;
  }
  EXPECT_GT(checked, 3000);
  // GPT-2's files written back are GPT-2's files
  const BpeTokenizer again = BpeTokenizer::from_gpt2(t.vocab_json(), t.merges_text());
  EXPECT_EQ(again.encode("The animal didn't cross the street"), t.encode("The animal didn't cross the street"));
}

TEST(BpeErrors, NameTheFileLineAndToken) {
  const std::string fn = "BpeTokenizer::from_gpt2: ";
  expect_error([] { BpeTokenizer::from_gpt2("[1, 2]", ""); }, "BpeTokenizer::from_gpt2: vocab.json is not a JSON object of token → id");
  expect_error([] { BpeTokenizer::from_gpt2("{\"a\": 0, \"b\": 0}", ""); },
               "BpeTokenizer::from_gpt2: vocab.json gives the id 0 to two tokens");
  expect_error([] { BpeTokenizer::from_gpt2("{\"a\": 5}", ""); },
               "BpeTokenizer::from_gpt2: vocab.json gives 'a' the id 5, not one of 0 … 0");
  expect_error([] { BpeTokenizer::from_gpt2("{\"a\": 0}", ""); },
               "BpeTokenizer::from_gpt2: vocab.json has no token for the byte 0 ('Ā'): every byte needs one");
  expect_error([] { BpeTokenizer::from_gpt2("{\" \": 0}", ""); },
               "BpeTokenizer::from_gpt2: vocab.json's token ' ' has a character outside GPT-2's byte alphabet");
  const std::string vocab = tiny_vocab({"aa"});
  expect_error([&] { BpeTokenizer::from_gpt2(vocab, "#version: 0.2\naa\n"); },
               "BpeTokenizer::from_gpt2: merges.txt line 2 is not two tokens separated by one space: 'aa'");
  expect_error([&] { BpeTokenizer::from_gpt2(vocab, "a b\n"); },
               "BpeTokenizer::from_gpt2: merges.txt line 1 merges 'a' and 'b', but vocab.json lacks their merge");
  const BpeTokenizer t = BpeTokenizer::from_gpt2(vocab, "a a\n");
  expect_error([&] { t.decode(std::vector<int>{1, 257}); }, "BpeTokenizer::decode: ids[1] = 257 is outside the vocabulary 0 … 256");
  expect_error([&] { t.token_bytes(-1); }, "BpeTokenizer::token_bytes: id -1 is outside the vocabulary 0 … 256");
}

}  // namespace
}  // namespace attnlab
