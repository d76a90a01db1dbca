// Byte-level BPE: GPT-2's pre-tokenisation, encoding by merge rank, decoding, and GPT-2's two files.
// (Learning merges from a corpus: bpe_train.cpp.)
#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <queue>
#include <unordered_set>

#include "attnlab/text/bpe.hpp"
#include "tensor/checks.hpp"
#include "text/unicode_classes.hpp"
#include "text/utf8.hpp"

namespace attnlab {

namespace {

constexpr const char* kFromGpt2 = "BpeTokenizer::from_gpt2";

// ---- UTF-8 (text/utf8.hpp) ----

using utf8::Character;
using utf8::kInvalid;
using utf8::next_character;

void append_utf8(std::string& out, char32_t c) {  // c ≤ U+FFFF, all this file writes
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

// Text as an error message shows it: at most `limit` characters ("…" after), control characters and
// bytes that are not UTF-8 written \xNN, so a hostile file cannot flood or garble the message.
std::string printable(std::string_view text, std::size_t limit) {
  std::string out;
  std::size_t characters = 0;
  for (std::size_t i = 0; i < text.size(); ++characters) {
    if (characters == limit) return out + "…";
    const Character ch = next_character(text, i);
    if (ch.code == kInvalid || ch.code < 0x20 || ch.code == 0x7F) {
      char escaped[16];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", static_cast<unsigned char>(text[i]));
      out += escaped;
    } else {
      out += text.substr(i, ch.size);
    }
    i += ch.size;
  }
  return out;
}

std::string token_in_quotes(std::string_view token) { return "'" + printable(token, 40) + "'"; }

// ---- GPT-2's pre-tokenisation rule ----

enum class Class { letter, number, space, other };

Class classify_code_point(char32_t c) {
  if (c == kInvalid) return Class::other;
  if (unicode::is_letter(c)) return Class::letter;
  if (unicode::is_number(c)) return Class::number;
  if (unicode::is_whitespace(c)) return Class::space;
  return Class::other;
}

Class classify(char32_t c) {
  // most text is ASCII: its classes once, instead of three table searches per character
  static const std::array<Class, 128> ascii = [] {
    std::array<Class, 128> table{};
    for (char32_t a = 0; a < 128; ++a) table[a] = classify_code_point(a);
    return table;
  }();
  return c < 128 ? ascii[c] : classify_code_point(c);
}

struct Run {
  std::size_t end;         // one past the run's last byte
  std::size_t last_start;  // where its last character starts
};

// The characters of class `c` from text[i] on (which must be one).
Run run_of(std::string_view text, std::size_t i, Class c) {
  Run run{i, i};
  while (run.end < text.size()) {
    const Character ch = next_character(text, run.end);
    if (classify(ch.code) != c) break;
    run.last_start = run.end;
    run.end += ch.size;
  }
  return run;
}

// The length in bytes of the piece at text[i], the first of GPT-2's alternatives that matches there:
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::size_t piece_length(std::string_view text, std::size_t i) {
  if (text[i] == '\'') {
    for (std::string_view contraction : {"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"})
      if (text.substr(i).starts_with(contraction)) return contraction.size();
  }
  // " ?X+" for the three non-space classes: a space joins the run of letters, numbers or other
  // characters that follows it
  if (text[i] == ' ' && i + 1 < text.size()) {
    const Class after = classify(next_character(text, i + 1).code);
    if (after != Class::space) return run_of(text, i + 1, after).end - i;
  }
  const Class first = classify(next_character(text, i).code);
  const Run run = run_of(text, i, first);
  if (first != Class::space) return run.end - i;
  // \s+(?!\S): whitespace not followed by a non-space, so a run before a word leaves its last
  // character to start the word's piece (" b" in "a  b"); \s+: unless the run is that one character
  const bool before_non_space = run.end < text.size();
  return before_non_space && run.last_start > i ? run.last_start - i : run.end - i;
}

// ---- GPT-2's byte alphabet (bytes_to_unicode in encoder.py) ----

// The printable Latin-1 bytes ('!'–'~', '¡'–'¬', '®'–'ÿ') stand for themselves; the other 68 (controls,
// space, DEL, 0x80–0xA0, the soft hyphen) for U+0100, U+0101, … in byte order.
constexpr char32_t kAlphabetEnd = 0x100 + 68;

const std::array<char32_t, 256>& byte_code_points() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t next = 0x100;
    for (char32_t b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      t[b] = printable ? b : next++;
    }
    return t;
  }();
  return table;
}

// A token's bytes → GPT-2's spelling of it ("Ġcat" for " cat").
std::string spelling(std::string_view bytes) {
  std::string out;
  for (char byte : bytes) append_utf8(out, byte_code_points()[static_cast<unsigned char>(byte)]);
  return out;
}

// GPT-2's spelling of a token → its bytes. Error (naming `where`) for a character outside the alphabet.
// where() names the token's place for an error message: made only when there is one, because a
// vocabulary of 100,000 tokens would otherwise build (and, in the threaded wasm build's JS-emulated
// exceptions, unwind-protect) 100,000 message prefixes on every load.
template <class Where>
std::string bytes_of(std::string_view spelled, const Where& where) {
  static const std::array<int, kAlphabetEnd> byte_of = [] {
    std::array<int, kAlphabetEnd> table{};
    table.fill(-1);
    for (int b = 0; b < 256; ++b) table[byte_code_points()[static_cast<std::size_t>(b)]] = b;
    return table;
  }();
  std::string bytes;
  for (std::size_t i = 0; i < spelled.size();) {
    const Character ch = next_character(spelled, i);
    if (ch.code == kInvalid) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(spelled[i]));
      detail::fail(kFromGpt2, where(), " has the byte ", hex, ", which is not UTF-8");
    }
    if (ch.code >= kAlphabetEnd || byte_of[ch.code] < 0) {
      char code[16];
      std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(ch.code));
      detail::fail(kFromGpt2, where(), " has ", code, ", which is not one of GPT-2's 256 byte characters");
    }
    bytes += static_cast<char>(byte_of[ch.code]);
    i += ch.size;
  }
  return bytes;
}

