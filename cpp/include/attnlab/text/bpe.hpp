// Byte-level byte-pair encoding, as GPT-2 tokenizes text.
//
// Text is first split into pieces by GPT-2's pre-tokenisation rule (the regular expression
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// evaluated on Unicode code points); each piece's UTF-8 bytes start as one token per byte, and the
// merges are applied in rank order (the earliest-learned pair present is merged first, everywhere in
// the piece) until no listed pair remains. Every byte is a token, so any text encodes, and decode
// returns the exact bytes.
//
// Two ways to get a tokenizer:
//   - GPT-2's own files: vocab.json (token → id, tokens spelled in GPT-2's printable byte alphabet,
//     "Ġ" for a space) and merges.txt ("#version" line, then one "left right" pair per line);
//   - BpeTokenizer::train on a corpus (bpe_train.cpp): ids 0–255 are the bytes, then one id per merge
//     in the order learned, then "<|endoftext|>".
// Either can be written back as vocab.json + merges.txt and read again.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

ATTNLAB_API_BEGIN
namespace attnlab {

struct BpeTrainOptions {
  int vocab_size = 4096;  // total: 256 bytes + merges + <|endoftext|>; at least 257
  int min_count = 2;      // a pair seen fewer times than this is never merged (training stops early)
};

// How one pre-tokenised piece became tokens, for a lesson that replays the merges.
struct BpeMergeStep {
  int rank = 0;               // the merge's rank (0 = learned first)
  int left = 0, right = 0;    // the pair's token ids
  int merged = 0;             // the new token's id
  std::vector<int> tokens;    // the piece's tokens after this merge (applied at every occurrence)
};
struct BpePiece {
  std::string text;                 // the piece's bytes ("Ġ" not applied: " cat")
  std::vector<int> bytes;           // its starting tokens, one per byte
  std::vector<BpeMergeStep> steps;  // in the order applied; the last step's tokens are the piece's ids
  std::vector<int> ids;             // the final tokens (== bytes when no merge applies)
};

class BpeTokenizer {
 public:
  // From GPT-2's vocab.json text and merges.txt text. Errors name the file, the line or token, and
  // what is wrong: not JSON, a token listed twice, an id that is negative, repeated or beyond the
  // vocabulary, a byte with no single-byte token, a merge line without two tokens, a merge of tokens
  // the vocabulary lacks or whose result is not in it, a merge listed twice.
  static BpeTokenizer from_gpt2(std::string_view vocab_json, std::string_view merges_text);
  // Learns merges on `corpus` (see BpeTrainOptions); deterministic: ties between pairs seen equally
  // often go to the pair of smaller ids (left, then right).
  static BpeTokenizer train(std::string_view corpus, const BpeTrainOptions& options = {});

  std::vector<int> encode(std::string_view text) const;
  std::vector<BpePiece> encode_with_steps(std::string_view text) const;
  // One pre-tokenised piece's bytes → its ids by the merges alone (no pre-tokenisation): what a
  // tokenizer with another pre-tokenisation rule (hf_tokenizer.hpp) calls per piece.
  std::vector<int> encode_piece(std::string_view piece) const;
  // The id of the token whose bytes are `bytes`, or −1 if the vocabulary has none.
  int token_id(std::string_view bytes) const;
  // The bytes the ids stand for (a multi-byte character split across ids is split here too); ids
  // outside the vocabulary are an Error naming the position.
  std::string decode(std::span<const int> ids) const;

  int vocab_size() const { return static_cast<int>(token_bytes_.size()); }
  int merge_count() const { return static_cast<int>(merges_.size()); }
  const std::string& token_bytes(int id) const;  // the raw bytes of one token; Error if out of range
  std::string token_text(int id) const;          // in GPT-2's byte alphabet ("Ġcat")
  int end_of_text() const { return end_of_text_; }  // id of "<|endoftext|>", or −1 if the vocabulary has none

  // GPT-2's files for this tokenizer: vocab.json (ids in order, written as GPT-2's encoder.json is,
  // so GPT-2's own files come back byte for byte) and merges.txt.
  std::string vocab_json() const;
  std::string merges_text() const;

  // GPT-2's pre-tokenisation of `text` into pieces (byte ranges of the UTF-8 text, in order).
  static std::vector<std::string_view> pretokenize(std::string_view text);

 private:
  static constexpr std::string_view kEndOfText = "<|endoftext|>";
  static constexpr std::size_t kCacheLimit = 1 << 16;  // pieces remembered by encode()
  static std::uint64_t pair_key(int left, int right) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) | static_cast<std::uint32_t>(right);
  }

  BpeTokenizer() = default;
  void add_token(std::string bytes);               // the next id
  void add_merge(int left, int right, int merged);  // the next rank
  std::vector<int> merge_piece(std::string_view piece, std::vector<BpeMergeStep>* steps) const;

  std::vector<std::string> token_bytes_;          // id → bytes
  std::unordered_map<std::string, int> byte_ids_; // bytes → id, for the pieces and merges
  std::array<int, 256> byte_token_{};             // byte → the id of its single-byte token (a piece's start)
  std::vector<std::pair<int, int>> merges_;       // rank → (left, right)
  std::vector<int> merge_results_;                // rank → merged id
  std::unordered_map<std::uint64_t, int> merge_rank_;  // pair_key(left, right) → rank
  int end_of_text_ = -1;
  // encode()'s memo of pieces already merged (text repeats its words); not synchronised, like the rest.
  mutable std::unordered_map<std::string, std::vector<int>> cache_;
};

// GPT-2's printable alphabet for bytes (bytes_to_unicode in GPT-2's encoder.py): byte b → one code
// point, UTF-8 encoded ("Ġ" for 0x20).
std::string gpt2_byte_to_text(std::uint8_t byte);

}  // namespace attnlab
ATTNLAB_API_END
