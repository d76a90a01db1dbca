#!/usr/bin/env bash
# Uses attnlab as a C++ library the three ways CMake projects do (tests/cmake/): add_subdirectory,
# FetchContent, and find_package after `cmake --install` of the native build into a temporary prefix;
# and with pkg-config from that prefix. Each consumer sets no C++ standard, includes only
# <attnlab/attnlab.hpp>, and checks attention against a hand computation and a GPT's logit against
# PyTorch's. Then builds and runs the C++ quick start, examples/cpp, against the installed package.
# Needs the native build (build/native) for the install.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model=tests/fixtures/gpt/small.safetensors
first_logit=$(node -e "console.log(JSON.parse(require('fs').readFileSync('tests/fixtures/gpt/small.json')).logits[0][0])")

cmake --install build/native --prefix "$work/prefix" >/dev/null
for how in add_subdirectory fetch_content find_package; do
  echo "-- consumer: $how"
  where=(-DATTNLAB_SOURCE_DIR="$root")
  [ "$how" = find_package ] && where=(-DCMAKE_PREFIX_PATH="$work/prefix")
  cmake -S "tests/cmake/$how" -B "$work/$how" "${where[@]}" >/dev/null
  cmake --build "$work/$how" -j"$(nproc)" >/dev/null
  "$work/$how/consumer" "$model" "$first_logit"
  # A consumer's build of attnlab is the library alone: no tests, demo or trainers.
  if [ "$how" != find_package ] && ls "$work/$how"/attnlab*/tests "$work/$how"/_deps/attnlab-build/tests >/dev/null 2>&1; then
    echo "$how: attnlab built its tests inside a consumer's build" >&2
    exit 1
  fi
done
echo "-- consumer: pkg-config"
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --exact-version=0.1.0 attnlab
# shellcheck disable=SC2046  # pkg-config's flags are words
g++ tests/cmake/consumer.cpp -o "$work/pkg-config-consumer" $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs attnlab)
"$work/pkg-config-consumer" "$model" "$first_logit"

echo "-- example: examples/cpp"
cmake -S examples/cpp -B "$work/example-cpp" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/example-cpp" >/dev/null
printed=$("$work/example-cpp/attention")
echo "$printed"
# By hand: query i matches key i with score 1/sqrt(4) = 0.5 and the others with 0, so row 0's weights
# are e^0.5/(e^0.5 + 2), 1/(e^0.5 + 2), 1/(e^0.5 + 2); the middle row's output is 5 6 7 8 (by symmetry).
expected_weights=$(awk 'BEGIN { e = exp(0.5); printf "%.6g %.6g %.6g", e / (e + 2), 1 / (e + 2), 1 / (e + 2) }')
[ "$(echo "$printed" | sed -n 2p)" = "$expected_weights" ] || { echo "examples/cpp: weights row 0 is not $expected_weights" >&2; exit 1; }
[ "$(echo "$printed" | sed -n 7p | tr -s ' ' | sed 's/^ //')" = "5 6 7 8" ] || { echo "examples/cpp: output row 1 is not 5 6 7 8" >&2; exit 1; }