// ---- vocab.json ----

// Reads vocab.json's {"token": id, …} as nlohmann/json parses it (SAX), without building a JSON tree:
// anything but an object of whole numbers is refused at the first value that is not one, so a hostile
// file (deep nesting, a huge array) costs nothing, and a token listed twice is caught (a tree keeps
// the last silently).
class VocabReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  struct Entry {
    std::string token;  // as spelled in the file
    std::uint64_t id;
  };
  std::vector<Entry> entries;  // in the file's order
  std::string error;           // why parsing stopped, if it did

  bool start_object(std::size_t) override {
    if (in_object_) return not_an_id("an object");
    in_object_ = true;
    return true;
  }
  bool end_object() override { return true; }
  bool key(string_t& token) override {
    if (!keys_.insert(token).second) return refuse("vocab.json lists the token " + token_in_quotes(token) + " twice");
    token_ = token;
    return true;
  }
  bool number_unsigned(number_unsigned_t id) override {
    if (!in_object_) return not_an_object();
    entries.push_back({token_, id});
    return true;
  }
  bool number_integer(number_integer_t id) override {  // a negative number, or "-0"
    if (id >= 0) return number_unsigned(static_cast<number_unsigned_t>(id));
    return in_object_ ? refuse(gives("the negative id " + std::to_string(id))) : not_an_object();
  }
  bool number_float(number_float_t, const string_t& text) override {
    const bool whole = text.find_first_not_of("0123456789") == std::string::npos;  // past 2^64 − 1
    if (whole && in_object_) return refuse(gives("the id " + text + ", beyond any vocabulary"));
    return not_an_id("the value " + text);
  }
  bool string(string_t&) override { return not_an_id("a string"); }
  bool boolean(bool value) override { return not_an_id(value ? "the value true" : "the value false"); }
  bool null() override { return not_an_id("the value null"); }
  bool binary(binary_t&) override { return not_an_id("binary data"); }
  bool start_array(std::size_t) override { return not_an_id("an array"); }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    // "[json.exception.parse_error.101] parse error at line 1, column 7: …": what follows the tag
    const std::string_view what = e.what();
    const std::size_t tag_end = what.find("] ");
    const std::string_view message = tag_end == std::string_view::npos ? what : what.substr(tag_end + 2);
    return refuse("vocab.json is not valid JSON: " + printable(message, 200));
  }

 private:
  bool refuse(std::string message) {
    if (error.empty()) error = std::move(message);
    return false;
  }
  bool not_an_object() { return refuse("vocab.json is not a JSON object of token → id"); }
  bool not_an_id(const std::string& value) {
    return in_object_ ? refuse(gives(value + ", not an id (a whole number ≥ 0)")) : not_an_object();
  }
  std::string gives(const std::string& what) const { return "vocab.json gives " + token_in_quotes(token_) + " " + what; }

  bool in_object_ = false;                // past the top-level '{'
  std::string token_;                     // the key whose value comes next
  std::unordered_set<std::string> keys_;  // every key so far
};

