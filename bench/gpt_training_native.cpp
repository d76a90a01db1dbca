// Native GPT training throughput: the model size the trained-model issue uses (vocab 4096, context 128,
// d_model 192, 4 heads, 4 layers), batches of 16 sequences of 128 random tokens from a seed, AdamW with
// clipping and the cosine schedule, on the given number of threads (default 1). bench/gpt_training_torch.py trains the same model in
// PyTorch; bench/gpt-training.mjs runs both and writes bench/gpt-training-results.md.
// Prints JSON: { stepMs: [...], tokensPerStep, parameters }.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "attnlab/gpt/gpt_training.hpp"
#include "attnlab/tensor/rng.hpp"
#include "attnlab/tensor/threads.hpp"

int main(int argc, char** argv) {
  using namespace attnlab;
  using Clock = std::chrono::steady_clock;
  const int steps = argc > 1 ? std::atoi(argv[1]) : 10;
  set_num_threads(argc > 2 ? std::atoi(argv[2]) : 1);
  constexpr int kBatch = 16, kT = 128;
  const GPTConfig config{.vocab_size = 4096, .context_length = kT, .d_model = 192, .num_heads = 4, .num_layers = 4};
  GPT model(config, 1);
  GPTTrainer trainer(model, {.schedule = {.max_lr = 1e-3, .min_lr = 1e-4, .warmup_steps = 2, .total_steps = 1000}});
  Rng rng(7);
  std::vector<int> ids(kBatch * kT), targets(kBatch * kT);
  std::vector<double> step_ms;
  for (int s = 0; s < steps; ++s) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      ids[i] = static_cast<int>(rng.next_u32() % 4096);
      targets[i] = static_cast<int>(rng.next_u32() % 4096);
    }
    const auto start = Clock::now();
    trainer.step(ids, targets, kBatch);
    step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::printf("{\"stepMs\": [");
  for (std::size_t i = 0; i < step_ms.size(); ++i) std::printf("%s%.3f", i ? "," : "", step_ms[i]);
  std::printf("], \"tokensPerStep\": %d, \"parameters\": %lld}\n", kBatch * kT,
              static_cast<long long>(model.parameter_count()));
}
