// A tokenizer.json as Hugging Face's tokenizers library writes it, for the byte-level BPE tokenizers of
// GPT-2, Llama 3, Qwen2 and SmolLM2. Encoding runs the library's pipeline:
//
//   1. added tokens: the text is cut at every added token's content (leftmost, longest first); each
//      becomes its id, and only the text between them goes on;
//   2. normalizer: none, or NFC, which the caller applies (hf_tokenizer's encode expects NFC text when
//      normalizer() says "NFC"; the package calls String.prototype.normalize first);
//   3. pre-tokenizer, one or a Sequence of: ByteLevel (use_regex: GPT-2's rule, bpe.hpp), Split with
//      Llama 3's regex or Qwen2's (the same with single digits; behavior Isolated), Digits
//      (ASCII digits, each alone with individual_digits or in runs, as the library's is_ascii_digit);
//   4. model: BPE over each piece's bytes by merge rank (merges written "a b" or ["a", "b"]); with
//      ignore_merges (Llama 3) a piece that is itself a token is that token;
//   5. post-processor: TemplateProcessing's single template (Llama 3 puts <|begin_of_text|> first), when
//      special tokens are asked for.
// Decoding: every token's bytes (the ByteLevel decoder), added tokens as their content.
// Any other component, or an option of these that changes the result and is not implemented (ByteLevel's
// add_prefix_space, an added token's lstrip, rstrip or single_word, BPE's byte_fallback, another Split
// pattern), is an Error naming it.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attnlab/text/bpe.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct HFAddedToken {
  int id = 0;
  std::string content;  // matched literally in the text
  bool special = false;  // left out by decode(…, skip_special_tokens)
};

class HFTokenizer {
 public:
  static HFTokenizer from_json(std::string_view tokenizer_json);

  // Text (UTF-8; NFC when normalizer() is "NFC") → ids; add_special_tokens applies the post-processor.
  std::vector<int> encode(std::string_view text, bool add_special_tokens = true) const;
  // Ids → the bytes they stand for (UTF-8 when whole characters are decoded).
  std::string decode(std::span<const int> ids, bool skip_special_tokens = false) const;

  int vocab_size() const { return vocab_size_; }  // 1 + the largest id, model's or added
  std::string token(int id) const;                 // as tokenizer.json spells it: "Ġthe", "<|begin_of_text|>"
  const std::vector<HFAddedToken>& added_tokens() const { return added_; }
  const std::string& normalizer() const { return normalizer_; }  // "" or "NFC"
  const std::string& pre_tokenizer() const { return pre_tokenizer_name_; }  // "ByteLevel", "Split(llama3) + ByteLevel", …
  const BpeTokenizer& bpe() const { return bpe_; }

  // The pre-tokenizer's pieces of `text` (byte ranges), as step 3 cuts it (no added tokens).
  std::vector<std::string_view> pretokenize(std::string_view text) const;

  enum class Step { byte_level_regex, split_llama3, split_qwen2, digits_individual, digits_runs };

 private:
  explicit HFTokenizer(BpeTokenizer bpe) : bpe_(std::move(bpe)) {}
  std::vector<int> encode_text(std::string_view text) const;  // steps 3 and 4

  BpeTokenizer bpe_;
  bool ignore_merges_ = false;
  std::vector<Step> steps_;
  std::vector<HFAddedToken> added_;  // longest content first (the order they are tried in)
  std::unordered_map<int, std::size_t> added_by_id_;  // id → its place in added_ (decode, token)
  std::vector<int> prefix_, suffix_;  // the template's special tokens before and after the text
  std::string normalizer_, pre_tokenizer_name_;
  int vocab_size_ = 0;
};

}  // namespace attnlab
ATTNLAB_API_END
