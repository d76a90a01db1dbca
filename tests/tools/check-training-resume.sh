#!/usr/bin/env bash
# A training run stopped after its first checkpoint and resumed computes exactly what the
# uninterrupted run computes, and a run cut short by --steps computes its first steps: the same shipped weights byte for byte, the same step losses, gradient
# norms and held-out losses in the log. Runs a tiny configuration on Genesis (a few seconds), the
# uninterrupted run on 1 thread and the interrupted one on 2, so the thread count is checked too.
#   check-training-resume.sh path/to/train_kjv
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bible -f "Gen1:1-Gen50:26" > "$work/genesis.txt"
config=tests/tools/training-resume-config.json
"$1" --config $config --listing "$work/genesis.txt" --out "$work/whole" --threads 1 --checkpoint "$work/whole.ckpt"
"$1" --config $config --listing "$work/genesis.txt" --out "$work/resumed" --threads 2 --checkpoint "$work/resumed.ckpt" --stop-after 3
test ! -e "$work/resumed/model.safetensors" || { echo "the stopped run wrote a model" >&2; exit 1; }
"$1" --config $config --listing "$work/genesis.txt" --out "$work/resumed" --threads 2 --checkpoint "$work/resumed.ckpt" --resume
cmp "$work/whole/model.safetensors" "$work/resumed/model.safetensors"
# A shorter run (--steps, as the first-steps check runs) draws the same windows as the whole run: the
# repeated-window schedule follows the config's steps, like the learning rate (the test config's
# schedule rises steeply, 0.1 → 0.9, so a schedule stretched over --steps would draw other windows).
"$1" --config $config --listing "$work/genesis.txt" --check-log "$work/whole/training-log.jsonl" --steps 4 --threads 1
# Every record but its timings must agree.
node -e '
  const fs = require("fs");
  const read = (f) => fs.readFileSync(f, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const strip = (r) => { for (const k of ["ms", "seconds", "bpe_seconds", "training_seconds", "tokens_per_second", "threads"]) delete r[k]; return JSON.stringify(r); };
  const [a, b] = [read(process.argv[1]), read(process.argv[2])];
  if (a.length !== b.length) { console.error(`logs differ in length: ${a.length} vs ${b.length}`); process.exit(1); }
  a.forEach((r, i) => { if (strip(r) !== strip(b[i])) { console.error(`log line ${i + 1} differs:\n${strip(r)}\n${strip(b[i])}`); process.exit(1); } });
  console.log(`${a.length} log records agree; the shipped weights are identical`);
' "$work/whole/training-log.jsonl" "$work/resumed/training-log.jsonl"

# A run extended past its schedule ("schedule_steps": the learning rate's cosine and the repeated-window
# share run over that many steps; the steps after it keep the minimum rate and the final share) computes
# for its first schedule_steps steps what the run of that length computes, so a finished run can be
# extended from its last checkpoint: the extended run from scratch and the finished run resumed with the
# extended config write the same weights.
node -e '
  const fs = require("fs");
  const config = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  config.training.schedule_steps = config.training.steps;
  config.training.steps += 3;
  fs.writeFileSync(process.argv[2], JSON.stringify(config));
' $config "$work/extended.json"
"$1" --config "$work/extended.json" --listing "$work/genesis.txt" --out "$work/extended" --threads 2 --checkpoint "$work/extended.ckpt"
"$1" --config "$work/extended.json" --listing "$work/genesis.txt" --out "$work/whole" --threads 1 --checkpoint "$work/whole.ckpt" --resume
cmp "$work/extended/model.safetensors" "$work/whole/model.safetensors"
node -e '
  const fs = require("fs");
  const steps = (f) => fs.readFileSync(f, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((r) => r.kind === "step");
  const config = JSON.parse(fs.readFileSync(process.argv[3], "utf8")).training;
  const [short, extended] = [steps(process.argv[1]), steps(process.argv[2])];
  const same = (a, b) => a.loss === b.loss && a.lr === b.lr && a.grad_norm === b.grad_norm;
  short.forEach((r, i) => { if (!same(r, extended[i])) { console.error(`step ${r.step} differs in the extended run`); process.exit(1); } });
  const tail = extended.slice(short.length);
  if (tail.length !== 3 || tail.some((r) => r.lr !== config.min_lr)) {
    console.error(`the extended steps should run at min_lr ${config.min_lr}: ${JSON.stringify(tail)}`); process.exit(1);
  }
  console.log(`the extended run repeats the ${short.length} steps of the shorter one, then ${tail.length} at min_lr; the same weights resumed`);
' "$work/resumed/training-log.jsonl" "$work/extended/training-log.jsonl" "$work/extended.json"