// vocab.json → each token's bytes, by id. Errors: not JSON, not an object of ids, a token listed
// twice or spelled outside GPT-2's alphabet, an id negative, repeated or not below the token count.
std::vector<std::string> read_vocab(std::string_view vocab_json) {
  VocabReader reader;
  nlohmann::json::sax_parse(vocab_json.begin(), vocab_json.end(), &reader);
  if (!reader.error.empty()) detail::fail(kFromGpt2, reader.error);
  const std::size_t n = reader.entries.size();
  std::vector<const std::string*> spelled(n, nullptr);  // id → the token given it
  for (const VocabReader::Entry& entry : reader.entries) {
    if (entry.id >= n)
      detail::fail(kFromGpt2, "vocab.json gives ", token_in_quotes(entry.token), " the id ", entry.id, ", not one of 0 … ", n - 1);
    const std::string*& owner = spelled[entry.id];
    if (owner)
      detail::fail(kFromGpt2, "vocab.json gives the id ", entry.id, " to both ", token_in_quotes(*owner), " and ", token_in_quotes(entry.token));
    owner = &entry.token;
  }
  std::vector<std::string> bytes(n);
  for (std::size_t id = 0; id < n; ++id)
    bytes[id] = bytes_of(*spelled[id], [&] { return "vocab.json's token " + token_in_quotes(*spelled[id]); });
  return bytes;
}

// ---- merges.txt ----

struct MergeLine {
  std::size_t number;                  // 1-based, as an editor counts
  std::string_view text, left, right;  // the line and its two tokens, as spelled
};

// merges.txt → its "left right" lines in rank order: an optional "#version…" first line and blank
// lines are skipped; "\r\n" line ends are accepted. Error for a line that is not two tokens.
std::vector<MergeLine> read_merge_lines(std::string_view merges_text) {
  std::vector<MergeLine> lines;
  std::size_t number = 0;
  for (std::size_t start = 0; start < merges_text.size();) {
    const std::size_t end = std::min(merges_text.find('\n', start), merges_text.size());
    std::string_view line = merges_text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty() || (number == 1 && line.starts_with("#version"))) continue;
    const std::size_t space = line.find(' ');
    if (space == 0 || space == std::string_view::npos || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos)
      detail::fail(kFromGpt2, "merges.txt line ", number, " is not two tokens separated by one space: ",
                   token_in_quotes(line));
    lines.push_back({number, line, line.substr(0, space), line.substr(space + 1)});
  }
  return lines;
}

// ---- Writing GPT-2's files ----

// Python's json.dumps (ensure_ascii, as GPT-2's encoder.json was written) of a token's spelling:
// printable ASCII as is but " and \, everything else \uXXXX. GPT-2's alphabet has no control
// character and nothing past U+0143, so no other escape is ever needed.
std::string json_string(std::string_view spelled) {
  std::string out = "\"";
  for (std::size_t i = 0; i < spelled.size();) {
    const Character ch = next_character(spelled, i);
    i += ch.size;
    if (ch.code == '"' || ch.code == '\\') out += '\\';
    if (ch.code < 0x80) {
      out += static_cast<char>(ch.code);
    } else {
      char escaped[16];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(ch.code));
      out += escaped;
    }
  }
  return out + "\"";
}

// ---- Ids ----

