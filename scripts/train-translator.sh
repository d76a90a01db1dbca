#!/usr/bin/env bash
# Retrains the cross-attention lesson's English → French translator (about 2.5 minutes on one core):
# builds the native trainer and runs it with the committed recipe (cpp/train/train_translator.cpp and
# the grammar in cpp/train/en_fr_grammar.cpp).
#   scripts/train-translator.sh [OUT_DIR]     default web/models/translator (what the package and site ship)
# Writes OUT_DIR/model.safetensors, vocab.json, heldout.json and training-log.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-web/models/translator}
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)" --target train_translator
mkdir -p "$out"
build/native/cpp/train/train_translator --out "$out"
