// tokenizer.json (Hugging Face's tokenizers library), read and run: hf_tokenizer.hpp says what is supported.
#include "attnlab/text/hf_tokenizer.hpp"

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

#include "tensor/checks.hpp"
#include "text/unicode_classes.hpp"
#include "text/utf8.hpp"

namespace attnlab {

namespace {

using json = nlohmann::json;
constexpr const char* kFrom = "HFTokenizer::from_json";

// The Split patterns of Llama 3 and Qwen2 (their tokenizer.json's pre_tokenizer), which differ only in
// how many digits one piece may hold.
constexpr std::string_view kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// \p{L}, \p{N}, \s and none of them (a byte that is not UTF-8 counts as none).
constexpr auto letter = [](char32_t c) { return c != utf8::kInvalid && unicode::is_letter(c); };
constexpr auto number = [](char32_t c) { return c != utf8::kInvalid && unicode::is_number(c); };
constexpr auto space = [](char32_t c) { return c != utf8::kInvalid && unicode::is_whitespace(c); };
constexpr auto other = [](char32_t c) { return !letter(c) && !number(c) && !space(c); };

// Where the run of characters satisfying `in` that starts at text[i] ends (i itself if none does).
template <typename Predicate>
std::size_t run_end(std::string_view text, std::size_t i, Predicate in, std::size_t most = std::string_view::npos) {
  std::size_t count = 0;
  while (i < text.size() && count < most) {
    const utf8::Character ch = utf8::next_character(text, i);
    if (!in(ch.code)) break;
    i += ch.size;
    ++count;
  }
  return i;
}

// The length in bytes of the piece at text[i] by Llama 3's pattern (max_digits 3) or Qwen2's (1): the
// first alternative that matches there, with the regex's backtracking worked out by hand:
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
std::size_t llama3_piece_length(std::string_view text, std::size_t i, std::size_t max_digits) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  if (text[i] == '\'') {
    for (std::string_view contraction : {"s", "t", "re", "ve", "m", "ll", "d"}) {
      if (text.size() - i - 1 < contraction.size()) continue;
      bool same = true;
      for (std::size_t k = 0; k < contraction.size(); ++k) same = same && lower(text[i + 1 + k]) == contraction[k];
      if (same) return 1 + contraction.size();
    }
  }
  const utf8::Character first = utf8::next_character(text, i);
  const char32_t c = first.code;
  // [^\r\n\p{L}\p{N}]?\p{L}+: letters, perhaps after one character that is none of those
  if (letter(c)) return run_end(text, i, letter) - i;
  const std::size_t after = i + first.size;
  if (c != '\r' && c != '\n' && !number(c) && after < text.size() && letter(utf8::next_character(text, after).code))
    return run_end(text, after, letter) - i;
  // \p{N}{1,max}
  if (number(c)) return run_end(text, i, number, max_digits) - i;
  // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
  std::size_t start = i;
  if (c == ' ' && after < text.size() && other(utf8::next_character(text, after).code)) start = after;
  if (other(utf8::next_character(text, start).code)) {
    const std::size_t others = run_end(text, start, other);
    return run_end(text, others, [](char32_t x) { return x == '\r' || x == '\n'; }) - i;
  }
  // whitespace: \s*[\r\n]+ ends after the run's last line break; else \s+(?!\S) leaves the last
  // character of a run before a non-space to start the next piece; else \s+
  std::size_t end = i, last_break = std::string_view::npos, last_start = i;
  while (end < text.size()) {
    const utf8::Character ch = utf8::next_character(text, end);
    if (!space(ch.code)) break;
    if (ch.code == '\r' || ch.code == '\n') last_break = end;
    last_start = end;
    end += ch.size;
  }
  if (last_break != std::string_view::npos) return last_break + 1 - i;
  return end < text.size() && last_start > i ? last_start - i : end - i;
}

// Digits: each ASCII digit its own piece (individual) or runs of them; the text between is one piece.
// ASCII 0–9 only, as the tokenizers library's char::is_ascii_digit (not \p{N}: "½" and "٣" stay in the text).
std::vector<std::string_view> split_digits(std::string_view text, bool individual) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::vector<std::string_view> pieces;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t end = i + 1;
    if (!digit(text[i])) {
      while (end < text.size() && !digit(text[end])) ++end;
    } else if (!individual) {
      while (end < text.size() && digit(text[end])) ++end;
    }
    pieces.push_back(text.substr(i, end - i));
    i = end;
  }
  return pieces;
}

