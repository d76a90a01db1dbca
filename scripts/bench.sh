#!/usr/bin/env bash
# Builds what the benchmark needs (native Release tree with Google Benchmark, both wasm builds), runs
# bench/run.mjs (bench/results.md) and bench/training.mjs (bench/training-results.md), printing both.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DATTNLAB_BUILD_BENCH=ON >/dev/null
cmake --build build/native -j"$(nproc)" --target attnlab_bench_attention attnlab_bench_training
scripts/build-wasm.sh >/dev/null
scripts/build-components.sh
scripts/build-site.sh
node bench/run.mjs
node bench/training.mjs  # bench/training-results.md
