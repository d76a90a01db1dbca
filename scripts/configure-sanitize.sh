#!/usr/bin/env bash
# Configures build/sanitize: clang with AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer's
# coverage and Eigen's bounds asserts in every object. The GoogleTest suite (scripts/test.sh) and the
# fuzz targets (scripts/fuzz.sh) share this one build, so the test command compiles the core under the
# sanitizers once, not once for each.
set -euo pipefail
cd "$(dirname "$0")/.."
CC=clang CXX=clang++ cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DATTNLAB_SANITIZE=ON -DATTNLAB_FUZZ=ON -DATTNLAB_BUILD_DEMO=OFF >/dev/null