const json& field(const json& object, const char* name, const std::string& where) {
  if (!object.is_object() || !object.contains(name)) detail::fail(kFrom, where, " has no \"", name, "\"");
  return object.at(name);
}

// A boolean option that must have the value this implementation computes (false, or absent).
void require_false(const json& object, const char* name, const std::string& where) {
  if (object.contains(name) && object.at(name).is_boolean() && object.at(name).get<bool>())
    detail::fail(kFrom, where, "'s ", name, " = true is not supported");
}

std::string type_of(const json& component, const std::string& where) {
  const json& type = field(component, "type", where);
  if (!type.is_string()) detail::fail(kFrom, where, "'s \"type\" is not a string");
  return type.get<std::string>();
}

void add_pre_tokenizer(const json& p, const std::string& where, std::vector<HFTokenizer::Step>& steps, std::string& name) {
  const std::string type = type_of(p, where);
  const auto named = [&](const std::string& part) { name += (name.empty() ? "" : " + ") + part; };
  if (type == "Sequence") {
    for (const json& inner : field(p, "pretokenizers", where)) add_pre_tokenizer(inner, where, steps, name);
  } else if (type == "ByteLevel") {
    require_false(p, "add_prefix_space", where + " ByteLevel");
    if (p.value("use_regex", true)) steps.push_back(HFTokenizer::Step::byte_level_regex);
    named("ByteLevel");
  } else if (type == "Split") {
    const json& pattern = field(p, "pattern", where + " Split");
    const std::string regex = pattern.is_object() && pattern.contains("Regex") ? pattern.at("Regex").get<std::string>() : pattern.dump();
    if (p.value("behavior", std::string()) != "Isolated")
      detail::fail(kFrom, where, " Split's behavior ", field(p, "behavior", where).dump(), " is not supported (supported: Isolated)");
    require_false(p, "invert", where + " Split");
    if (regex == kLlama3Pattern) steps.push_back(HFTokenizer::Step::split_llama3), named("Split(Llama 3)");
    else if (regex == kQwen2Pattern) steps.push_back(HFTokenizer::Step::split_qwen2), named("Split(Qwen2)");
    else detail::fail(kFrom, where, " Split's pattern ", pattern.dump().substr(0, 120), " is not supported (supported: Llama 3's and Qwen2's)");
  } else if (type == "Digits") {
    steps.push_back(p.value("individual_digits", false) ? HFTokenizer::Step::digits_individual : HFTokenizer::Step::digits_runs);
    named("Digits");
  } else {
    detail::fail(kFrom, where, " ", type, " is not supported (supported: ByteLevel, Split, Digits, Sequence)");
  }
}

}  // namespace

