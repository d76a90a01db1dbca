// Byte-level BPE: GPT-2's pre-tokenisation, encoding by merge rank, decoding, and GPT-2's files.
// (Learning merges from a corpus: bpe_train.cpp.)
#include <array>
#include <nlohmann/json.hpp>

#include "attnlab/bpe.hpp"
#include "checks.hpp"
#include "unicode_classes.hpp"

namespace attnlab {

namespace {

// ---- UTF-8, leniently: an invalid byte is a character of its own (never a letter, number or space) ----

struct Character {
  char32_t code;       // the code point, or kInvalid
  std::size_t size;    // its bytes
};
constexpr char32_t kInvalid = 0xFFFFFFFF;

Character next_character(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return {b0, 1};
  const std::size_t size = b0 >= 0xF0 && b0 <= 0xF4 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 && b0 < 0xE0 ? 2 : 0;
  if (size == 0 || b0 > 0xF4 || i + size > text.size()) return {kInvalid, 1};
  char32_t code = b0 & (0x7F >> size);
  for (std::size_t k = 1; k < size; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {kInvalid, 1};
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  // overlong forms, surrogates and code points past U+10FFFF are not valid UTF-8
  const char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < smallest[size] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return {kInvalid, 1};
  return {code, size};
}

enum class Class { letter, number, space, other };

Class classify(char32_t c) {
  if (c == kInvalid) return Class::other;
  if (unicode::is_letter(c)) return Class::letter;
  if (unicode::is_number(c)) return Class::number;
  if (unicode::is_whitespace(c)) return Class::space;
  return Class::other;
}

// Bytes from i on that are characters of class `c` (0 if the first is not).
std::size_t run_of(std::string_view text, std::size_t i, Class c) {
  std::size_t end = i;
  while (end < text.size()) {
    const Character ch = next_character(text, end);
    if (classify(ch.code) != c) break;
    end += ch.size;
  }
  return end - i;
}

// The length in bytes of the piece starting at i, trying GPT-2's alternatives in order:
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::size_t piece_length(std::string_view text, std::size_t i) {
  const std::string_view rest = text.substr(i);
  for (std::string_view contraction : {"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"})
    if (rest.starts_with(contraction)) return contraction.size();
  const std::size_t after_space = rest[0] == ' ' ? 1 : 0;
  for (Class c : {Class::letter, Class::number, Class::other}) {
    if (after_space && i + 1 < text.size()) {
      if (const std::size_t run = run_of(text, i + 1, c)) return 1 + run;
    }
    if (const std::size_t run = run_of(text, i, c)) return run;
  }
  // whitespace: the run, less its last character when a non-space follows (\s+(?!\S)), unless that
  // would leave nothing (then \s+ takes the whole run)
  std::size_t end = i, last_start = i;
  while (end < text.size()) {
    const Character ch = next_character(text, end);
    if (classify(ch.code) != Class::space) break;
    last_start = end;
    end += ch.size;
  }
  if (end < text.size() && last_start > i) return last_start - i;
  return end - i;
}

// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the others (control
// characters, space, 0x7F–0xA0, 0xAD) for 256 + their order among them.
char32_t byte_code_point(std::uint8_t b) {
  const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
  if (printable) return b;
  int n = 0;
  for (int k = 0; k < b; ++k) {
    const auto kb = static_cast<std::uint8_t>(k);
    if (!((kb >= '!' && kb <= '~') || (kb >= 0xA1 && kb <= 0xAC) || (kb >= 0xAE))) ++n;
  }
  return static_cast<char32_t>(256 + n);
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// GPT-2's spelling → the raw bytes; Error (naming `what`) for a character outside the byte alphabet.
std::string bytes_of(std::string_view spelled, const char* function, const std::string& what) {
  static const std::array<int, 512> byte_of = [] {
    std::array<int, 512> table{};
    table.fill(-1);
    for (int b = 0; b < 256; ++b) table[byte_code_point(static_cast<std::uint8_t>(b))] = b;
    return table;
  }();
  std::string bytes;
  for (std::size_t i = 0; i < spelled.size();) {
    const Character ch = next_character(spelled, i);
    if (ch.code == kInvalid || ch.code >= 512 || byte_of[ch.code] < 0)
      detail::fail(function, what, " has a character outside GPT-2's byte alphabet");
    bytes += static_cast<char>(byte_of[ch.code]);
    i += ch.size;
  }
  return bytes;
}

}  // namespace

std::string gpt2_byte_to_text(std::uint8_t byte) {
  std::string out;
  append_utf8(out, byte_code_point(byte));
  return out;
}

std::vector<std::string_view> BpeTokenizer::pretokenize(std::string_view text) {
  std::vector<std::string_view> pieces;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = piece_length(text, i);
    pieces.push_back(text.substr(i, length));
    i += length;
  }
  return pieces;
}

// ---- Building a tokenizer ----

void BpeTokenizer::add_token(std::string bytes) {
  byte_ids_.emplace(bytes, static_cast<int>(token_bytes_.size()));
  if (bytes == kEndOfText) end_of_text_ = static_cast<int>(token_bytes_.size());
  token_bytes_.push_back(std::move(bytes));
}

void BpeTokenizer::add_merge(int left, int right, int merged) {
  merge_rank_.emplace(pair_key(left, right), static_cast<int>(merges_.size()));
  merges_.emplace_back(left, right);
  merge_results_.push_back(merged);
}

BpeTokenizer BpeTokenizer::from_gpt2(std::string_view vocab_json, std::string_view merges_text) {
  const char* fn = "BpeTokenizer::from_gpt2";
  const nlohmann::json vocab = nlohmann::json::parse(vocab_json.begin(), vocab_json.end(), nullptr, false);
  if (vocab.is_discarded() || !vocab.is_object()) detail::fail(fn, "vocab.json is not a JSON object of token → id");
  // ids must be 0 … n − 1, each once
  std::vector<std::string> by_id(vocab.size());
  std::vector<bool> seen(vocab.size(), false);
  for (const auto& [token, id] : vocab.items()) {
    if (!id.is_number_unsigned() || id.get<std::uint64_t>() >= vocab.size())
      detail::fail(fn, "vocab.json gives '", token, "' the id ", id.dump(), ", not one of 0 … ", vocab.size() - 1);
    const auto i = id.get<std::size_t>();
    if (seen[i]) detail::fail(fn, "vocab.json gives the id ", i, " to two tokens");
    seen[i] = true;
    by_id[i] = bytes_of(token, fn, "vocab.json's token '" + token + "'");
  }
  BpeTokenizer t;
  for (std::string& bytes : by_id) t.add_token(std::move(bytes));
  for (int b = 0; b < 256; ++b)
    if (!t.byte_ids_.contains(std::string(1, static_cast<char>(b))))
      detail::fail(fn, "vocab.json has no token for the byte ", b, " ('", gpt2_byte_to_text(static_cast<std::uint8_t>(b)),
                   "'): every byte needs one");
  // merges.txt: "#version…" then "left right" per line, in rank order
  std::size_t line_number = 0;
  for (std::size_t start = 0; start < merges_text.size();) {
    std::size_t end = merges_text.find('\n', start);
    if (end == std::string_view::npos) end = merges_text.size();
    std::string_view line = merges_text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.starts_with("#version")) continue;
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos)
      detail::fail(fn, "merges.txt line ", line_number, " is not two tokens separated by one space: '", line, "'");
    const std::string where = "merges.txt line " + std::to_string(line_number);
    const std::string left = bytes_of(line.substr(0, space), fn, where);
    const std::string right = bytes_of(line.substr(space + 1), fn, where);
    const auto l = t.byte_ids_.find(left), r = t.byte_ids_.find(right), m = t.byte_ids_.find(left + right);
    if (l == t.byte_ids_.end() || r == t.byte_ids_.end() || m == t.byte_ids_.end())
      detail::fail(fn, where, " merges '", line.substr(0, space), "' and '", line.substr(space + 1),
                   "', but vocab.json lacks ", l == t.byte_ids_.end() ? "the first" : r == t.byte_ids_.end() ? "the second" : "their merge");
    if (!t.merge_rank_.contains(pair_key(l->second, r->second))) t.add_merge(l->second, r->second, m->second);
  }
  return t;
}