[[noreturn]] void fail_outside_vocabulary(const char* function, const std::string& what, int vocab_size) {
  detail::fail(function, what, " is outside the vocabulary 0 … ", vocab_size - 1);
}

}  // namespace

std::string gpt2_byte_to_text(std::uint8_t byte) { return spelling(std::string(1, static_cast<char>(byte))); }

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
  const int id = vocab_size();
  const bool first = byte_ids_.emplace(bytes, id).second;
  if (first && bytes.size() == 1) byte_token_[static_cast<unsigned char>(bytes[0])] = id;
  if (bytes == kEndOfText) end_of_text_ = id;
  token_bytes_.push_back(std::move(bytes));
}

void BpeTokenizer::add_merge(int left, int right, int merged) {
  merge_rank_.emplace(pair_key(left, right), merge_count());
  merges_.emplace_back(left, right);
  merge_results_.push_back(merged);
}

BpeTokenizer BpeTokenizer::from_gpt2(std::string_view vocab_json, std::string_view merges_text) {
  // vocab.json: the tokens by id; every byte must be one of them, so that any text encodes
  BpeTokenizer t;
  for (std::string& bytes : read_vocab(vocab_json)) t.add_token(std::move(bytes));
  for (int b = 0; b < 256; ++b) {
    const std::string byte(1, static_cast<char>(b));
    if (!t.byte_ids_.contains(byte))
      detail::fail(kFromGpt2, "vocab.json has no token for the byte ", b, " (", token_in_quotes(spelling(byte)),
                   "): every byte needs one");
  }
  // merges.txt: in rank order, two tokens of vocab.json whose merge is a token of vocab.json too
  std::vector<std::size_t> line_of_rank;  // for the message about a repeated merge
  for (const MergeLine& line : read_merge_lines(merges_text)) {
    const auto where = [&] { return "merges.txt line " + std::to_string(line.number); };
    const auto id_of = [&](const std::string& bytes, const char* which) {
      const auto it = t.byte_ids_.find(bytes);
      if (it == t.byte_ids_.end())
        detail::fail(kFromGpt2, where(), " merges ", token_in_quotes(line.left), " and ", token_in_quotes(line.right),
                     ", but vocab.json has no token ", token_in_quotes(spelling(bytes)), which);
      return it->second;
    };
    const std::string left = bytes_of(line.left, where), right = bytes_of(line.right, where);
    const int l = id_of(left, ""), r = id_of(right, ""), merged = id_of(left + right, " for their merge");
    if (const auto known = t.merge_rank_.find(pair_key(l, r)); known != t.merge_rank_.end())
      detail::fail(kFromGpt2, where(), " repeats the merge ", token_in_quotes(line.text), " of line ",
                   line_of_rank[static_cast<std::size_t>(known->second)]);
    t.add_merge(l, r, merged);
    line_of_rank.push_back(line.number);
  }
  return t;
}

// ---- Encoding and decoding ----

