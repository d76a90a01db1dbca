#!/usr/bin/env bash
# Uses attnlab as a C++ library the three ways CMake projects do (tests/cmake/): add_subdirectory (as a
# shared libattnlab.so), FetchContent (of the C++ source archive, by its hash), and find_package after `cmake --install` of the native build into a
# temporary prefix, and again of the shared build installed into Debian's library folder; and with
# pkg-config from each prefix. Every consumer compiles with strict warnings of its own and builds a
# plugin (a shared library holding attnlab) beside its program. Each consumer sets no C++ standard, includes only
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

# A consumer's own strict warnings: attnlab's sources compile clean under them, and attnlab's -Werror
# (ATTNLAB_WERROR, on only when attnlab is the top-level project) never fails a consumer's build.
strict="-Wall -Wextra -Wconversion"
cmake --install build/native --prefix "$work/prefix" >/dev/null
read -r archive archive_sha256 < <(scripts/cpp-archive.sh "$work")
for how in add_subdirectory fetch_content find_package; do
  echo "-- consumer: $how"
  where=(-DATTNLAB_SOURCE_DIR="$root")
  [ "$how" = fetch_content ] && where=(-DATTNLAB_ARCHIVE="$archive" -DATTNLAB_ARCHIVE_SHA256="$archive_sha256")
  [ "$how" = find_package ] && where=(-DCMAKE_PREFIX_PATH="$work/prefix")
  # add_subdirectory builds attnlab as a shared library and installs it (Debian's library folder) for
  # the shared checks below; fetch_content links the static library into the plugin.
  [ "$how" = add_subdirectory ] && where+=(-DBUILD_SHARED_LIBS=ON -DATTNLAB_INSTALL=ON -DCMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu)
  cmake -S "tests/cmake/$how" -B "$work/$how" "${where[@]}" -DCMAKE_CXX_FLAGS="$strict" >/dev/null
  cmake --build "$work/$how" -j"$(nproc)" > "$work/$how.log" 2>&1 || { cat "$work/$how.log"; exit 1; }
  if grep -q "warning:" "$work/$how.log"; then
    grep -A3 "warning:" "$work/$how.log" >&2
    echo "$how: attnlab's sources or headers warn under $strict" >&2
    exit 1
  fi
  "$work/$how/consumer" "$model" "$first_logit"
  "$work/$how/plugin_host"
  # A consumer's build of attnlab is the library alone: no tests, demo or trainers.
  if [ "$how" != find_package ] && ls "$work/$how"/attnlab*/tests "$work/$how"/_deps/attnlab-build/tests >/dev/null 2>&1; then
    echo "$how: attnlab built its tests inside a consumer's build" >&2
    exit 1
  fi
done

echo "-- shared library: soname, exports, and an installed copy by find_package and pkg-config"
shared="$work/shared-prefix"
cmake --install "$work/add_subdirectory" --prefix "$shared" >/dev/null
lib="$shared/lib/x86_64-linux-gnu/libattnlab.so"
[ "$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')" = libattnlab.so.0 ] || { echo "libattnlab.so: soname is not libattnlab.so.0" >&2; exit 1; }
readelf -d "$work/add_subdirectory/consumer" | grep -q 'NEEDED.*libattnlab.so.0' || { echo "consumer does not load libattnlab.so.0" >&2; exit 1; }
# The public API is exported; the internals (kernels, the GPT's ops, anonymous helpers) are not.
exported=$(nm -D --defined-only -C "$lib")
grep -q 'attnlab::scaled_dot_product_attention' <<<"$exported" || { echo "libattnlab.so does not export scaled_dot_product_attention" >&2; exit 1; }
if grep -E 'attnlab::(kernels|gpt_ops|patch_grid|lens_reading|circuit_scores)::' <<<"$exported" | head -3 | grep -q .; then
  echo "libattnlab.so exports internal symbols:" >&2
  grep -E 'attnlab::(kernels|gpt_ops|patch_grid|lens_reading|circuit_scores)::' <<<"$exported" | head >&2
  exit 1
fi
cmake -S tests/cmake/find_package -B "$work/find_package_shared" -DCMAKE_PREFIX_PATH="$shared" >/dev/null
cmake --build "$work/find_package_shared" -j"$(nproc)" >/dev/null
readelf -d "$work/find_package_shared/consumer" | grep -q 'NEEDED.*libattnlab.so.0' || { echo "find_package: not the shared library" >&2; exit 1; }
"$work/find_package_shared/consumer" "$model" "$first_logit"
"$work/find_package_shared/plugin_host"

echo "-- consumer: pkg-config (static in lib/, shared in lib/x86_64-linux-gnu/)"
for libdir in "$work/prefix/lib" "$shared/lib/x86_64-linux-gnu"; do
  pc=(env PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config)
  "${pc[@]}" --exact-version=0.1.0 attnlab
  # The file names this install's own folders (however deep its libdir), and no C++ standard: the
  # headers say they need C++20.
  prefix=${libdir%/lib*}
  [ "$(realpath -m "$("${pc[@]}" --variable=includedir attnlab)")" = "$prefix/include" ] &&
    [ "$(realpath -m "$("${pc[@]}" --variable=libdir attnlab)")" = "$libdir" ] ||
    { echo "pkg-config in $libdir: includedir or libdir is not this install's" >&2; exit 1; }
  flags=$("${pc[@]}" --cflags --libs attnlab)
  if grep -q -- "-std=" <<<"$flags"; then echo "pkg-config forces a C++ standard: $flags" >&2; exit 1; fi
  # shellcheck disable=SC2086  # pkg-config's flags are words
  g++ -std=c++20 tests/cmake/consumer.cpp -o "$work/pkg-config-consumer" $flags -Wl,-rpath,"$libdir"
  "$work/pkg-config-consumer" "$model" "$first_logit"
done

echo "-- a C++17 compile: one message naming C++20, not pages of errors"
# shellcheck disable=SC2046  # pkg-config's flags are words
if out=$(g++ -std=c++17 -fsyntax-only -I"$work/prefix/include" $(pkg-config --cflags eigen3) tests/cmake/consumer.cpp 2>&1); then
  echo "consumer.cpp compiled as C++17" >&2
  exit 1
fi
if [ "$(grep -c 'error:' <<<"$out")" -gt 2 ] || ! grep -q 'attnlab needs C++20' <<<"$out"; then
  echo "$out" | head -20 >&2
  echo "a C++17 compile does not stop at attnlab's C++20 message" >&2
  exit 1
fi

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

echo "-- example: examples/cpp-kjv (attnlab-kjv: generation and the logit lens, against PyTorch's lens)"
cmake -S examples/cpp-kjv -B "$work/example-kjv" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/example-kjv" >/dev/null
"$work/example-kjv/kjv" web/models/kjv | tee "$work/kjv.txt"
node tests/cmake/check-kjv-example.mjs < "$work/kjv.txt"
