#!/usr/bin/env bash
# Builds the wasm variants of the core: SIMD and scalar (the GoogleTest suite and every Embind module:
# attnlab-<variant>, and the -train-, -gpt- and -referent- modules the package loads when asked), and
# SIMD with threads (the main and GPT modules, which cross-origin-isolated pages load, and the thread
# tests on that build), and copies the modules into web/dist/ for the npm package.
# The threaded build runs the thread tests rather than the whole suite again: its code is the SIMD
# build's plus the thread pool, and those tests check the pool and that attention, multi-head attention,
# the GPT's forward and its gradients are bit-identical on 1 to 8 threads; the whole suite again cost
# about 6 minutes of the test command (a second wasm compile of every test file) for no other code.
#   scripts/build-wasm.sh          build only
#   scripts/build-wasm.sh --test   also run the GoogleTest suite of each variant under Node
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's emcc runs its JS optimiser with the machine's node, which needs Debian's acorn (TOOLCHAIN.md 1).
export NODE_PATH=/usr/share/nodejs
jobs=$(nproc)
mkdir -p web/dist
for variant in simd scalar; do
  flag=$([ "$variant" = simd ] && echo ON || echo OFF)
  echo "== wasm ($variant) =="
  # emcmake hides host packages (Eigen3_DIR, TOOLCHAIN.md 2); its default test emulator passes a flag
  # Node 20 rejects (TOOLCHAIN.md 3).
  emcmake cmake -S . -B "build/wasm-$variant" -DCMAKE_BUILD_TYPE=Release -DATTNLAB_WASM_SIMD=$flag \
    -DATTNLAB_BUILD_DEMO=OFF -DEigen3_DIR=/usr/share/eigen3/cmake -DCMAKE_CROSSCOMPILING_EMULATOR=node >/dev/null
  cmake --build "build/wasm-$variant" -j"$jobs"
  for module in "attnlab-$variant" "attnlab-train-$variant" "attnlab-gpt-$variant" "attnlab-referent-$variant" \
                "attnlab-seq2seq-$variant"; do
    cp "build/wasm-$variant/wasm_bindings/$module.mjs" "build/wasm-$variant/wasm_bindings/$module.wasm" web/dist/
  done
  if [ "${1:-}" = "--test" ]; then
    ctest --test-dir "build/wasm-$variant" --output-on-failure -j"$jobs"
  fi
done
echo "== wasm (simd-mt: threads) =="
emcmake cmake -S . -B build/wasm-simd-mt -DCMAKE_BUILD_TYPE=Release -DATTNLAB_WASM_SIMD=ON -DATTNLAB_WASM_THREADS=ON \
  -DATTNLAB_BUILD_DEMO=OFF -DEigen3_DIR=/usr/share/eigen3/cmake -DCMAKE_CROSSCOMPILING_EMULATOR=node >/dev/null
cmake --build build/wasm-simd-mt -j"$jobs" --target attnlab_module attnlab_gpt_module attnlab_thread_tests
for module in attnlab-simd-mt attnlab-gpt-simd-mt; do
  cp "build/wasm-simd-mt/wasm_bindings/$module.mjs" "build/wasm-simd-mt/wasm_bindings/$module.wasm" \
    "build/wasm-simd-mt/wasm_bindings/$module.worker.js" web/dist/
done
if [ "${1:-}" = "--test" ]; then
  ctest --test-dir build/wasm-simd-mt --output-on-failure -R '^wasm_threads$'
fi
ls -l web/dist