std::vector<int> BpeTokenizer::merge_piece(std::string_view piece, std::vector<BpeMergeStep>* steps) const {
  // piece (n bytes) → its token ids, as GPT-2's encoder.py: start from one token per byte; take the
  // lowest-ranked adjacent pair present and merge it at every occurrence, left to right; repeat until
  // no adjacent pair is a merge. Symbols are a linked list over the byte positions (a symbol keeps
  // the position of its first byte, so list order is position order) and candidate pairs wait in a
  // heap of (rank, position): O(n log n) for a long piece, where rescanning per merge is O(n²).
  const int n = static_cast<int>(piece.size());
  std::vector<int> token(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
  std::vector<int> previous(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    token[i] = byte_token_[static_cast<unsigned char>(piece[static_cast<std::size_t>(i)])];
    next[i] = i + 1 < n ? i + 1 : -1;
    previous[i] = i - 1;
  }
  using Candidate = std::pair<int, int>;  // (rank, position of the pair's left symbol)
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> candidates;
  const auto consider = [&](int at) {  // the pair starting at symbol `at`, if it is a merge
    if (at < 0 || next[at] < 0) return;
    if (const auto it = merge_rank_.find(pair_key(token[at], token[next[at]])); it != merge_rank_.end())
      candidates.emplace(it->second, at);
  };
  const auto tokens_now = [&] {
    std::vector<int> out;
    for (int at = 0; at >= 0; at = next[at]) out.push_back(token[at]);  // symbol 0 is never merged away
    return out;
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);

  std::vector<int> pass;  // the positions of one rank's pass
  while (!candidates.empty()) {
    // one pass of the lowest rank present, over its positions left to right (the heap's order). A
    // position whose symbols have changed since it was queued (merged into a neighbour, or away) is
    // skipped. Pairs formed by this pass wait for a later one, even one of lower rank (possible only
    // in a merges.txt that uses a token before the line that makes it): encoder.py's order exactly.
    const int rank = candidates.top().first;
    pass.clear();
    for (; !candidates.empty() && candidates.top().first == rank; candidates.pop())
      pass.push_back(candidates.top().second);
    const auto [left, right] = merges_[static_cast<std::size_t>(rank)];
    const int merged = merge_results_[static_cast<std::size_t>(rank)];
    bool merged_any = false;
    for (const int at : pass) {
      const int gone = next[at];
      if (token[at] != left || gone < 0 || token[gone] != right) continue;
      token[at] = merged;
      token[gone] = -1;
      next[at] = next[gone];
      if (next[at] >= 0) previous[next[at]] = at;
      consider(previous[at]);
      consider(at);
      merged_any = true;
    }
    if (steps && merged_any) steps->push_back({rank, left, right, merged, tokens_now()});
  }
  return n == 0 ? std::vector<int>{} : tokens_now();
}

std::vector<int> BpeTokenizer::encode_piece(std::string_view piece) const { return merge_piece(piece, nullptr); }

int BpeTokenizer::token_id(std::string_view bytes) const {
  const auto it = byte_ids_.find(std::string(bytes));
  return it == byte_ids_.end() ? -1 : it->second;
}

std::vector<int> BpeTokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  for (std::string_view piece : pretokenize(text)) {
    std::string key(piece);
    auto cached = cache_.find(key);
    if (cached == cache_.end()) {
      if (cache_.size() >= kCacheLimit) cache_.clear();
      cached = cache_.emplace(std::move(key), merge_piece(piece, nullptr)).first;
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
    for (char byte : piece) p.bytes.push_back(byte_token_[static_cast<unsigned char>(byte)]);
    p.ids = merge_piece(piece, &p.steps);
    pieces.push_back(std::move(p));
  }
  return pieces;
}

std::string BpeTokenizer::decode(std::span<const int> ids) const {
  std::string bytes;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_size())
      fail_outside_vocabulary("BpeTokenizer::decode", "ids[" + std::to_string(i) + "] = " + std::to_string(ids[i]),
                              vocab_size());
    bytes += token_bytes_[static_cast<std::size_t>(ids[i])];
  }
  return bytes;
}

const std::string& BpeTokenizer::token_bytes(int id) const {
  if (id < 0 || id >= vocab_size())
    fail_outside_vocabulary("BpeTokenizer::token_bytes", "id " + std::to_string(id), vocab_size());
  return token_bytes_[static_cast<std::size_t>(id)];
}

std::string BpeTokenizer::token_text(int id) const {
  if (id < 0 || id >= vocab_size())
    fail_outside_vocabulary("BpeTokenizer::token_text", "id " + std::to_string(id), vocab_size());
  return spelling(token_bytes_[static_cast<std::size_t>(id)]);
}

// ---- GPT-2's files ----

std::string BpeTokenizer::vocab_json() const {
  // as GPT-2's encoder.py wrote encoder.json (json.dumps: ", " and ": " separators), so GPT-2's own
  // file comes back byte for byte
  std::string json = "{";
  for (int id = 0; id < vocab_size(); ++id) {
    if (id > 0) json += ", ";
    json += json_string(token_text(id)) + ": " + std::to_string(id);
  }
  return json + "}";
}

std::string BpeTokenizer::merges_text() const {
  std::string text = "#version: 0.2\n";
  for (const auto& [left, right] : merges_) text += token_text(left) + " " + token_text(right) + "\n";
  return text;
}

}  // namespace attnlab
