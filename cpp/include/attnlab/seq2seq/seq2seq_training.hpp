// Training an encoder–decoder: AdamW over a batch of sentence pairs, with the learning-rate schedule
// of attnlab's translator (linear warm-up, then a cosine down to min_lr). The batch's loss is the mean
// over all its target tokens, as PyTorch's over a padded batch with ignore_index; each pair runs on its
// own (no padding) and their gradients add up.
#pragma once

#include "attnlab/tensor/api.hpp"

#include <vector>

#include "attnlab/seq2seq/seq2seq.hpp"
#include "attnlab/training/optimizer.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// One training pair: source ids, the target the decoder reads (BOS first), what each position predicts.
struct Seq2SeqExample {
  std::vector<int> source, target, targets;
};

struct Seq2SeqTrainerConfig {
  double max_lr = 1e-3, min_lr = 1e-4;
  int warmup_steps = 200;
  int total_steps = 3000;      // where the cosine reaches min_lr (it stays there after)
  double weight_decay = 0.01;  // on the matrices (embeddings and projections), not on biases and norms
  double beta1 = 0.9, beta2 = 0.98, eps = 1e-9;
};

class Seq2SeqTrainer {
 public:
  // Holds `model` by reference: it must outlive the trainer.
  Seq2SeqTrainer(Seq2SeqTransformer& model, const Seq2SeqTrainerConfig& config = {});

  // One AdamW step on `batch` → its mean loss per target token. Error on an empty batch or bad ids
  // (named by Seq2SeqTransformer::forward); then nothing has changed.
  double step(const std::vector<Seq2SeqExample>& batch);
  double learning_rate(int step) const;  // the schedule at a step (0-based)
  int steps() const { return steps_; }

 private:
  static std::vector<ParameterGroup> groups(Seq2SeqTransformer& model, double weight_decay);
  Seq2SeqTransformer& model_;
  Seq2SeqTrainerConfig config_;
  AdamW adamw_;
  int steps_ = 0;
};

}  // namespace attnlab
ATTNLAB_API_END