// ---- Encoding and decoding ----

std::vector<int> BpeTokenizer::merge_piece(std::string_view piece, std::vector<BpeMergeStep>* steps) const {
  // piece bytes → token ids: start from one token per byte; merge the lowest-ranked adjacent pair
  // everywhere it occurs (left to right), until no adjacent pair is a merge.
  std::vector<int> tokens;
  for (char byte : piece) tokens.push_back(byte_ids_.at(std::string(1, byte)));
  while (tokens.size() > 1) {
    int best = -1;
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
      const auto it = merge_rank_.find(pair_key(tokens[i], tokens[i + 1]));
      if (it != merge_rank_.end() && (best < 0 || it->second < best)) best = it->second;
    }
    if (best < 0) break;
    const auto [left, right] = merges_[static_cast<std::size_t>(best)];
    const int merged = merge_results_[static_cast<std::size_t>(best)];
    std::vector<int> next;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i + 1 < tokens.size() && tokens[i] == left && tokens[i + 1] == right) {
        next.push_back(merged);
        ++i;
      } else {
        next.push_back(tokens[i]);
      }
    }
    tokens = std::move(next);
    if (steps) steps->push_back({best, left, right, merged, tokens});
  }
  return tokens;
}

std::vector<int> BpeTokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  for (std::string_view piece : pretokenize(text)) {
    auto cached = cache_.find(std::string(piece));
    if (cached == cache_.end()) {
      if (cache_.size() > kCacheLimit) cache_.clear();
      cached = cache_.emplace(std::string(piece), merge_piece(piece, nullptr)).first;
    }
    ids.insert(ids.end(), cached->second.begin(), cached->second.end());
  }
  return ids;
}

