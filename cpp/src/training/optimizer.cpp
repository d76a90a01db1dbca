#include "attnlab/training/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "tensor/checks.hpp"

namespace attnlab {

namespace {

// "3×5" or "3": the parameter's PyTorch shape, for messages.
std::string shape_text(const ParameterRef& p) {
  std::string text;
  for (std::size_t i = 0; i < p.shape.size(); ++i) text += (i ? "×" : "") + std::to_string(p.shape[i]);
  return text;
}

// "linear1.weight (3×5) … at (1, 2)": entry j of p located the way the learner indexes it.
std::string located(const ParameterRef& p, Eigen::Index j) {
  std::string text = p.name + " (" + shape_text(p) + ") ";
  if (p.shape.size() == 2 && p.shape[1] > 0)
    return text + "at (" + std::to_string(j / p.shape[1]) + ", " + std::to_string(j % p.shape[1]) + ")";
  return text + "at [" + std::to_string(j) + "]";
}

void require_hyperparameter(std::string_view fn, std::string_view name, double value, double low,
                            bool below_one = false) {
  if (!std::isfinite(value) || value < low || (below_one && value >= 1.0))
    detail::fail(fn, name, below_one ? " must be in [0, 1), got " : " must be finite and ≥ 0, got ", value);
}

// The list torch.optim accepts: not empty, every parameter with both buffers, none listed twice.
void check_parameters(std::string_view fn, const std::vector<ParameterRef>& parameters) {
  if (parameters.empty()) detail::fail(fn, "the parameter list is empty");
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const ParameterRef& p = parameters[i];
    Eigen::Index product = 1;
    for (Eigen::Index extent : p.shape) product *= extent;
    if (!p.value || !p.grad || p.size <= 0 || p.shape.empty() || product != p.size)
      detail::fail(fn, "parameters[", i, "] (", p.name, ") is not a usable view: it needs a value, a gradient and ",
                   "a positive size equal to its shape's product (make it with make_parameter or a layer's ",
                   "parameters())");
    for (std::size_t k = 0; k < i; ++k) {
      const ParameterRef& q = parameters[k];
      const std::less<const float*> before{};
      if (before(p.value, q.value + q.size) && before(q.value, p.value + p.size))
        detail::fail(fn, "parameters[", i, "] (", p.name, ") shares its values with parameters[", k, "] (", q.name,
                     "): each parameter may be listed once");
    }
  }
}

// Every gradient finite before anything changes: a NaN names the parameter and the entry.
void require_finite_gradients(std::string_view fn, const std::vector<ParameterRef>& parameters) {
  for (const ParameterRef& p : parameters) {
    if (detail::all_finite(p.grad, p.size)) continue;
    for (Eigen::Index j = 0; j < p.size; ++j)
      if (!std::isfinite(p.grad[j]))
        detail::fail(fn, "the gradient of ", located(p, j), " is ",
                     std::isnan(p.grad[j]) ? "NaN" : (p.grad[j] > 0 ? "+Inf" : "-Inf"), "; no parameter was changed");
  }
}

double total_size(const std::vector<ParameterRef>& parameters) {
  double total = 0;
  for (const ParameterRef& p : parameters) total += static_cast<double>(p.size);
  return total;
}

// A state vector per parameter must be empty (when `may_be_empty`) or hold p.size finite values (≥ 0
// when `non_negative`).
void check_state(std::string_view fn, std::string_view name, const std::vector<std::vector<float>>& state,
                 const std::vector<ParameterRef>& parameters, bool may_be_empty, bool non_negative) {
  if (state.size() != parameters.size())
    detail::fail(fn, name, " has ", state.size(), " entries but the optimizer has ", parameters.size(), " parameters");
  for (std::size_t i = 0; i < state.size(); ++i) {
    const auto size = static_cast<Eigen::Index>(state[i].size());
    if (size != parameters[i].size && !(may_be_empty && size == 0))
      detail::fail(fn, name, "[", i, "] has ", state[i].size(), " values but ", parameters[i].name, " has ",
                   parameters[i].size);
    for (Eigen::Index j = 0; j < size; ++j) {
      const float value = state[i][static_cast<std::size_t>(j)];
      if (!std::isfinite(value) || (non_negative && value < 0.0f))
        detail::fail(fn, name, "[", i, "] for ", located(parameters[i], j), " is ", value,
                     non_negative ? " (it must be finite and ≥ 0)" : " (it must be finite)");
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// SGD

SGD::SGD(std::vector<ParameterRef> parameters, double lr, const SGDOptions& options)
    : parameters_(std::move(parameters)), lr_(lr), options_(options) {
  const char* fn = "SGD";
  check_parameters(fn, parameters_);
  require_hyperparameter(fn, "lr", lr, 0.0);
  require_hyperparameter(fn, "momentum", options.momentum, 0.0);
  require_hyperparameter(fn, "weight_decay", options.weight_decay, 0.0);
  detail::require_finite(fn, "dampening", options.dampening);
  if (options.nesterov && (options.momentum <= 0.0 || options.dampening != 0.0))
    detail::fail(fn, "nesterov needs momentum > 0 and dampening = 0, got momentum ", options.momentum,
                 " and dampening ", options.dampening);
  if (options.momentum != 0.0)
    detail::require_within_budget(fn, 1, 1, total_size(parameters_), "the momentum buffers");
  state_.momentum_buffer.resize(parameters_.size());
}

void SGD::set_lr(double lr) {
  require_hyperparameter("SGD::set_lr", "lr", lr, 0.0);
  lr_ = lr;
}

void SGD::step() {
  // Every parameter [size] with its gradient [size] and momentum buffer [size or none].
  const char* fn = "SGD::step";
  require_finite_gradients(fn, parameters_);
  // PyTorch multiplies float32 tensors by Python floats: each coefficient is rounded to float once.
  const bool decay = options_.weight_decay != 0.0, momentum = options_.momentum != 0.0;
  const auto weight_decay = static_cast<float>(options_.weight_decay);
  const auto mu = static_cast<float>(options_.momentum);
  const auto undamped = static_cast<float>(1.0 - options_.dampening);
  const auto minus_lr = static_cast<float>(-lr_);
  // Pass 0 computes every new value and checks it; pass 1 computes the same values again and writes them.
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
      const ParameterRef& p = parameters_[i];
      std::vector<float>& buffer = state_.momentum_buffer[i];
      const bool first = buffer.empty();
      if (pass == 1 && momentum && first) buffer.resize(static_cast<std::size_t>(p.size));
      for (Eigen::Index j = 0; j < p.size; ++j) {
        // 1. d_p = grad + weight_decay·param
        float decayed = p.grad[j];
        if (decay) decayed = decayed + weight_decay * p.value[j];
        // 2. buf = d_p on the first step, else buf·momentum + (1 − dampening)·d_p; nesterov looks ahead
        float d_p = decayed, buf = 0.0f;
        if (momentum) {
          buf = first ? decayed : buffer[static_cast<std::size_t>(j)] * mu + undamped * decayed;
          d_p = options_.nesterov ? decayed + mu * buf : buf;
        }
        // 3. param += −lr·d_p
        const float value = p.value[j] + minus_lr * d_p;
        if (pass == 0) {
          if (!std::isfinite(value) || !std::isfinite(buf))
            detail::fail(fn, "updating ", located(p, j), " overflows float32 (",
                         !std::isfinite(decayed) ? "the gradient plus weight_decay × value is too large"
                         : !std::isfinite(buf)   ? "the momentum buffer is too large"
                                                 : "lr × the update is too large",
                         "); no parameter was changed");
          continue;
        }
        if (momentum) buffer[static_cast<std::size_t>(j)] = buf;
        p.value[j] = value;
      }
    }
}

void SGD::load_state(const SGDState& state) {
  check_state("SGD::load_state", "momentum_buffer", state.momentum_buffer, parameters_, true, false);
  state_ = state;
}

// ---------------------------------------------------------------------------------------------------
// Adam

Adam::Adam(std::vector<ParameterRef> parameters, const AdamOptions& options)
    : parameters_(std::move(parameters)), options_(options) {
  const char* fn = "Adam";
  check_parameters(fn, parameters_);
  require_hyperparameter(fn, "lr", options.lr, 0.0);
  require_hyperparameter(fn, "beta1", options.beta1, 0.0, true);
  require_hyperparameter(fn, "beta2", options.beta2, 0.0, true);
  require_hyperparameter(fn, "eps", options.eps, 0.0);
  require_hyperparameter(fn, "weight_decay", options.weight_decay, 0.0);
  detail::require_within_budget(fn, options.amsgrad ? 3 : 2, 1, total_size(parameters_), "the moment estimates");
  for (const ParameterRef& p : parameters_) {
    state_.exp_avg.emplace_back(static_cast<std::size_t>(p.size), 0.0f);
    state_.exp_avg_sq.emplace_back(static_cast<std::size_t>(p.size), 0.0f);
    if (options.amsgrad) state_.max_exp_avg_sq.emplace_back(static_cast<std::size_t>(p.size), 0.0f);
  }
}

void Adam::set_lr(double lr) {
  require_hyperparameter("Adam::set_lr", "lr", lr, 0.0);
  options_.lr = lr;
}

void Adam::step() {
  // Every parameter [size] with its gradient, exp_avg, exp_avg_sq (and max_exp_avg_sq) [size].
  const char* fn = "Adam::step";
  require_finite_gradients(fn, parameters_);
  const std::int64_t t = state_.step + 1;
  // 1. The step's scalars in double, as PyTorch computes them in Python, each rounded to float where
  //    it meets a float32 tensor.
  const double bias_correction1 = 1.0 - std::pow(options_.beta1, static_cast<double>(t));
  const double bias_correction2 = 1.0 - std::pow(options_.beta2, static_cast<double>(t));
  const auto minus_step_size = static_cast<float>(-(options_.lr / bias_correction1));
  const auto bias_correction2_sqrt = static_cast<float>(std::sqrt(bias_correction2));
  const bool decay = options_.weight_decay != 0.0;
  const auto weight_decay = static_cast<float>(options_.weight_decay);
  const auto beta1 = static_cast<float>(options_.beta1), beta2 = static_cast<float>(options_.beta2);
  const auto one_minus_beta1 = static_cast<float>(1.0 - options_.beta1);
  const auto one_minus_beta2 = static_cast<float>(1.0 - options_.beta2);
  const auto eps = static_cast<float>(options_.eps);
  // 2. Pass 0 computes every new value and checks it; pass 1 computes the same values again and writes.
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
      const ParameterRef& p = parameters_[i];
      float* exp_avg = state_.exp_avg[i].data();
      float* exp_avg_sq = state_.exp_avg_sq[i].data();
      float* max_exp_avg_sq = options_.amsgrad ? state_.max_exp_avg_sq[i].data() : nullptr;
      const float keep = decoupled_decay_.empty() ? 1.0f : static_cast<float>(1.0 - options_.lr * decoupled_decay_[i]);
      for (Eigen::Index j = 0; j < p.size; ++j) {
        // AdamW: param.mul_(1 − lr·weight_decay), before the Adam update
        const float start = p.value[j] * keep;
        // grad = grad + weight_decay·param
        float g = p.grad[j];
        if (decay) g = g + weight_decay * p.value[j];
        // exp_avg.mul_(beta1).add_(grad, alpha=1 − beta1)
        const float m = exp_avg[j] * beta1 + one_minus_beta1 * g;
        // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 − beta2)
        const float v = exp_avg_sq[j] * beta2 + one_minus_beta2 * g * g;
        // amsgrad: max_exp_avg_sq = max(max_exp_avg_sq, exp_avg_sq), which then stands in for v
        const float v_max = max_exp_avg_sq ? std::max(max_exp_avg_sq[j], v) : v;
        // denom = (sqrt(v) / sqrt(bias_correction2)).add_(eps)
        const float denom = std::sqrt(v_max) / bias_correction2_sqrt + eps;
        // param.addcdiv_(exp_avg, denom, value=−lr/bias_correction1)
        const float value = start + minus_step_size * m / denom;
        if (pass == 0) {
          if (!std::isfinite(value) || !std::isfinite(v))
            detail::fail(fn, "updating ", located(p, j), " gives ", std::isnan(value) ? "NaN (" : "a float32 overflow (",
                         !std::isfinite(g)  ? "the gradient plus weight_decay × value is too large"
                         : !std::isfinite(v) ? "the squared gradient is too large"
                         : denom == 0.0f    ? "eps = 0 and this entry's gradients so far are all 0: 0/0"
                                            : "the update lr·m/(√v + eps) is too large",
                         "); no parameter was changed");
          continue;
        }
        exp_avg[j] = m;
        exp_avg_sq[j] = v;
        if (max_exp_avg_sq) max_exp_avg_sq[j] = v_max;
        p.value[j] = value;
      }
    }
  state_.step = t;
}

void Adam::load_state(const AdamState& state) {
  const char* fn = "Adam::load_state";
  if (state.step < 0) detail::fail(fn, "step must be ≥ 0, got ", state.step);
  check_state(fn, "exp_avg", state.exp_avg, parameters_, false, false);
  check_state(fn, "exp_avg_sq", state.exp_avg_sq, parameters_, false, true);
  if (options_.amsgrad)
    check_state(fn, "max_exp_avg_sq", state.max_exp_avg_sq, parameters_, false, true);
  else if (!state.max_exp_avg_sq.empty())
    detail::fail(fn, "max_exp_avg_sq is given but the optimizer was built without amsgrad");
  state_ = state;
}

// ---------------------------------------------------------------------------------------------------
// AdamW

Adam AdamW::make_adam(std::vector<ParameterGroup>& groups, const AdamWOptions& options) {
  std::vector<ParameterRef> all;
  std::vector<double> decay;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const double weight_decay = groups[g].weight_decay;
    if (!std::isfinite(weight_decay) || weight_decay < 0.0)
      detail::fail("AdamW", "groups[", g, "].weight_decay must be finite and ≥ 0, got ", weight_decay);
    for (ParameterRef& p : groups[g].parameters) {
      all.push_back(std::move(p));
      decay.push_back(weight_decay);
    }
  }
  Adam adam(std::move(all), {.lr = options.lr, .beta1 = options.beta1, .beta2 = options.beta2, .eps = options.eps});
  adam.decoupled_decay_ = std::move(decay);
  return adam;
}

AdamW::AdamW(std::vector<ParameterGroup> groups, const AdamWOptions& options) : adam_(make_adam(groups, options)) {}

}  // namespace attnlab
