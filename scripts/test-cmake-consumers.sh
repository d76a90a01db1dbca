#!/usr/bin/env bash
# Uses attnlab as a C++ library the three ways CMake projects do (tests/cmake/): add_subdirectory,
# FetchContent, and find_package after `cmake --install` of the native build into a temporary prefix;
# and with pkg-config from that prefix. Each consumer sets no C++ standard, includes only
# <attnlab/attnlab.hpp>, and checks attention against a hand computation and a GPT's logit against
# PyTorch's. Needs the native build (build/native) for the install.
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
