// The toy training tasks: examples written out by hand, determinism from the seed, and a held-out
// split that never repeats a training input.
#include <gtest/gtest.h>

#include <set>

#include "attnlab/attnlab.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

// The digits of a sequence example, read back as text.
std::string text(const Task& task, const std::vector<int>& ids) { return task.decode(ids); }

TEST(Tasks, CopyReadsTheSymbolsThenPredictsThemAgain) {
  const Task copy(TaskKind::copy, 4);
  EXPECT_EQ(copy.seq_len(), 8);
  EXPECT_EQ(copy.vocab_size(), 12);  // <pad>, <sep>, 0 … 9
  const TaskExample e = copy.examples(1, 7).front();
  ASSERT_EQ(e.tokens.size(), 8u);
  ASSERT_EQ(e.targets.size(), 8u);
  // x₁ x₂ x₃ x₄ <sep> y₁ y₂ y₃ (the model never reads y₄): no loss before <sep>, then yᵢ = xᵢ.
  EXPECT_EQ(e.tokens[4], copy.token_id("<sep>"));
  for (int t = 0; t < 4; ++t) EXPECT_EQ(e.targets[static_cast<std::size_t>(t)], kIgnoreTarget);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(e.targets[static_cast<std::size_t>(4 + i)], e.tokens[static_cast<std::size_t>(i)]);
  for (int i = 1; i < 4; ++i) EXPECT_EQ(e.tokens[static_cast<std::size_t>(4 + i)], e.tokens[static_cast<std::size_t>(i - 1)]);
}

TEST(Tasks, ReverseAndSortTargets) {
  const Task reverse(TaskKind::reverse, 3), sort(TaskKind::sort, 5);
  const TaskExample r = reverse.examples(1, 11).front();
  // x₁ x₂ x₃ <sep> x₃ x₂ → targets from <sep>: x₃ x₂ x₁.
  EXPECT_EQ(r.targets[3], r.tokens[2]);
  EXPECT_EQ(r.targets[4], r.tokens[1]);
  EXPECT_EQ(r.targets[5], r.tokens[0]);
  for (const TaskExample& s : sort.examples(20, 3)) {
    std::vector<int> x(s.tokens.begin(), s.tokens.begin() + 5), y(s.targets.begin() + 5, s.targets.end());
    std::sort(x.begin(), x.end());
    EXPECT_EQ(y, x) << text(sort, s.tokens);
  }
}

TEST(Tasks, TheAdjectiveDecidesWhatItRefersTo) {
  const Task task(TaskKind::coreference);
  EXPECT_EQ(task.num_classes(), 2);
  EXPECT_EQ(task.class_names()[0], "first noun");
  int seen[2] = {0, 0};
  for (const TaskExample& e : task.examples(200, 5)) {
    const std::string sentence = text(task, e.tokens);
    ASSERT_EQ(e.tokens.size(), 11u) << sentence;
    ASSERT_EQ(e.targets.size(), 1u);
    ++seen[e.targets[0]];
    const std::string adjective = task.vocabulary()[static_cast<std::size_t>(e.tokens.back())];
    // tired/scared/sleepy/lazy/full/sick describe the animal; wide/busy/long/icy/hot/cold/salty/old the other noun.
    const bool animal = std::set<std::string>{"tired", "scared", "sleepy", "lazy", "full", "sick"}.count(adjective) > 0;
    EXPECT_EQ(e.targets[0], animal ? 0 : 1) << sentence;
    EXPECT_EQ(text(task, {e.tokens[6], e.tokens[7]}), "because it");
  }
  EXPECT_GT(seen[0], 60);
  EXPECT_GT(seen[1], 60);
}

TEST(Tasks, NotFlipsTheSentiment) {
  const Task task(TaskKind::sentiment);
  for (const TaskExample& e : task.examples(200, 9)) {
    const std::string modifier = task.vocabulary()[static_cast<std::size_t>(e.tokens[3])];
    const std::string adjective = task.vocabulary()[static_cast<std::size_t>(e.tokens[4])];
    const bool good_word = std::set<std::string>{"good", "great", "fun", "lovely", "fine"}.count(adjective) > 0;
    EXPECT_EQ(e.targets[0], (good_word != (modifier == "not")) ? 1 : 0) << text(task, e.tokens);
  }
  const std::vector<int> ids = {task.token_id("the"), task.token_id("film"), task.token_id("was"), task.token_id("not"),
                                task.token_id("good")};
  EXPECT_EQ(text(task, ids), "the film was not good");
}

TEST(Tasks, TheSameSeedGivesTheSameExamples) {
  const Task task(TaskKind::reverse);
  const auto a = task.examples(50, 123), b = task.examples(50, 123), c = task.examples(50, 124);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].tokens, b[i].tokens);
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) differs |= a[i].tokens != c[i].tokens;
  EXPECT_TRUE(differs);
}

TEST(Tasks, HeldOutInputsAreNeverTrainedOn) {
  for (TaskKind kind : {TaskKind::copy, TaskKind::sort, TaskKind::coreference, TaskKind::sentiment}) {
    const Task task(kind);
    const Task::Split split = task.split(2000, 300, 42);
    ASSERT_EQ(split.train.size(), 2000u);
    ASSERT_EQ(split.test.size(), 300u);
    std::set<std::vector<int>> trained;
    for (const TaskExample& e : split.train) trained.insert(e.tokens);
    for (const TaskExample& e : split.test) EXPECT_EQ(trained.count(e.tokens), 0u) << task.name() << ": " << text(task, e.tokens);
  }
}

TEST(Tasks, BadArgumentsAreErrors) {
  expect_error([] { Task(TaskKind::copy, 1); }, "Task: length must be in 2 … 16 (or 0 for 6), got 1");
  expect_error([] { Task(TaskKind::sort).token_id("cat"); }, "Task::token_id: 'cat' is not in the sort vocabulary");
  expect_error([] { Task(TaskKind::copy).decode({12}); }, "Task::decode: id 12 is outside the copy vocabulary 0 … 11");
  expect_error([] { Task(TaskKind::copy).examples(-1, 0); }, "Task::examples: count must be ≥ 0, got -1");
  EXPECT_THROW(Task(TaskKind::copy).examples(2000000000, 0), Error);  // over the memory budget
}

}  // namespace
}  // namespace attnlab
