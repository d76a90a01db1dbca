#!/usr/bin/env bash
# Builds the core and runs the native demo: the tutorials' examples computed by attnlab.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)" --target attnlab_demo
build/native/cpp/attnlab_demo
