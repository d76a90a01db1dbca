#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang + ASan + UBSan) and runs each for a while, starting
# from the committed corpus in tests/fuzz/corpus/<target>/.
#   scripts/fuzz.sh              20 s per target (what scripts/test.sh runs)
#   scripts/fuzz.sh 600          10 minutes per target
#   scripts/fuzz.sh 600 --merge  … then merge what was found into the committed corpus (minimised)
# Any crash, sanitizer report or violated property stops the run with the input saved as
# build/fuzz/crash-* (reproduce with: build/fuzz/tests/fuzz/<target> <that file>).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
jobs=$(nproc)
CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNLAB_FUZZ=ON \
  -DATTNLAB_BUILD_TESTS=OFF -DATTNLAB_BUILD_DEMO=OFF >/dev/null
cmake --build build/fuzz -j"$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for target in fuzz_attention fuzz_layers fuzz_text; do
  echo "== $target ($seconds s) =="
  work=build/fuzz/corpus/$target
  mkdir -p "$work" "tests/fuzz/corpus/$target"
  # New inputs go to the first folder (the build tree); the committed corpus is only read.
  build/fuzz/tests/fuzz/$target -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/ "$work" "tests/fuzz/corpus/$target" 2>&1 |
    grep -E "^#[0-9]+ +(DONE|INITED)|stat::number_of_executed_units|cov:|ERROR|property|Summary" | tail -4
  test "${PIPESTATUS[0]}" -eq 0
  if [ "${2:-}" = "--merge" ]; then
    build/fuzz/tests/fuzz/$target -merge=1 "tests/fuzz/corpus/$target" "$work" 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new files" || true
  fi
done
