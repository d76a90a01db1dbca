// A word-level tokenizer and vocabulary for the lessons' example sentences.
//   tokenize("The animal didn't cross the street.") → the, animal, didn't, cross, the, street, .
// Words are runs of letters and digits (ASCII letters lower-cased; bytes ≥ 0x80 kept as part of a
// word, so UTF-8 words survive), an apostrophe between letters stays inside the word ("didn't"), so do
// a number's '.' or ',' between digits ("3.14", "1,000") and an abbreviation's dots ("U.S.A." → u.s.a.,
// "e.g."); every other punctuation character is a token of its own, and whitespace separates.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

ATTNLAB_API_BEGIN
namespace attnlab {

std::vector<std::string> tokenize(std::string_view text);

class Vocabulary {
 public:
  static constexpr int kPadId = 0;      // "<pad>": fills short sequences in a batch
  static constexpr int kUnknownId = 1;  // "<unk>": any word not seen when the vocabulary was built

  // Ids 0 and 1 are <pad> and <unk>; then every distinct token of the corpus in first-seen order.
  explicit Vocabulary(const std::vector<std::string>& corpus);

  int size() const { return static_cast<int>(tokens_.size()); }
  int id(std::string_view token) const;  // kUnknownId if absent
  const std::string& token(int id) const;  // throws attnlab::Error if id is out of range
  std::vector<int> encode(std::string_view text) const;
  std::string decode(const std::vector<int>& ids) const;  // tokens joined by single spaces

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int> ids_;
};

}  // namespace attnlab
ATTNLAB_API_END
