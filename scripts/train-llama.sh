#!/usr/bin/env bash
# Trains attnlab-kjv-llama, the Llama-architecture model beside attnlab-kjv (docs/models.md): installs the
# corpus and PyTorch (install-deps.sh), builds cpp/train/kjv_tokens, writes the King James text as
# attnlab-kjv's token ids, and runs scripts/llama/train.py with the committed config.
#   scripts/train-llama.sh [--resume] [--stop-after STEP]
#     --resume   continue from web/models/kjv-llama/checkpoint.pt, saved at every evaluation and when the
#                run is stopped (kill -TERM or Ctrl-C: the step under way finishes, then it saves); the
#                result is the uninterrupted run's (each step's data and dropout come from its number)
# Writes web/models/kjv-llama/: config.json, model.safetensors, tokenizer.json, training-log.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
out=web/models/kjv-llama
scripts/install-deps.sh
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)" --target kjv_tokens
mkdir -p build/kjv-tokens
bible -f "Gen1:1-Rev22:21" > build/kjv-listing.txt
build/native/cpp/train/kjv_tokens --listing build/kjv-listing.txt --vocab web/models/kjv --out build/kjv-tokens
/usr/bin/python3 scripts/llama/train.py --config "$out/training-config.json" --tokens build/kjv-tokens --out "$out" "$@"
