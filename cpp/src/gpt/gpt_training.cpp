#include "attnlab/gpt/gpt_training.hpp"

#include <cmath>
#include <numbers>

#include "tensor/checks.hpp"

namespace attnlab {

double grad_norm(const std::vector<ParameterRef>& parameters) {
  // every gradient [size] → their joint L2 norm, summed in double
  double sum_of_squares = 0.0;
  for (const ParameterRef& p : parameters)
    for (Eigen::Index j = 0; j < p.size; ++j) sum_of_squares += static_cast<double>(p.grad[j]) * p.grad[j];
  return std::sqrt(sum_of_squares);
}

double clip_grad_norm(const std::vector<ParameterRef>& parameters, double max_norm) {
  // every gradient [size] → their joint L2 norm; scaled in place when above max_norm
  const char* fn = "clip_grad_norm";
  if (!(max_norm > 0.0) || !std::isfinite(max_norm)) detail::fail(fn, "max_norm must be positive and finite, got ", max_norm);
  const double norm = grad_norm(parameters);
  if (!std::isfinite(norm)) detail::fail(fn, "the gradients are not finite (norm ", norm, ")");
  // PyTorch: clip_coef = max_norm / (total_norm + 1e-6), applied (as a float32 factor) only when < 1.
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1.0)
    for (const ParameterRef& p : parameters)
      for (Eigen::Index j = 0; j < p.size; ++j) p.grad[j] *= static_cast<float>(coef);
  return norm;
}

double CosineSchedule::lr(std::int64_t step) const {
  if (step < warmup_steps) return max_lr * static_cast<double>(step + 1) / warmup_steps;
  if (step >= total_steps) return min_lr;
  const double progress = static_cast<double>(step - warmup_steps) / (total_steps - warmup_steps);
  return min_lr + 0.5 * (1.0 + std::cos(std::numbers::pi * progress)) * (max_lr - min_lr);
}

std::vector<ParameterGroup> gpt_parameter_groups(GPT& model, double weight_decay) {
  ParameterGroup decayed{{}, weight_decay}, not_decayed{{}, 0.0};
  for (ParameterRef& p : model.parameters()) (p.shape.size() == 2 ? decayed : not_decayed).parameters.push_back(p);
  return {decayed, not_decayed};
}

namespace {
const GPTTrainerConfig& checked(const GPTTrainerConfig& c) {
  const char* fn = "GPTTrainer";
  const CosineSchedule& s = c.schedule;
  if (!(s.max_lr >= 0.0) || !std::isfinite(s.max_lr)) detail::fail(fn, "schedule.max_lr must be finite and ≥ 0, got ", s.max_lr);
  if (!(s.min_lr >= 0.0) || !(s.min_lr <= s.max_lr))
    detail::fail(fn, "schedule.min_lr must be in [0, max_lr = ", s.max_lr, "], got ", s.min_lr);
  if (s.warmup_steps < 0 || s.total_steps <= s.warmup_steps)
    detail::fail(fn, "schedule needs 0 ≤ warmup_steps < total_steps, got warmup_steps ", s.warmup_steps,
                 " and total_steps ", s.total_steps);
  if (!(c.clip_norm >= 0.0) || !std::isfinite(c.clip_norm))
    detail::fail(fn, "clip_norm must be finite and ≥ 0 (0 = no clipping), got ", c.clip_norm);
  detail::require_probability(fn, "dropout", c.dropout);
  return c;
}
}  // namespace

GPTTrainer::GPTTrainer(GPT& model, const GPTTrainerConfig& config)
    : model_(model),
      config_(checked(config)),
      optimizer_(gpt_parameter_groups(model, config.weight_decay),
                 {.lr = config.schedule.lr(0), .beta1 = config.beta1, .beta2 = config.beta2, .eps = config.eps}) {}

GPTStepResult GPTTrainer::step(std::span<const int> ids, std::span<const int> targets, int batch) {
  GPTStepResult result;
  model_.zero_grad();
  const GPTDropout dropout{config_.dropout, config_.dropout_seed, static_cast<std::uint64_t>(optimizer_.steps())};
  result.loss = model_.forward_backward(ids, targets, batch, dropout);
  const auto& parameters = optimizer_.parameters();
  result.grad_norm = config_.clip_norm > 0.0 ? clip_grad_norm(parameters, config_.clip_norm) : grad_norm(parameters);
  result.lr = config_.schedule.lr(optimizer_.steps());
  optimizer_.set_lr(result.lr);
  optimizer_.step();
  model_.weights_changed();
  return result;
}

}  // namespace attnlab