HFTokenizer HFTokenizer::from_json(std::string_view text) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    detail::fail(kFrom, "tokenizer.json is not JSON: ", e.what());
  }
  if (!j.is_object()) detail::fail(kFrom, "tokenizer.json is not a JSON object");

  // The components first (cheap to check), then the model, whose vocabulary may be large.
  std::vector<HFAddedToken> added;
  std::vector<int> prefix, suffix;
  std::string normalizer, pre_tokenizer_name;
  std::vector<HFTokenizer::Step> steps;
  // Added tokens, tried longest first.
  if (j.contains("added_tokens") && j.at("added_tokens").is_array()) {
    for (const json& a : j.at("added_tokens")) {
      const std::string where = "added token " + a.value("content", std::string("?"));
      for (const char* flag : {"lstrip", "rstrip", "single_word"}) require_false(a, flag, where);
      HFAddedToken token{field(a, "id", where).get<int>(), field(a, "content", where).get<std::string>(), a.value("special", false)};
      if (token.id < 0 || token.content.empty()) detail::fail(kFrom, where, " has id ", token.id, " or no content");
      added.push_back(std::move(token));
    }
    std::stable_sort(added.begin(), added.end(),
                     [](const HFAddedToken& a, const HFAddedToken& b) { return a.content.size() > b.content.size(); });
  }
  // Normalizer: none or NFC (applied by the caller).
  if (j.contains("normalizer") && !j.at("normalizer").is_null()) {
    const std::string type = type_of(j.at("normalizer"), "the normalizer");
    if (type != "NFC") detail::fail(kFrom, "the normalizer ", type, " is not supported (supported: none, NFC)");
    normalizer = "NFC";
  }
  if (j.contains("pre_tokenizer") && !j.at("pre_tokenizer").is_null())
    add_pre_tokenizer(j.at("pre_tokenizer"), "the pre_tokenizer", steps, pre_tokenizer_name);
  // Post-processor: ByteLevel (offsets only) and TemplateProcessing's single template.
  const std::function<void(const json&)> post = [&](const json& p) {
    const std::string type = type_of(p, "the post_processor");
    if (type == "Sequence") {
      for (const json& inner : field(p, "processors", "the post_processor")) post(inner);
    } else if (type == "TemplateProcessing") {
      bool after = false;
      for (const json& piece : field(p, "single", "TemplateProcessing")) {
        if (piece.contains("Sequence")) {
          after = true;
          continue;
        }
        const std::string id = field(field(piece, "SpecialToken", "TemplateProcessing's single"), "id", "SpecialToken").get<std::string>();
        const json& ids = field(field(field(p, "special_tokens", "TemplateProcessing"), id.c_str(), "special_tokens"), "ids", id);
        for (const json& value : ids) (after ? suffix : prefix).push_back(value.get<int>());
      }
    } else if (type != "ByteLevel") {
      detail::fail(kFrom, "the post_processor ", type, " is not supported (supported: ByteLevel, TemplateProcessing, Sequence)");
    }
  };
  if (j.contains("post_processor") && !j.at("post_processor").is_null()) post(j.at("post_processor"));
  // Decoder: ByteLevel (each token's bytes), the only one a byte-level BPE needs.
  if (j.contains("decoder") && !j.at("decoder").is_null()) {
    const std::string type = type_of(j.at("decoder"), "the decoder");
    if (type != "ByteLevel") detail::fail(kFrom, "the decoder ", type, " is not supported (supported: ByteLevel)");
  }

  // The model: BPE, its vocabulary and merges read through the GPT-2 files' reader (bpe.hpp's checks).
  const json& model = field(j, "model", "tokenizer.json");
  if (const std::string type = model.value("type", std::string("BPE")); type != "BPE")
    detail::fail(kFrom, "the model ", type, " is not supported (supported: BPE)");
  require_false(model, "byte_fallback", "the BPE model");
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (model.contains(affix) && model.at(affix).is_string() && !model.at(affix).get<std::string>().empty())
      detail::fail(kFrom, "the BPE model's ", affix, " ", model.at(affix).dump(), " is not supported (byte-level BPE has none)");
  std::string merges = "#version: 0.2\n";
  for (const json& merge : field(model, "merges", "the BPE model")) {
    if (merge.is_string()) merges += merge.get<std::string>() + "\n";
    else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string())
      merges += merge[0].get<std::string>() + " " + merge[1].get<std::string>() + "\n";
    else detail::fail(kFrom, "the BPE model's merge ", merge.dump().substr(0, 80), " is neither \"a b\" nor [\"a\", \"b\"]");
  }
  const auto read_bpe = [&] {
    try {
      return BpeTokenizer::from_gpt2(field(model, "vocab", "the BPE model").dump(), merges);
    } catch (const Error& e) {
      detail::fail(kFrom, "the BPE model's vocab and merges (read as GPT-2's vocab.json and merges.txt): ", e.what());
    }
  };
  HFTokenizer t(read_bpe());
  t.ignore_merges_ = model.value("ignore_merges", false);
  t.vocab_size_ = t.bpe_.vocab_size();
  for (const HFAddedToken& a : added) t.vocab_size_ = std::max(t.vocab_size_, a.id + 1);
  t.added_ = std::move(added);
  for (std::size_t i = 0; i < t.added_.size(); ++i) t.added_by_id_.emplace(t.added_[i].id, i);
  t.prefix_ = std::move(prefix);
  t.suffix_ = std::move(suffix);
  t.normalizer_ = std::move(normalizer);
  t.pre_tokenizer_name_ = std::move(pre_tokenizer_name);
  t.steps_ = std::move(steps);

  return t;
}

