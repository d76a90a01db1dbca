// The Embind face of training (attnlab/training.hpp): one handle per model, driven by the JS
// TaskModel (web/lib/task-model.js). Like the other bindings, each method returns undefined (or a null
// handle) on error and keeps the message for takeLastError().
#pragma once

#include <emscripten/val.h>

#include "attnlab/training/training.hpp"

namespace attnlab::wasm {

using emscripten::val;

class TaskModelHandle {
 public:
  // config: { task: 'copy'|'reverse'|'sort'|'coreference'|'sentiment'|'repeat', length, dModel, numHeads,
  //           layers, dFF (0 = attention only), positions (false = no position embedding), lr, seed }
  static TaskModelHandle* create(const val& config);
  val info() const;  // { task, seqLen, vocabulary, classNames, sequence, parameterCount }
  val examples(int count, double seed) const;            // [{ tokens, targets }]
  val split(int train_count, int test_count, double seed) const;  // { train, test }
  val train_step(const val& batch);                      // the batch's mean loss
  val evaluate(const val& examples);                     // { loss, accuracy, sequenceAccuracy }
  val inspect(const val& example);                       // { logits, loss, attention: Matrix[layer][head] }
  // Repeat examples → { previousToken, induction }: Float32Array [layers·heads] each, layer-major,
  // the mean over the examples (attnlab/training/induction_scores.hpp).
  val induction_scores(const val& examples);
  val snapshot() const;                                  // { parameters, adamStep, expAvg, expAvgSq, steps }
  val restore(const val& snapshot);
  int steps() const { return trainer_.steps(); }

 private:
  TaskModelHandle(const Task& task, const TrainerConfig& config) : trainer_(task, config) {}
  TaskTrainer trainer_;
};

}  // namespace attnlab::wasm
