// Native training throughput: the copy task's causal transformer (d_model 32, 2 heads, 1 layer,
// d_ff 64, batch 16, Adam lr 3e-3, seed 3), as bench/training.mjs runs it beside PyTorch and wasm.
// Prints JSON: { stepMs: [per-step times], stepsTo95, secondsTo95 }.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "attnlab/attnlab.hpp"

int main() {
  using namespace attnlab;
  using Clock = std::chrono::steady_clock;
  constexpr int kBatch = 16, kMaxSteps = 1000;
  const Task task(TaskKind::copy);
  const Task::Split split = task.split(kMaxSteps * kBatch, 300, 1);
  TaskTrainer trainer(task, {.lr = 3e-3, .seed = 3});
  std::vector<double> step_ms;
  int steps_to_95 = -1;
  double seconds = 0.0;
  for (int s = 0; s < kMaxSteps; ++s) {
    const auto start = Clock::now();
    trainer.train_step({split.train.begin() + s * kBatch, split.train.begin() + (s + 1) * kBatch});
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    step_ms.push_back(ms);
    seconds += ms / 1000.0;
    // Held-out accuracy every 10 steps (not counted in the training time).
    if (steps_to_95 < 0 && (s + 1) % 10 == 0 && trainer.evaluate(split.test).accuracy >= 0.95f) {
      steps_to_95 = s + 1;
      break;
    }
  }
  std::printf("{\"stepMs\": [");
  for (std::size_t i = 0; i < step_ms.size(); ++i) std::printf("%s%.4f", i ? "," : "", step_ms[i]);
  std::printf("], \"stepsTo95\": %d, \"secondsTo95\": %.4f, \"parameters\": %lld}\n", steps_to_95, seconds,
              static_cast<long long>(trainer.parameter_count()));
}
