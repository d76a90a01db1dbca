// Training a small model on a toy task (tasks.hpp): the model that fits the task (a CausalTransformer
// for copy/reverse/sort, the tutorials' AttentionClassifier for coreference/sentiment) with Adam, in
// steps over batches — what the "Watch it learn" lesson drives, natively or in wasm.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <memory>
#include <vector>

#include "attnlab/training/models.hpp"
#include "attnlab/training/optimizer.hpp"
#include "attnlab/training/tasks.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

struct TrainerConfig {
  int d_model = 32;
  int num_heads = 2;
  int num_layers = 1;  // sequence tasks only (the classifier has one attention layer)
  int d_ff = 64;       // sequence tasks only; 0 = attention-only layers
  bool positions = true;  // sequence tasks only; false = no position embedding
  double lr = 1e-3;    // Adam's learning rate (the tutorials' 1e-3)
  std::uint64_t seed = 0;
};

struct Evaluation {
  float loss = 0.0f;               // mean cross-entropy over the examples
  float accuracy = 0.0f;           // scored positions (or sentences) whose argmax is the target
  float sequence_accuracy = 0.0f;  // examples with every scored position right
};

// Everything training changes: the parameters (in parameters() order) and Adam's state.
struct TrainerSnapshot {
  std::vector<std::vector<float>> parameters;
  AdamState adam;
  int steps = 0;
};

class TaskTrainer {
 public:
  TaskTrainer(const Task& task, const TrainerConfig& config);

  // One Adam step on the batch's mean loss (zero_grad, forward + backward per example, step); returns
  // that loss. A non-finite loss is an Error and leaves the parameters as they were.
  float train_step(const std::vector<TaskExample>& batch);
  Evaluation evaluate(const std::vector<TaskExample>& examples);
  // The model's view of one example: logits, loss, and every head's attention weights.
  ModelOutput inspect(const TaskExample& example);

  TrainerSnapshot snapshot() const;
  // Back to a snapshot of a trainer of the same task and sizes (Error otherwise, nothing changed).
  void restore(const TrainerSnapshot& snapshot);

  const Task& task() const { return task_; }
  int steps() const { return steps_; }
  std::int64_t parameter_count() const;

 private:
  ModelOutput run(const TaskExample& example, float scale, bool backward);

  Task task_;
  std::unique_ptr<CausalTransformer> sequence_model_;
  std::unique_ptr<AttentionClassifier> classifier_;
  std::unique_ptr<Adam> adam_;
  int steps_ = 0;
};

}  // namespace attnlab
ATTNLAB_API_END
