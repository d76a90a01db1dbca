#include "attnlab/training/training.hpp"

#include <algorithm>
#include <cmath>

#include "tensor/checks.hpp"

namespace attnlab {

TaskTrainer::TaskTrainer(const Task& task, const TrainerConfig& c) : task_(task) {
  std::vector<ParameterRef> parameters;
  if (task.is_sequence()) {
    sequence_model_ = std::make_unique<CausalTransformer>(CausalTransformerConfig{
        .vocab_size = task.vocab_size(), .max_len = task.seq_len(), .d_model = c.d_model, .num_heads = c.num_heads,
        .num_layers = c.num_layers, .d_ff = c.d_ff, .positions = c.positions, .seed = c.seed});
    parameters = sequence_model_->parameters();
  } else {
    classifier_ = std::make_unique<AttentionClassifier>(AttentionClassifierConfig{
        .vocab_size = task.vocab_size(), .d_model = c.d_model, .num_heads = c.num_heads,
        .num_classes = task.num_classes(), .seed = c.seed});
    parameters = classifier_->parameters();
  }
  adam_ = std::make_unique<Adam>(std::move(parameters), AdamOptions{.lr = c.lr});
}

ModelOutput TaskTrainer::run(const TaskExample& e, float scale, bool backward) {
  if (sequence_model_)
    return backward ? sequence_model_->accumulate_gradients(e.tokens, e.targets, scale)
                    : sequence_model_->forward(e.tokens, e.targets);
  if (e.targets.size() != 1)
    detail::fail("TaskTrainer", "a classification example has one target, got ", e.targets.size());
  return backward ? classifier_->accumulate_gradients(e.tokens, e.targets[0], scale)
                  : classifier_->forward(e.tokens, e.targets[0]);
}

float TaskTrainer::train_step(const std::vector<TaskExample>& batch) {
  // loss = mean over the batch of each example's mean cross-entropy
  if (batch.empty()) detail::fail("TaskTrainer::train_step", "batch is empty");
  adam_->zero_grad();
  const float scale = 1.0f / static_cast<float>(batch.size());
  double loss = 0.0;
  for (const TaskExample& e : batch) loss += run(e, scale, true).loss;
  loss /= static_cast<double>(batch.size());
  if (!std::isfinite(loss)) detail::fail("TaskTrainer::train_step", "the loss is ", loss, ": training stopped");
  adam_->step();  // refuses (Error, parameters unchanged) if a gradient is not finite
  ++steps_;
  return static_cast<float>(loss);
}

Evaluation TaskTrainer::evaluate(const std::vector<TaskExample>& examples) {
  if (examples.empty()) detail::fail("TaskTrainer::evaluate", "examples is empty");
  double loss = 0.0;
  long correct = 0, scored = 0, whole = 0;
  for (const TaskExample& e : examples) {
    const ModelOutput out = run(e, 0.0f, false);
    loss += out.loss;
    correct += out.correct;
    scored += out.scored;
    whole += out.correct == out.scored ? 1 : 0;
  }
  const auto n = static_cast<double>(examples.size());
  return {static_cast<float>(loss / n), scored ? static_cast<float>(static_cast<double>(correct) / static_cast<double>(scored)) : 0.0f,
          static_cast<float>(static_cast<double>(whole) / n)};
}

ModelOutput TaskTrainer::inspect(const TaskExample& example) { return run(example, 0.0f, false); }

TrainerSnapshot TaskTrainer::snapshot() const {
  TrainerSnapshot s{{}, adam_->state(), steps_};
  for (const ParameterRef& p : adam_->parameters()) s.parameters.emplace_back(p.value, p.value + p.size);
  return s;
}

void TaskTrainer::restore(const TrainerSnapshot& s) {
  constexpr const char* fn = "TaskTrainer::restore";
  const std::vector<ParameterRef>& parameters = adam_->parameters();
  if (s.parameters.size() != parameters.size())
    detail::fail(fn, "the snapshot has ", s.parameters.size(), " parameters but the model has ", parameters.size());
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (static_cast<Eigen::Index>(s.parameters[i].size()) != parameters[i].size)
      detail::fail(fn, parameters[i].name, " has ", s.parameters[i].size(), " values in the snapshot but ",
                   parameters[i].size, " in the model");
    if (!detail::all_finite(s.parameters[i].data(), parameters[i].size))
      detail::fail(fn, parameters[i].name, " holds NaN or ±Inf in the snapshot");
  }
  if (s.steps < 0) detail::fail(fn, "steps must be ≥ 0, got ", s.steps);
  adam_->load_state(s.adam);  // checks its own sizes first; throws before anything below changes
  for (std::size_t i = 0; i < parameters.size(); ++i)
    std::copy(s.parameters[i].begin(), s.parameters[i].end(), parameters[i].value);
  steps_ = s.steps;
}

std::int64_t TaskTrainer::parameter_count() const {
  return sequence_model_ ? sequence_model_->parameter_count() : classifier_->parameter_count();
}

}  // namespace attnlab