std::vector<std::string_view> HFTokenizer::pretokenize(std::string_view text) const {
  std::vector<std::string_view> pieces{text};
  for (const Step step : steps_) {
    std::vector<std::string_view> next;
    for (std::string_view piece : pieces) {
      if (step == Step::byte_level_regex) {
        for (std::string_view p : BpeTokenizer::pretokenize(piece)) next.push_back(p);
      } else if (step == Step::digits_individual || step == Step::digits_runs) {
        for (std::string_view p : split_digits(piece, step == Step::digits_individual)) next.push_back(p);
      } else {
        const std::size_t digits = step == Step::split_llama3 ? 3 : 1;
        for (std::size_t i = 0; i < piece.size();) {
          const std::size_t length = llama3_piece_length(piece, i, digits);
          next.push_back(piece.substr(i, length));
          i += length;
        }
      }
    }
    pieces = std::move(next);
  }
  return pieces;
}

std::vector<int> HFTokenizer::encode_text(std::string_view text) const {
  std::vector<int> ids;
  for (std::string_view piece : pretokenize(text)) {
    const int whole = ignore_merges_ ? bpe_.token_id(piece) : -1;
    if (whole >= 0) {
      ids.push_back(whole);
      continue;
    }
    const std::vector<int> merged = bpe_.encode_piece(piece);
    ids.insert(ids.end(), merged.begin(), merged.end());
  }
  return ids;
}

std::vector<int> HFTokenizer::encode(std::string_view text, bool add_special_tokens) const {
  std::vector<int> ids;
  if (add_special_tokens) ids = prefix_;
  std::size_t done = 0;  // text before this is encoded
  for (std::size_t i = 0; i < text.size();) {
    const HFAddedToken* hit = nullptr;
    for (const HFAddedToken& a : added_)
      if (text.compare(i, a.content.size(), a.content) == 0) {
        hit = &a;
        break;
      }
    if (!hit) {
      ++i;
      continue;
    }
    const std::vector<int> before = encode_text(text.substr(done, i - done));
    ids.insert(ids.end(), before.begin(), before.end());
    ids.push_back(hit->id);
    i += hit->content.size();
    done = i;
  }
  const std::vector<int> rest = encode_text(text.substr(done));
  ids.insert(ids.end(), rest.begin(), rest.end());
  if (add_special_tokens) ids.insert(ids.end(), suffix_.begin(), suffix_.end());
  return ids;
}

std::string HFTokenizer::decode(std::span<const int> ids, bool skip_special_tokens) const {
  std::string bytes;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const int id = ids[i];
    if (const auto found = added_by_id_.find(id); found != added_by_id_.end()) {
      const HFAddedToken& added = added_[found->second];
      if (!(skip_special_tokens && added.special)) bytes += added.content;
      continue;
    }
    if (id < 0 || id >= bpe_.vocab_size())
      detail::fail("HFTokenizer::decode", "ids[", i, "] = ", id, " is not a token of this tokenizer (0 … ", vocab_size_ - 1, ")");
    bytes += bpe_.token_bytes(id);
  }
  return bytes;
}

std::string HFTokenizer::token(int id) const {
  if (const auto found = added_by_id_.find(id); found != added_by_id_.end()) return added_[found->second].content;
  if (id < 0 || id >= bpe_.vocab_size())
    detail::fail("HFTokenizer::token", "id ", id, " is not a token of this tokenizer (0 … ", vocab_size_ - 1, ")");
  return bpe_.token_text(id);
}

}  // namespace attnlab
