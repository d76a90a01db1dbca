// Toy tasks for training a tiny transformer while the learner watches, generated in code from a seed
// (no downloads), each with a vocabulary of a few dozen tokens.
//
// Sequence tasks (copy, reverse, sort) are next-token prediction under a causal mask. An example is
//   x₁ … x_L <sep> y₁ … y_L   (the model reads all but the last token)
// and only the positions from <sep> on carry a target: position L + i predicts y_{i+1}. A head that
// solves copy attends from y_i to x_{i+1} (a diagonal, shifted by L); reverse gives the anti-diagonal.
// Repeat (the induction-head lesson) is N random letters whose last 2L are a segment S and S again,
//   r₁ … r_P  s₁ … s_L  s₁ … s_L      (P = N − 2L, L drawn per example from 4 … 12)
// and only the second copy's positions that can be predicted carry a target: the position of the
// second s_i (i < L) predicts s_{i+1}. L varies so that no fixed offset solves it: the model must find
// the earlier s_i and read the token after it — an induction head.
// Classification tasks (coreference, sentiment) label a whole sentence: which noun "it" refers to in
// "the animal didn't cross the street because it was too tired", and whether a review is positive.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

ATTNLAB_API_BEGIN
namespace attnlab {

class Rng;

enum class TaskKind { copy, reverse, sort, coreference, sentiment, repeat };

inline constexpr int kIgnoreTarget = -100;  // no loss at this position (PyTorch's ignore_index)

struct TaskExample {
  std::vector<int> tokens;   // the model's input ids, seq_len of them
  // Sequence tasks: one target id per input position (kIgnoreTarget where there is no loss).
  // Classification tasks: a single class id.
  std::vector<int> targets;
};

// Repeat's segment lengths, and the segment length of one of its examples (read off its targets:
// the first target is at position N − L). Error if the example has no target.
inline constexpr int kRepeatMinSegment = 4, kRepeatMaxSegment = 12;
int repeat_segment_length(const TaskExample& example);

class Task {
 public:
  // length: the number of symbols to copy / reverse / sort (2 … 16; 0 = the default 6); for repeat,
  // the sequence length N (24 … 64; 0 = the default 32). Ignored by the classification tasks, whose
  // sentences have a fixed length.
  explicit Task(TaskKind kind, int length = 0);

  TaskKind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  bool is_sequence() const { return num_classes_ == 0; }
  int seq_len() const { return seq_len_; }          // input tokens per example
  int vocab_size() const { return static_cast<int>(vocabulary_.size()); }
  int num_classes() const { return num_classes_; }  // 0 for sequence tasks (targets are token ids)
  const std::vector<std::string>& vocabulary() const { return vocabulary_; }  // id → token; 0 is <pad>
  const std::vector<std::string>& class_names() const { return class_names_; }
  int token_id(std::string_view token) const;       // throws Error if the token is not in the vocabulary
  std::string decode(const std::vector<int>& ids) const;

  // `count` examples drawn from Rng(seed): the same examples for the same seed, everywhere.
  std::vector<TaskExample> examples(int count, std::uint64_t seed) const;
  // Training and held-out examples with no input sequence in both (as far as the task has distinct
  // sequences: the classification tasks have a few hundred sentences, all of them valid examples).
  struct Split {
    std::vector<TaskExample> train, test;
  };
  Split split(int train_count, int test_count, std::uint64_t seed) const;

 private:
  TaskExample draw(Rng& rng) const;  // one example of this task
  TaskExample sequence_example(Rng& rng) const;
  TaskExample repeat_example(Rng& rng) const;
  TaskExample coreference_example(Rng& rng) const;
  TaskExample sentiment_example(Rng& rng) const;
  std::vector<int> ids(const std::vector<std::string>& words) const;

  TaskKind kind_;
  std::string name_;
  int length_ = 0;
  int seq_len_ = 0;
  int num_classes_ = 0;
  std::vector<std::string> vocabulary_;
  std::vector<std::string> class_names_;
};

}  // namespace attnlab
ATTNLAB_API_END
