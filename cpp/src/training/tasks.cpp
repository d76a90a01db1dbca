#include "attnlab/training/tasks.hpp"

#include <algorithm>
#include <array>

#include "attnlab/tensor/rng.hpp"
#include "tensor/checks.hpp"

namespace attnlab {

namespace {

constexpr int kDefaultLength = 6;
constexpr int kDigits = 10;
constexpr int kDefaultRepeatLength = 32;
constexpr int kLetters = 26;  // repeat's symbols: a … z, ids 1 … 26

// The sentence templates' word lists. Coreference: in "the X didn't cross the Y because it was too Z"
// the adjective decides what "it" is (tired: the animal; wide: the street).
struct Choices {
  std::vector<std::string> first, second, about_first, about_second;
  std::string verb;
};
const std::array<Choices, 2>& coreference_templates() {
  static const std::array<Choices, 2> templates{{
      {{"animal", "dog", "cat", "horse", "cow"}, {"street", "road", "river", "bridge"},
       {"tired", "scared", "sleepy", "lazy"}, {"wide", "busy", "long", "icy"}, "cross"},
      {{"animal", "dog", "cat", "horse", "cow"}, {"apple", "bread", "soup", "cake"},
       {"full", "sick", "sleepy", "tired"}, {"hot", "cold", "salty", "old"}, "eat"},
  }};
  return templates;
}
const std::vector<std::string> kSubjects{"movie", "film", "food", "service", "book", "song"};
const std::vector<std::string> kModifiers{"very", "really", "quite", "so", "not"};
const std::vector<std::string> kPositive{"good", "great", "fun", "lovely", "fine"};
const std::vector<std::string> kNegative{"bad", "awful", "boring", "dull", "poor"};

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& from) {
  return from[rng.next_u32() % from.size()];
}

// Which side of the train/test split an input sequence is on: a fifth of all sequences (by hash) are
// held out, so no held-out input is ever trained on.
bool held_out(const std::vector<int>& tokens) {
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a over the ids
  for (int id : tokens) hash = (hash ^ static_cast<std::uint64_t>(id)) * 1099511628211ULL;
  return hash % 5 == 0;
}

void add_unique(std::vector<std::string>& vocabulary, const std::vector<std::string>& words) {
  for (const std::string& w : words)
    if (std::find(vocabulary.begin(), vocabulary.end(), w) == vocabulary.end()) vocabulary.push_back(w);
}

}  // namespace

Task::Task(TaskKind kind, int length) : kind_(kind), vocabulary_{"<pad>"} {
  switch (kind) {
    case TaskKind::copy:
    case TaskKind::reverse:
    case TaskKind::sort:
      name_ = kind == TaskKind::copy ? "copy" : kind == TaskKind::reverse ? "reverse" : "sort";
      length_ = length == 0 ? kDefaultLength : length;
      if (length_ < 2 || length_ > 16) detail::fail("Task", "length must be in 2 … 16 (or 0 for 6), got ", length);
      seq_len_ = 2 * length_;
      vocabulary_.push_back("<sep>");
      for (int d = 0; d < kDigits; ++d) vocabulary_.push_back(std::to_string(d));
      return;
    case TaskKind::repeat:
      name_ = "repeat";
      length_ = length == 0 ? kDefaultRepeatLength : length;
      if (length_ < 2 * kRepeatMaxSegment || length_ > 64)
        detail::fail("Task", "repeat's length (its sequence length) must be in ", 2 * kRepeatMaxSegment,
                     " … 64 (or 0 for ", kDefaultRepeatLength, "), got ", length);
      seq_len_ = length_;
      for (int c = 0; c < kLetters; ++c) vocabulary_.push_back(std::string(1, static_cast<char>('a' + c)));
      return;
    case TaskKind::coreference:
      name_ = "coreference";
      seq_len_ = 11;
      num_classes_ = 2;
      class_names_ = {"first noun", "second noun"};
      add_unique(vocabulary_, {"the", "didn't", "because", "it", "was", "too"});
      for (const Choices& c : coreference_templates()) {
        add_unique(vocabulary_, {c.verb});
        for (const auto* list : {&c.first, &c.second, &c.about_first, &c.about_second}) add_unique(vocabulary_, *list);
      }
      return;
    case TaskKind::sentiment:
      name_ = "sentiment";
      seq_len_ = 5;
      num_classes_ = 2;
      class_names_ = {"negative", "positive"};
      add_unique(vocabulary_, {"the", "was"});
      for (const auto* list : {&kSubjects, &kModifiers, &kPositive, &kNegative}) add_unique(vocabulary_, *list);
      return;
  }
  detail::fail("Task", "unknown task kind");
}

int Task::token_id(std::string_view token) const {
  const auto at = std::find(vocabulary_.begin(), vocabulary_.end(), token);
  if (at == vocabulary_.end()) detail::fail("Task::token_id", "'", token, "' is not in the ", name_, " vocabulary");
  return static_cast<int>(at - vocabulary_.begin());
}

std::vector<int> Task::ids(const std::vector<std::string>& words) const {
  std::vector<int> out;
  out.reserve(words.size());
  for (const std::string& w : words) out.push_back(token_id(w));
  return out;
}

std::string Task::decode(const std::vector<int>& token_ids) const {
  std::string text;
  for (int id : token_ids) {
    if (id < 0 || id >= vocab_size())
      detail::fail("Task::decode", "id ", id, " is outside the ", name_, " vocabulary 0 … ", vocab_size() - 1);
    text += (text.empty() ? "" : " ") + vocabulary_[static_cast<std::size_t>(id)];
  }
  return text;
}

