#include "attnlab/text/tokenizer.hpp"

#include "tensor/checks.hpp"

namespace attnlab {

namespace {
bool is_word_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}
bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
char lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : static_cast<char>(c); }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Whether text[i] (a '.' or ',') belongs to the word being read rather than ending it:
//   a number's separator, between two digits: 3.14, 1,000;
//   an abbreviation's dot after a single letter, when another "letter." follows or the word already
//   is one (U.S.A., e.g.) — so a sentence's last word keeps its full stop to itself ("a cat." → cat, .).
bool punctuation_inside_word(std::string_view text, std::size_t i, const std::string& word) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(k < text.size() ? text[k] : '\0'); };
  const auto c = at(i);
  if (word.empty() || (c != '.' && c != ',')) return false;
  const auto last = static_cast<unsigned char>(word.back());
  if (is_digit(last) && is_digit(at(i + 1))) return true;
  if (c != '.') return false;
  const bool one_letter = is_letter(last) && (word.size() == 1 || word[word.size() - 2] == '.');
  const bool more_follows = is_letter(at(i + 1)) && at(i + 2) == '.';
  return one_letter && (more_follows || word.find('.') != std::string::npos);
}
}  // namespace

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> tokens;
  std::string word;
  const auto flush = [&] {
    if (!word.empty()) tokens.push_back(std::move(word));
    word.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool inner_apostrophe = c == '\'' && !word.empty() && i + 1 < text.size() &&
                                  is_word_byte(static_cast<unsigned char>(text[i + 1]));
    if (is_word_byte(c) || inner_apostrophe || punctuation_inside_word(text, i, word)) {
      word += lower(c);
    } else {
      flush();
      if (!is_space(c)) tokens.emplace_back(1, static_cast<char>(c));
    }
  }
  flush();
  return tokens;
}

Vocabulary::Vocabulary(const std::vector<std::string>& corpus) : tokens_{"<pad>", "<unk>"} {
  ids_.emplace("<pad>", kPadId);
  ids_.emplace("<unk>", kUnknownId);
  for (const std::string& sentence : corpus)
    for (std::string& token : tokenize(sentence))
      if (ids_.emplace(token, size()).second) tokens_.push_back(std::move(token));
}

int Vocabulary::id(std::string_view token) const {
  const auto found = ids_.find(std::string(token));
  return found == ids_.end() ? kUnknownId : found->second;
}

const std::string& Vocabulary::token(int id) const {
  if (id < 0 || id >= size())
    detail::fail("Vocabulary::token", "id ", id, " is outside the vocabulary 0 … ", size() - 1);
  return tokens_[static_cast<std::size_t>(id)];
}

std::vector<int> Vocabulary::encode(std::string_view text) const {
  std::vector<int> ids;
  for (const std::string& t : tokenize(text)) ids.push_back(id(t));
  return ids;
}

std::string Vocabulary::decode(const std::vector<int>& ids) const {
  std::string text;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i) text += ' ';
    text += token(ids[i]);
  }
  return text;
}

}  // namespace attnlab
