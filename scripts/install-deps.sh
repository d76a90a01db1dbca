#!/usr/bin/env bash
# Installs what the builds and tests need on a fresh Debian machine, skipping what is present:
# the C++ toolchain and libraries, clang with libFuzzer, Emscripten (Debian's 3.1.6), Chromium for the browser tests,
# the King James Bible (bible-kjv: the trained model's corpus, for the test that reruns its first steps),
# PyTorch (python3-torch: the test command runs every PyTorch snippet the site shows; libopenblas0-pthread
# replaces the reference BLAS Debian's torch otherwise multiplies with, 13× slower: attnlab-kjv-llama's training),
# and the repository's npm dev tools (npm ci, from the committed lock file). Node ≥ 18 and npm are
# expected on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang + libclang-rt-14-dev: libFuzzer and its sanitizer runtimes for the fuzz targets.
packages=(cmake make g++ clang libclang-rt-14-dev libeigen3-dev googletest libbenchmark-dev nlohmann-json3-dev
          emscripten chromium bible-kjv python3-torch libopenblas0-pthread pkg-config doxygen)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

command -v node >/dev/null || { echo "Node.js ≥ 18 is required (node not found)" >&2; exit 1; }
# npm ci only when the lock file changed since the last install.
if ! cmp -s package-lock.json node_modules/.package-lock.json 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
fi
