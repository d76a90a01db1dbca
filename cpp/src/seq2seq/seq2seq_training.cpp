#include "attnlab/seq2seq/seq2seq_training.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tensor/checks.hpp"

namespace attnlab {

std::vector<ParameterGroup> Seq2SeqTrainer::groups(Seq2SeqTransformer& model, double weight_decay) {
  std::vector<ParameterRef> decayed, kept;
  for (ParameterRef& p : model.parameters()) (p.shape.size() == 2 ? decayed : kept).push_back(p);
  return {{decayed, weight_decay}, {kept, 0.0}};
}

Seq2SeqTrainer::Seq2SeqTrainer(Seq2SeqTransformer& model, const Seq2SeqTrainerConfig& config)
    : model_(model),
      config_(config),
      adamw_(groups(model, config.weight_decay), {.lr = config.max_lr, .beta1 = config.beta1, .beta2 = config.beta2, .eps = config.eps}) {
  detail::require_positive("Seq2SeqTrainer", "total_steps", config.total_steps);
  if (config.warmup_steps < 0) detail::fail("Seq2SeqTrainer", "warmup_steps must be ≥ 0, got ", config.warmup_steps);
}

double Seq2SeqTrainer::learning_rate(int step) const {
  const Seq2SeqTrainerConfig& c = config_;
  if (step < c.warmup_steps) return c.max_lr * (step + 1) / c.warmup_steps;
  const double progress = std::min(1.0, static_cast<double>(step - c.warmup_steps) / std::max(1, c.total_steps - c.warmup_steps));
  return c.min_lr + 0.5 * (c.max_lr - c.min_lr) * (1 + std::cos(std::numbers::pi * progress));
}

double Seq2SeqTrainer::step(const std::vector<Seq2SeqExample>& batch) {
  if (batch.empty()) detail::fail("Seq2SeqTrainer::step", "the batch is empty");
  int total = 0;
  for (const Seq2SeqExample& e : batch) total += static_cast<int>(e.targets.size());
  adamw_.set_lr(learning_rate(steps_));
  adamw_.zero_grad();
  double loss = 0.0;
  try {
    for (const Seq2SeqExample& e : batch) {
      // Each pair's mean loss weighs by its share of the batch's target tokens.
      const float share = static_cast<float>(e.targets.size()) / static_cast<float>(total);
      loss += share * model_.accumulate_gradients(e.source, e.target, e.targets, share).loss;
    }
  } catch (...) {
    adamw_.zero_grad();  // a refused pair leaves no partial gradient behind
    throw;
  }
  adamw_.step();
  ++steps_;
  return loss;
}

}  // namespace attnlab