std::vector<BpePiece> BpeTokenizer::encode_with_steps(std::string_view text) const {
  std::vector<BpePiece> pieces;
  for (std::string_view piece : pretokenize(text)) {
    BpePiece p;
    p.text = piece;
    for (char byte : piece) p.bytes.push_back(byte_ids_.at(std::string(1, byte)));
    p.ids = merge_piece(piece, &p.steps);
    pieces.push_back(std::move(p));
  }
  return pieces;
}

std::string BpeTokenizer::decode(std::span<const int> ids) const {
  std::string bytes;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_size())
      detail::fail("BpeTokenizer::decode", "ids[", i, "] = ", ids[i], " is outside the vocabulary 0 … ", vocab_size() - 1);
    bytes += token_bytes_[static_cast<std::size_t>(ids[i])];
  }
  return bytes;
}

const std::string& BpeTokenizer::token_bytes(int id) const {
  if (id < 0 || id >= vocab_size())
    detail::fail("BpeTokenizer::token_bytes", "id ", id, " is outside the vocabulary 0 … ", vocab_size() - 1);
  return token_bytes_[static_cast<std::size_t>(id)];
}

std::string BpeTokenizer::token_text(int id) const {
  std::string text;
  for (char byte : token_bytes(id)) text += gpt2_byte_to_text(static_cast<std::uint8_t>(byte));
  return text;
}

// ---- GPT-2's files ----

std::string BpeTokenizer::vocab_json() const {
  nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
  for (int id = 0; id < vocab_size(); ++id) vocab[token_text(id)] = id;
  return vocab.dump();
}

std::string BpeTokenizer::merges_text() const {
  std::string text = "#version: 0.2\n";
  for (const auto& [left, right] : merges_) text += token_text(left) + " " + token_text(right) + "\n";
  return text;
}

}  // namespace attnlab
