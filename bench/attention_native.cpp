// Native timing of attention (one head, d_k 64) with Google Benchmark.
//   attention_output              output only (online softmax): what onnxruntime computes and what the
//                                 wasm rows of bench/run.mjs time ({ weights: false })
//   scaled_dot_product_attention  the full computation, which also returns the n×n weights
// bench/run.mjs runs this with --benchmark_format=json and puts attention_output beside the wasm builds.
// ATTNLAB_KERNELS=eigen|avx2|avx512 picks the kernels (the best the CPU has by default); the variant
// used is printed in the context as "kernels".
#include <benchmark/benchmark.h>

#include "attnlab/attention/attention.hpp"
#include "attnlab/tensor/rng.hpp"
#include "kernels/kernels.hpp"

namespace {

constexpr int kDk = 64;

// 4·n²·d: Q·Kᵀ and P·V, a multiply and an add each.
void count_flops(benchmark::State& state, int n) {
  state.counters["GFLOP/s"] = benchmark::Counter(4.0 * n * n * kDk, benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
}

void attention_output(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const attnlab::Matrix q = attnlab::randn(n, kDk, 1), k = attnlab::randn(n, kDk, 2), v = attnlab::randn(n, kDk, 3);
  for (auto _ : state) {
    attnlab::Matrix out = attnlab::attention_output(q, k, v);
    benchmark::DoNotOptimize(out.data());
  }
  count_flops(state, n);
}

void scaled_dot_product_attention(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const attnlab::Matrix q = attnlab::randn(n, kDk, 1), k = attnlab::randn(n, kDk, 2), v = attnlab::randn(n, kDk, 3);
  for (auto _ : state) {
    attnlab::AttentionResult r = attnlab::scaled_dot_product_attention(q, k, v);
    benchmark::DoNotOptimize(r.output.data());
  }
  count_flops(state, n);
}

}  // namespace

BENCHMARK(attention_output)->Arg(64)->Arg(128)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)
    ->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(scaled_dot_product_attention)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)
    ->Repetitions(5)->ReportAggregatesOnly(true);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("kernels", attnlab::kernels::variant());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
