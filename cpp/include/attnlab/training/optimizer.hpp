// Optimizers with PyTorch's update rules, step for step: torch.optim.SGD and torch.optim.Adam as
// PyTorch 1.13 computes them (float32 tensors, hyperparameters as Python floats), so a learner's
// training run can be checked against PyTorch's.
//
// An optimizer holds ParameterRef views (parameter.hpp) of the layers' parameters and gradients:
//   forward → loss → backward (gradients accumulate) → step() → zero_grad() → ...
// step() first checks every gradient: a NaN or ±Inf is an Error naming the parameter and nothing is
// changed. An update that would overflow float32 is an Error too, and also changes nothing (the
// step is computed twice: once to check, once to write).
#pragma once

#include "attnlab/tensor/api.hpp"

#include <cstdint>
#include <vector>

#include "attnlab/tensor/parameter.hpp"

ATTNLAB_API_BEGIN
namespace attnlab {

// torch.optim.SGD's options (lr is a separate, required argument, as in PyTorch).
struct SGDOptions {
  double momentum = 0.0;      // ≥ 0
  double dampening = 0.0;
  double weight_decay = 0.0;  // ≥ 0: L2 penalty, added to the gradient
  bool nesterov = false;      // needs momentum > 0 and dampening = 0
};

// Momentum buffers, one per parameter (empty: none yet, before the first step with momentum).
struct SGDState {
  std::vector<std::vector<float>> momentum_buffer;
};

class SGD {
 public:
  // Throws Error on an empty list, a parameter without value or gradient, the same values listed
  // twice, a negative or non-finite lr, momentum, weight_decay, a non-finite dampening, or nesterov
  // without momentum > 0 and dampening = 0.
  SGD(std::vector<ParameterRef> parameters, double lr, const SGDOptions& options = {});

  // For every parameter p with gradient g (PyTorch's _single_tensor_sgd):
  //   g ← g + weight_decay·p;  buf ← g (first step) or momentum·buf + (1 − dampening)·g;
  //   g ← nesterov ? g + momentum·buf : buf (when momentum ≠ 0);  p ← p − lr·g
  void step();
  void zero_grad() { attnlab::zero_grad(parameters_); }

  double lr() const { return lr_; }
  void set_lr(double lr);  // for schedules; same checks as the constructor
  const SGDOptions& options() const { return options_; }
  const std::vector<ParameterRef>& parameters() const { return parameters_; }
  SGDState state() const { return state_; }
  void load_state(const SGDState& state);  // sizes must match the parameters; values finite

 private:
  std::vector<ParameterRef> parameters_;
  double lr_;
  SGDOptions options_;
  SGDState state_;
};

// torch.optim.Adam's options and defaults.
struct AdamOptions {
  double lr = 1e-3;           // ≥ 0
  double beta1 = 0.9;         // in [0, 1)
  double beta2 = 0.999;       // in [0, 1)
  double eps = 1e-8;          // ≥ 0
  double weight_decay = 0.0;  // ≥ 0: L2 penalty added to the gradient (Adam, not AdamW)
  bool amsgrad = false;
};

// The step count and moment estimates, one vector per parameter (max_exp_avg_sq only with amsgrad).
struct AdamState {
  std::int64_t step = 0;
  std::vector<std::vector<float>> exp_avg, exp_avg_sq, max_exp_avg_sq;
};

class Adam {
 public:
  // Throws Error on an empty list, a parameter without value or gradient, the same values listed
  // twice, or a non-finite or out-of-range lr, beta1, beta2, eps or weight_decay.
  explicit Adam(std::vector<ParameterRef> parameters, const AdamOptions& options = {});

  // For every parameter p with gradient g, at step t = 1, 2, … (PyTorch 1.13's _single_tensor_adam):
  //   g ← g + weight_decay·p;  m ← β1·m + (1 − β1)·g;  v ← β2·v + (1 − β2)·g²
  //   (amsgrad: v_max ← max(v_max, v), used for v below)
  //   p ← p − lr/(1 − β1ᵗ) · m / (√v / √(1 − β2ᵗ) + eps)
  void step();
  void zero_grad() { attnlab::zero_grad(parameters_); }

  double lr() const { return options_.lr; }
  void set_lr(double lr);  // for schedules; same checks as the constructor
  const AdamOptions& options() const { return options_; }
  const std::vector<ParameterRef>& parameters() const { return parameters_; }
  std::int64_t steps() const { return state_.step; }
  AdamState state() const { return state_; }
  // Sizes must match the parameters; step ≥ 0, moments finite, second moments ≥ 0.
  void load_state(const AdamState& state);

 private:
  friend class AdamW;
  std::vector<ParameterRef> parameters_;
  AdamOptions options_;
  AdamState state_;
  // AdamW: per parameter, the decoupled weight decay λ (p ← p·(1 − lr·λ) before the update); empty for Adam.
  std::vector<double> decoupled_decay_;
};

// torch.optim.AdamW's options and defaults; the weight decay is given per parameter group.
struct AdamWOptions {
  double lr = 1e-3;      // ≥ 0
  double beta1 = 0.9;    // in [0, 1)
  double beta2 = 0.999;  // in [0, 1)
  double eps = 1e-8;     // ≥ 0
};

// Parameters that share a weight decay, as one of torch's param groups. GPTs usually decay the
// matrices (embeddings and projections) and not the biases and norm parameters.
struct ParameterGroup {
  std::vector<ParameterRef> parameters;
  double weight_decay = 0.01;  // ≥ 0 (torch.optim.AdamW's default)
};

// torch.optim.AdamW (Loshchilov & Hutter's decoupled weight decay), as PyTorch 1.13's
// _single_tensor_adamw computes it: for every parameter p of a group with weight decay λ,
//   p ← p·(1 − lr·λ), then Adam's update above (with no L2 term added to the gradient).
class AdamW {
 public:
  // Throws Error as Adam does, and for a negative or non-finite weight_decay (naming the group).
  explicit AdamW(std::vector<ParameterGroup> groups, const AdamWOptions& options = {});

  void step() { adam_.step(); }
  void zero_grad() { adam_.zero_grad(); }
  double lr() const { return adam_.lr(); }
  void set_lr(double lr) { adam_.set_lr(lr); }
  std::int64_t steps() const { return adam_.steps(); }
  const std::vector<ParameterRef>& parameters() const { return adam_.parameters(); }  // groups in order
  AdamState state() const { return adam_.state(); }
  void load_state(const AdamState& state) { adam_.load_state(state); }

 private:
  static Adam make_adam(std::vector<ParameterGroup>& groups, const AdamWOptions& options);
  Adam adam_;
};

}  // namespace attnlab
ATTNLAB_API_END
