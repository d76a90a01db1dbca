#!/usr/bin/env bash
# Builds what the benchmark needs (native Release tree with Google Benchmark, both wasm builds), runs
# bench/run.mjs (bench/results.md) and bench/training.mjs (bench/training-results.md), printing both;
# then GPT training (bench/gpt-training-results.md) and GPT inference in Chromium, attnlab vs
# onnxruntime-web (bench/gpt-inference-results.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The training benchmark runs the same model in PyTorch (Debian's python3-torch, bench only).
if ! dpkg-query -W -f='${Status}' python3-torch 2>/dev/null | grep -q "install ok installed"; then
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq python3-torch
fi
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DATTNLAB_BUILD_BENCH=ON >/dev/null
cmake --build build/native -j"$(nproc)" --target attnlab_bench_attention attnlab_bench_training attnlab_bench_gpt_training \
  attnlab_bench_sampling
scripts/build-wasm.sh >/dev/null
scripts/build-components.sh
scripts/build-site.sh
node bench/run.mjs
build/native/bench/attnlab_bench_sampling  # sample() beside greedy, the table of bench/sampling-results.md
node bench/training.mjs  # bench/training-results.md
node bench/gpt-training.mjs  # bench/gpt-training-results.md
node bench/gpt-inference.mjs  # bench/gpt-inference-results.md
node bench/llama-inference.mjs  # bench/llama-inference-results.md
node bench/translator.mjs  # bench/translator-results.md
node bench/site-load.mjs  # bench/site-load-results.md
node bench/threads.mjs  # bench/threads-results.md
node bench/interp.mjs  # bench/interp-results.md
