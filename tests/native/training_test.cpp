// Training the toy tasks from a fixed seed: held-out accuracy after a stated number of Adam steps
// (batches of 16 drawn from Task::split, so no held-out input is ever trained on).
#include <gtest/gtest.h>

#include <cmath>

#include "attnlab/attnlab.hpp"
#include "expect_error.hpp"

namespace attnlab {
namespace {

constexpr int kBatch = 16;

// Trains `steps` steps and returns the evaluation on 300 held-out examples.
Evaluation train(TaskKind kind, int steps, double lr) {
  const Task task(kind);
  const Task::Split split = task.split(steps * kBatch, 300, 1);
  TaskTrainer trainer(task, {.lr = lr, .seed = 3});
  for (int s = 0; s < steps; ++s) {
    const std::vector<TaskExample> batch(split.train.begin() + s * kBatch, split.train.begin() + (s + 1) * kBatch);
    EXPECT_TRUE(std::isfinite(trainer.train_step(batch)));
  }
  EXPECT_EQ(trainer.steps(), steps);
  return trainer.evaluate(split.test);
}

TEST(Training, CopyReaches95PercentHeldOutIn150Steps) {
  const Evaluation e = train(TaskKind::copy, 150, 3e-3);
  EXPECT_GE(e.accuracy, 0.95f);
  EXPECT_GE(e.sequence_accuracy, 0.95f);
}

TEST(Training, ReverseReaches95PercentHeldOutIn150Steps) {
  const Evaluation e = train(TaskKind::reverse, 150, 3e-3);
  EXPECT_GE(e.accuracy, 0.95f);
  EXPECT_GE(e.sequence_accuracy, 0.95f);
}

TEST(Training, SortReaches95PercentHeldOutIn600Steps) {
  // Token accuracy: each of the six sorted positions counts once.
  EXPECT_GE(train(TaskKind::sort, 600, 3e-3).accuracy, 0.95f);
}

TEST(Training, TheClassifierLearnsWhatItRefersToAndSentimentAtTheTutorialsLearningRate) {
  EXPECT_GE(train(TaskKind::coreference, 200, 1e-3).accuracy, 0.95f);
  EXPECT_GE(train(TaskKind::sentiment, 500, 1e-3).accuracy, 0.95f);
}

TEST(Training, CopyAttendsToTheSymbolBeingCopied) {
  // After training, some head of the copy model puts most of its weight, at each output position
  // t ≥ L (predicting x_{t−L+1}), on position t − L: the diagonal the lesson shows.
  const Task task(TaskKind::copy);
  const Task::Split split = task.split(150 * kBatch, 1, 1);
  TaskTrainer trainer(task, {.lr = 3e-3, .seed = 3});
  for (int s = 0; s < 150; ++s)
    trainer.train_step({split.train.begin() + s * kBatch, split.train.begin() + (s + 1) * kBatch});
  const ModelOutput out = trainer.inspect(split.test.front());
  const int length = task.seq_len() / 2;
  float best = 0.0f;
  for (const Matrix& head : out.attention[0]) {
    float on_diagonal = 0.0f;
    for (int t = length; t < task.seq_len(); ++t) on_diagonal += head(t, t - length);
    best = std::max(best, on_diagonal / static_cast<float>(length));
  }
  EXPECT_GT(best, 0.8f);
}

TEST(Training, TheTutorialsSentimentClassifierTakesOneAdamStep) {
  // embedding (vocab 5000, d_model 128) → MHA (4 heads) → add & norm → mean pool → Linear to 2 classes:
  // 5000·128 + (3·128·128 + 3·128 + 128·128 + 128) + 2·128 + (128·2 + 2) = 706,562 parameters.
  AttentionClassifier model({.vocab_size = 5000, .d_model = 128, .num_heads = 4, .num_classes = 2, .seed = 1});
  EXPECT_EQ(model.parameter_count(), 706562);
  Adam adam(model.parameters(), {.lr = 1e-3});
  // 32 random sequences of length 50, random labels.
  Rng rng(2);
  std::vector<std::vector<int>> batch(32, std::vector<int>(50));
  std::vector<int> labels(32);
  for (auto& sequence : batch)
    for (int& id : sequence) id = static_cast<int>(rng.next_u32() % 5000);
  for (int& label : labels) label = static_cast<int>(rng.next_u32() % 2);
  const auto mean_loss = [&](bool backward) {
    double loss = 0.0;
    for (std::size_t i = 0; i < batch.size(); ++i)
      loss += backward ? model.accumulate_gradients(batch[i], labels[i], 1.0f / 32).loss : model.forward(batch[i], labels[i]).loss;
    return loss / 32.0;
  };
  model.zero_grad();
  const double before = mean_loss(true);
  EXPECT_NEAR(before, std::log(2.0), 0.3);  // an untrained two-class model: about ln 2
  adam.step();
  EXPECT_LT(mean_loss(false), before);  // one step on this batch lowers its loss
}

TEST(Training, TheSameSeedTrainsTheSameWay) {
  const Task task(TaskKind::reverse);
  const std::vector<TaskExample> batch = task.examples(kBatch, 4);
  TaskTrainer a(task, {.seed = 9}), b(task, {.seed = 9});
  for (int s = 0; s < 3; ++s) EXPECT_EQ(a.train_step(batch), b.train_step(batch));
}

TEST(Training, RestoringASnapshotReplaysTrainingExactly) {
  const Task task(TaskKind::copy);
  const std::vector<TaskExample> a = task.examples(kBatch, 1), b = task.examples(kBatch, 2);
  TaskTrainer trainer(task, {.seed = 5});
  trainer.train_step(a);
  const TrainerSnapshot saved = trainer.snapshot();
  const float first = trainer.train_step(b);
  trainer.train_step(a);
  trainer.restore(saved);
  EXPECT_EQ(trainer.steps(), 1);
  EXPECT_EQ(trainer.train_step(b), first);  // same parameters and Adam moments: the same step
  TaskTrainer other(Task(TaskKind::sentiment), {});
  EXPECT_THROW(other.restore(saved), Error);
}

TEST(Training, BadBatchesAreErrors) {
  const Task task(TaskKind::copy);
  TaskTrainer trainer(task, {});
  TaskExample e = task.examples(1, 1).front();
  e.tokens[0] = 99;
  expect_error([&] { trainer.train_step({e}); }, "CausalTransformer: tokens[0] = 99 is outside the vocabulary 0 … 11");
  e = task.examples(1, 1).front();
  e.targets.pop_back();
  expect_error([&] { trainer.train_step({e}); }, "CausalTransformer: targets has 11 ids but tokens has 12");
  expect_error([&] { trainer.train_step({}); }, "TaskTrainer::train_step: batch is empty");
  const Task sentiment(TaskKind::sentiment);
  TaskTrainer classifier(sentiment, {});
  e = sentiment.examples(1, 1).front();
  e.targets = {2};
  expect_error([&] { classifier.train_step({e}); }, "AttentionClassifier: target 2 is not a class 0 … 1");
  EXPECT_EQ(trainer.steps(), 0);  // nothing was stepped
}

}  // namespace
}  // namespace attnlab
