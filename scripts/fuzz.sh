#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang + ASan + UBSan, in the sanitizer build the test suite
# shares: scripts/configure-sanitize.sh) and runs each one, starting from the committed corpus in
# tests/fuzz/corpus/<target>/.
#   scripts/fuzz.sh              replay the corpus, then 30,000 new inputs per target from seed 1
#                                (what scripts/test.sh runs: the same inputs every time, ~10 s each)
#   scripts/fuzz.sh 600          10 minutes per target from a random seed
#   scripts/fuzz.sh 600 --merge  … then merge what it found into the committed corpus (minimised)
# Any crash, sanitizer report or violated property stops the run with the input saved as
# build/sanitize/crash-* (reproduce with: build/sanitize/tests/fuzz/<target> <that file>; it prints the inputs).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
scripts/configure-sanitize.sh
build=build/sanitize
cmake --build "$build" -j"$jobs" --target attnlab_fuzz_targets
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ -n "${1:-}" ]; then budget=(-max_total_time="$1"); else budget=(-runs=30000 -seed=1); fi
for target in fuzz_attention fuzz_layers fuzz_text fuzz_gpt fuzz_safetensors; do
  echo "== $target (${budget[*]}) =="
  work=$build/corpus/$target
  rm -rf "$work" && mkdir -p "$work"
  # New inputs go to the first folder (the build tree); the committed corpus is only read.
  $build/tests/fuzz/$target "${budget[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix=$build/ "$work" "tests/fuzz/corpus/$target" >"$build/$target.log" 2>&1 ||
    { tail -60 "$build/$target.log"; exit 1; }
  grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)" "$build/$target.log"
  if [ "${2:-}" = "--merge" ]; then
    $build/tests/fuzz/$target -merge=1 "tests/fuzz/corpus/$target" "$work" 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new files" || true
  fi
done
