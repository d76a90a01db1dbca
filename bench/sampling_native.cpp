// Native timing of sample(), the step that turns a row of logits into the next token, beside greedy:
//   greedy      temperature 0 (the argmax, and the [V] distribution with its one 1)
//   T=1         temperature 1, no top-k, no top-p: the whole softmax
//   top-k 40    temperature 1, the 40 most likely tokens
//   top-p 0.9   temperature 1, the nucleus holding 90% of the mass
// at GPT-2's vocabulary (50,257) and a small model's (4,096). Each call gets a row of seeded logits,
// normals with standard deviation 3 (a peaked row, like a trained model's: at 50,257 the nucleus at
// 0.9 holds a few percent of the vocabulary); every call is timed alone and the median is printed, in
// µs per call, so the busy machine's slow outliers do not move it.
// Prints a Markdown table; bench/sampling-results.md records it. Usage: attnlab_bench_sampling [calls]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attnlab/gpt/sampling.hpp"
#include "attnlab/tensor/rng.hpp"

namespace {

using attnlab::Rng;
using attnlab::SamplingOptions;
using Clock = std::chrono::steady_clock;

constexpr int kRows = 64;  // distinct rows of logits, cycled through

struct Mode {
  const char* name;
  SamplingOptions options;
};

// rows [kRows][V]: normal(0, 3) from Rng(seed)
std::vector<std::vector<float>> seeded_rows(int vocab, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<float>> rows(kRows, std::vector<float>(static_cast<std::size_t>(vocab)));
  for (auto& row : rows)
    for (float& x : row) x = rng.normal(0.0f, 3.0f);
  return rows;
}

struct Timing {
  double median_us = 0.0;
  double kept = 0.0;  // mean number of tokens with nonzero probability (the nucleus, for top-p)
};

Timing time_mode(const std::vector<std::vector<float>>& rows, const SamplingOptions& options, int calls) {
  Rng rng(5);
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(calls));
  double kept = 0.0;
  volatile int sink = 0;  // the token, so the call cannot be dropped
  for (int i = -calls / 10; i < calls; ++i) {  // the first tenth warms caches and the allocator, untimed
    const std::vector<float>& row = rows[static_cast<std::size_t>((i + calls) % kRows)];
    const auto start = Clock::now();
    const attnlab::SampledToken s = attnlab::sample(row, options, rng);
    const double elapsed = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    sink = s.token;
    if (i < 0) continue;
    us.push_back(elapsed);
    kept += static_cast<double>(std::count_if(s.probabilities.begin(), s.probabilities.end(), [](float p) { return p > 0.0f; }));
  }
  (void)sink;
  std::nth_element(us.begin(), us.begin() + static_cast<std::ptrdiff_t>(us.size() / 2), us.end());
  return {us[us.size() / 2], kept / calls};
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::max(10, std::atoi(argv[1])) : 1000;
  const Mode modes[] = {
      {"greedy", {.temperature = 0.0f}},
      {"T=1", {}},
      {"top-k 40", {.top_k = 40}},
      {"top-p 0.9", {.top_p = 0.9f}},
  };
  std::printf("| vocabulary | mode | median µs per call | tokens kept (mean) |\n|---:|---|---:|---:|\n");
  for (const int vocab : {4096, 50257}) {
    const auto rows = seeded_rows(vocab, 11);
    for (const Mode& mode : modes) {
      const Timing t = time_mode(rows, mode.options, calls);
      std::printf("| %d | %s | %.1f | %.0f |\n", vocab, mode.name, t.median_us, t.kept);
      std::fflush(stdout);
    }
  }
  return 0;
}
