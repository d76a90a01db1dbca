#!/usr/bin/env bash
# Retrains the "it" sentence model (a few seconds on one core): builds the native trainer and runs it
# with the committed recipe (cpp/train/train_referent.cpp).
#   scripts/train-referent.sh [OUT_DIR]     default web/models/referent (what the package and site ship)
# Writes OUT_DIR/model.safetensors, sentences.json and training-log.jsonl; exits 2 if the named head's
# held-out share is under the 85% acceptance threshold.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-web/models/referent}
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)" --target train_referent
mkdir -p "$out"
build/native/cpp/train/train_referent --out "$out"
