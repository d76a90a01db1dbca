#!/usr/bin/env bash
# The C++ library's source archive, for a project that fetches attnlab with FetchContent (URL and
# URL_HASH) instead of cloning this repository (its history, models and site come to ~160 MB): the
# top-level CMakeLists.txt, cpp/ (without the shipped models' past training runs), LICENSE, README.md and
# docs/cpp.md as committed at HEAD (~270 kB).
#   scripts/cpp-archive.sh [OUT_DIR]   writes OUT_DIR/attnlab-<version>.tar.gz (default build/) and prints
#                                      its path and SHA-256 (what URL_HASH takes)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build}
version=$(sed -n 's/^project(attnlab VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
mkdir -p "$out"
archive="$out/attnlab-$version.tar.gz"
git archive --format=tar.gz --prefix="attnlab-$version/" -o "$archive" HEAD CMakeLists.txt cpp LICENSE README.md docs/cpp.md \
  ':(exclude)cpp/train/runs'  # the shipped models' past training runs: data, not the library
echo "$archive $(sha256sum "$archive" | cut -d' ' -f1)"
