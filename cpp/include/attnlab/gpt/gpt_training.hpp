// Training a GPT the way nanoGPT does: AdamW with weight decay on the matrices only, the gradient
// clipped by its global norm, and a cosine learning-rate schedule after a linear warm-up.
//
//   GPTTrainer trainer(model, {.max_lr = 3e-3, .warmup_steps = 100, .total_steps = 2000});
//   for (…) { float loss = trainer.step(ids, targets, batch); }
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <span>
#include <vector>

#include "attnlab/gpt/gpt.hpp"
#include "attnlab/training/optimizer.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// The global L2 norm of every gradient (summed in double).
double grad_norm(const std::vector<ParameterRef>& parameters);

// torch.nn.utils.clip_grad_norm_(parameters, max_norm): the global L2 norm of every gradient; if it
// exceeds max_norm, every gradient is multiplied by max_norm / (norm + 1e-6). Returns the norm before
// clipping. Error for max_norm ≤ 0 or non-finite gradients.
double clip_grad_norm(const std::vector<ParameterRef>& parameters, double max_norm);

// lr(step) for step = 0, 1, …: max_lr·(step + 1)/warmup_steps during the warm-up, then
// min_lr + ½(1 + cos(π·progress))·(max_lr − min_lr) with progress = (step − warmup)/(total − warmup),
// and min_lr from total_steps on.
struct CosineSchedule {
  double max_lr = 3e-3;
  double min_lr = 3e-4;
  int warmup_steps = 0;
  int total_steps = 1;
  double lr(std::int64_t step) const;
};

// The usual GPT groups: weight_decay for every matrix (wte, wpe, the Conv1D weights), 0 for biases and
// LayerNorm parameters.
std::vector<ParameterGroup> gpt_parameter_groups(GPT& model, double weight_decay);

struct GPTTrainerConfig {
  CosineSchedule schedule;
  double beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
  double weight_decay = 0.1;
  double clip_norm = 1.0;  // 0 = no clipping
  // GPTDropout's p for every step; step s draws its masks from Rng(dropout_seed, s), so a run resumed at
  // step s drops what the uninterrupted run dropped without keeping any generator state.
  float dropout = 0.0f;
  std::uint64_t dropout_seed = 0;
};

// What one training step did.
struct GPTStepResult {
  float loss = 0.0f;       // the batch's mean cross-entropy before the update
  double grad_norm = 0.0;  // the global gradient norm before clipping
  double lr = 0.0;         // the learning rate used
};

// Drives a GPT (which must outlive it) through training steps.
class GPTTrainer {
 public:
  GPTTrainer(GPT& model, const GPTTrainerConfig& config);

  // zero_grad → forward_backward → clip → lr from the schedule → AdamW step.
  // ids, targets [batch×T] as GPT::forward_backward takes them.
  GPTStepResult step(std::span<const int> ids, std::span<const int> targets, int batch);
  std::int64_t steps() const { return optimizer_.steps(); }
  const AdamW& optimizer() const { return optimizer_; }
  AdamW& optimizer() { return optimizer_; }
  const GPTTrainerConfig& config() const { return config_; }

 private:
  GPT& model_;
  GPTTrainerConfig config_;
  AdamW optimizer_;
};

}  // namespace attnlab
ATTNLAB_API_END