TaskExample Task::sequence_example(Rng& rng) const {
  // x₁ … x_L <sep> y₁ … y_L; the model reads all but the last token.
  std::vector<int> x(static_cast<std::size_t>(length_));
  for (int& symbol : x) symbol = token_id(std::to_string(rng.next_u32() % kDigits));
  std::vector<int> y = x;
  if (kind_ == TaskKind::reverse) std::reverse(y.begin(), y.end());
  // Digit ids are consecutive, in the digits' order: sorting ids sorts the digits.
  if (kind_ == TaskKind::sort) std::sort(y.begin(), y.end());
  std::vector<int> full = x;
  full.push_back(token_id("<sep>"));
  full.insert(full.end(), y.begin(), y.end());
  TaskExample example{{full.begin(), full.end() - 1}, std::vector<int>(static_cast<std::size_t>(seq_len_), kIgnoreTarget)};
  for (int t = length_; t < seq_len_; ++t) example.targets[static_cast<std::size_t>(t)] = full[static_cast<std::size_t>(t) + 1];
  return example;
}

TaskExample Task::repeat_example(Rng& rng) const {
  // r₁ … r_P s₁ … s_L s₁ … s_L: N letters (ids 1 … 26), the last 2L a segment and its repeat.
  const int segment = kRepeatMinSegment + static_cast<int>(rng.next_u32() % (kRepeatMaxSegment - kRepeatMinSegment + 1));
  const int start = seq_len_ - 2 * segment;  // P: where the first copy starts
  TaskExample example{std::vector<int>(static_cast<std::size_t>(seq_len_)),
                      std::vector<int>(static_cast<std::size_t>(seq_len_), kIgnoreTarget)};
  for (int t = 0; t < start + segment; ++t) example.tokens[static_cast<std::size_t>(t)] = 1 + static_cast<int>(rng.next_u32() % kLetters);
  for (int i = 0; i < segment; ++i) {
    const auto second = static_cast<std::size_t>(start + segment + i);
    example.tokens[second] = example.tokens[static_cast<std::size_t>(start + i)];
  }
  // The second copy's s_i predicts s_{i+1}, i.e. the token after it (its first L − 1 positions).
  for (int t = start + segment; t < seq_len_ - 1; ++t)
    example.targets[static_cast<std::size_t>(t)] = example.tokens[static_cast<std::size_t>(t) + 1];
  return example;
}

int repeat_segment_length(const TaskExample& example) {
  for (std::size_t t = 0; t < example.targets.size(); ++t)
    if (example.targets[t] != kIgnoreTarget) return static_cast<int>(example.targets.size() - t);
  detail::fail("repeat_segment_length", "the example has no target: it is not a repeat example");
}

TaskExample Task::coreference_example(Rng& rng) const {
  const Choices& c = coreference_templates()[rng.next_u32() % 2];
  const int label = static_cast<int>(rng.next_u32() % 2);  // 0: "it" is the first noun
  const std::string& adjective = pick(rng, label == 0 ? c.about_first : c.about_second);
  return {ids({"the", pick(rng, c.first), "didn't", c.verb, "the", pick(rng, c.second), "because", "it", "was", "too",
               adjective}),
          {label}};
}

TaskExample Task::sentiment_example(Rng& rng) const {
  const bool positive_word = rng.next_u32() % 2 == 0;
  const std::string& modifier = pick(rng, kModifiers);
  const bool positive = positive_word != (modifier == "not");  // "not good" is negative
  return {ids({"the", pick(rng, kSubjects), "was", modifier, pick(rng, positive_word ? kPositive : kNegative)}),
          {positive ? 1 : 0}};
}

TaskExample Task::draw(Rng& rng) const {
  if (kind_ == TaskKind::repeat) return repeat_example(rng);
  if (is_sequence()) return sequence_example(rng);
  return kind_ == TaskKind::coreference ? coreference_example(rng) : sentiment_example(rng);
}

std::vector<TaskExample> Task::examples(int count, std::uint64_t seed) const {
  if (count < 0) detail::fail("Task::examples", "count must be ≥ 0, got ", count);
  detail::require_within_budget("Task::examples", 2, count, seq_len_, "the examples' tokens and targets");
  Rng rng(seed);
  std::vector<TaskExample> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) out.push_back(draw(rng));
  return out;
}

Task::Split Task::split(int train_count, int test_count, std::uint64_t seed) const {
  if (train_count < 0 || test_count < 0)
    detail::fail("Task::split", "counts must be ≥ 0, got ", train_count, " and ", test_count);
  detail::require_within_budget("Task::split", 2, static_cast<double>(train_count) + test_count, seq_len_,
                                "the examples' tokens and targets");
  Split out;
  Rng rng(seed);
  // Draw until both sides are full; a fifth of the draws land on the held-out side.
  while (static_cast<int>(out.train.size()) < train_count || static_cast<int>(out.test.size()) < test_count) {
    TaskExample e = draw(rng);
    auto& side = held_out(e.tokens) ? out.test : out.train;
    const int wanted = &side == &out.test ? test_count : train_count;
    if (static_cast<int>(side.size()) < wanted) side.push_back(std::move(e));
  }
  return out;
}

}  // namespace attnlab
