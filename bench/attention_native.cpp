// Native timing of scaled dot-product attention (one head, d_k 64) with Google Benchmark.
// bench/run.mjs runs this with --benchmark_format=json and puts it beside the wasm builds.
#include <benchmark/benchmark.h>

#include "attnlab/attention.hpp"
#include "attnlab/rng.hpp"

namespace {

constexpr int kDk = 64;

void attention(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const attnlab::Matrix q = attnlab::randn(n, kDk, 1), k = attnlab::randn(n, kDk, 2), v = attnlab::randn(n, kDk, 3);
  for (auto _ : state) {
    attnlab::AttentionResult r = attnlab::scaled_dot_product_attention(q, k, v);
    benchmark::DoNotOptimize(r.output.data());
  }
  // 4·n²·d: Q·Kᵀ and P·V, a multiply and an add each.
  state.counters["GFLOP/s"] = benchmark::Counter(4.0 * n * n * kDk, benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
}

}  // namespace

BENCHMARK(attention)->Arg(64)->Arg(128)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)
    ->Repetitions(9)->ReportAggregatesOnly(true);

BENCHMARK_MAIN();
