#!/usr/bin/env bash
# Every test:
#   1. the GoogleTest suite natively (Release), with the demo's smoke test;
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang, Eigen's asserts on),
#      a short libFuzzer run of each fuzz target from the committed corpus (the same build), and the
#      thread tests under ThreadSanitizer;
#   3. the same suite compiled to wasm (SIMD, scalar, and SIMD with threads) and run in Node;
#   4. the npm package's tests (node:test over the built package, tsc on the .d.ts);
#   5. the browser tests in headless Chromium: the packed npm package (Node import, a plain page, a
#      Vite app), the web components, and every lesson of the site (axe, screenshots in
#      test-output/screenshots/).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage says how long the one before it took, so a slow run shows where its time went.
stage_started=$SECONDS
stage_name=""
stage() {
  [ -z "$stage_name" ] || echo "   ($stage_name: $((SECONDS - stage_started)) s)"
  stage_started=$SECONDS
  stage_name=$1
  echo "== $1 =="
}
stage "install"
scripts/install-deps.sh
jobs=$(nproc)

stage "native (Release)"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$jobs"
ctest --test-dir build/native --output-on-failure -j"$jobs"

stage "C++ consumers: add_subdirectory, FetchContent, find_package after cmake --install, pkg-config"
scripts/test-cmake-consumers.sh

stage "native under ASan + UBSan (clang; the build the fuzz targets share)"
scripts/configure-sanitize.sh
cmake --build build/sanitize -j"$jobs" --target attnlab_tests attnlab_fuzz_targets
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/sanitize --output-on-failure -j"$jobs"

stage "threads under ThreadSanitizer"
cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNLAB_TSAN=ON -DATTNLAB_BUILD_DEMO=OFF >/dev/null
cmake --build build/tsan -j"$jobs" --target attnlab_thread_tests
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 build/tsan/tests/attnlab_thread_tests

stage "libFuzzer: the committed corpus and 30,000 seeded inputs per target"
scripts/fuzz.sh

stage "wasm (SIMD, scalar, threaded SIMD), GoogleTest in Node"
scripts/build-wasm.sh --test

stage "components and site"
scripts/build-components.sh
scripts/build-site.sh

stage "npm package: node:test"
node --test tests/js/

stage "browser: packaging, components, site (Chromium)"
node --test tests/e2e/

stage "done"
echo "All tests passed in $((SECONDS / 60)) min $((SECONDS % 60)) s."
