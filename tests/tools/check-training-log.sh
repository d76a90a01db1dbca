#!/usr/bin/env bash
# Reruns the first steps of the committed training run (web/models/kjv/, made by
# scripts/train-model.sh) from the same corpus, config and seeds, and checks each step's loss against
# the committed log (relative 1e-4): the run is reproducible, and the trainer still trains as it did,
# on one thread and on two (the thread pool must not change a result).
#   check-training-log.sh path/to/train_kjv
set -euo pipefail
cd "$(dirname "$0")/../.."
listing=$(mktemp)
trap 'rm -f "$listing"' EXIT
bible -f "Gen1:1-Rev22:21" > "$listing"
for threads in 1 2; do
  echo "-- $threads thread(s)"
  "$1" --config web/models/kjv/training-config.json --listing "$listing" \
       --check-log web/models/kjv/training-log.jsonl --steps 5 --threads "$threads"
done
