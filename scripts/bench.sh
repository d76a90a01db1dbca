#!/usr/bin/env bash
# Builds what the benchmark needs (native Release tree with Google Benchmark, both wasm builds), runs
# bench/run.mjs, prints the table and writes bench/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DATTNLAB_BUILD_BENCH=ON >/dev/null
cmake --build build/native -j"$(nproc)" --target attnlab_bench_attention
scripts/build-wasm.sh >/dev/null
scripts/build-components.sh
scripts/build-site.sh
node bench/run.mjs
