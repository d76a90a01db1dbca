#!/usr/bin/env bash
# Retrains attnlab's own GPT from scratch: installs the corpus package (bible-kjv, via install-deps.sh),
# builds the native trainer, prints the King James Bible with Debian's `bible` program and trains on it
# with the committed config and seeds, on every core (the results do not depend on the thread count).
#   scripts/train-model.sh [OUT_DIR [CONFIG]] [--resume]
#     OUT_DIR   default web/models/kjv (what the package and site ship)
#     CONFIG    default OUT_DIR/training-config.json
#     --resume  continue from OUT_DIR/checkpoint.safetensors, which every evaluation saves (weights,
#               AdamW state, data position and RNG): the result is the uninterrupted run's, exactly.
# Writes OUT_DIR/model.safetensors, vocab.json, merges.txt and training-log.jsonl. The checkpoint of the
# last step stays (not committed: .gitignore): a finished run can be extended from it with more steps
# and "schedule_steps" (cpp/train/runs/kjv-3/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
resume=()
positional=()
for arg in "$@"; do
  if [ "$arg" = "--resume" ]; then resume=(--resume); else positional+=("$arg"); fi
done
out=${positional[0]:-web/models/kjv}
config=${positional[1]:-$out/training-config.json}
scripts/install-deps.sh
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)" --target train_kjv
mkdir -p "$out" build
bible -f "Gen1:1-Rev22:21" > build/kjv-listing.txt
build/native/cpp/train/train_kjv --config "$config" --listing build/kjv-listing.txt --out "$out" \
  --checkpoint "$out/checkpoint.safetensors" "${resume[@]}"
