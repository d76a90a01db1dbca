#!/usr/bin/env bash
# Reruns the first steps of the committed training run (web/models/kjv/, made by
# scripts/train-model.sh) from the same corpus, config and seeds, and checks each step's loss against
# the committed log (relative 1e-4): the run is reproducible, and the trainer still trains as it did.
#   check-training-log.sh path/to/train_kjv
set -euo pipefail
cd "$(dirname "$0")/../.."
listing=$(mktemp)
trap 'rm -f "$listing"' EXIT
bible -f "Gen1:1-Rev22:21" > "$listing"
"$1" --config web/models/kjv/training-config.json --listing "$listing" \
     --check-log web/models/kjv/training-log.jsonl --steps 5
