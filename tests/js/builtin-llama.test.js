// attnlab-kjv-llama as the package ships it (lab.loadBuiltinLlama, models/kjv-llama/): its config as
// config.json says, its tokenizer identical to Hugging Face's tokenizers on the shipped tokenizer.json,
// its logits equal to the float64 PyTorch reference (scripts/llama/model.py, run here on the shipped
// weights, whichever step of the run they are from), and its training log read as the file has it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { Tokenizer } from '@huggingface/tokenizers';

import { lab } from './helpers.js';

const repo = new URL('../../', import.meta.url).pathname;
const folder = new URL('../../web/models/kjv-llama/', import.meta.url);
const config = JSON.parse(readFileSync(new URL('config.json', folder), 'utf8'));
const TEXT = 'In the beginning God created the heaven and the earth.\nAnd the earth was without form, and void; 1:2 — “void”';

// The reference's logits for `ids` (every row), float64, on the shipped folder as Hugging Face lays it out.
function referenceLogits(ids) {
  const program = `
import json, sys, torch
sys.path.insert(0, 'scripts/llama')
from checkpoint import read_checkpoint
from model import LlamaConfig, forward
config, state = read_checkpoint('web/models/kjv-llama')
ids = torch.tensor(json.loads(sys.argv[1]))
print(json.dumps(forward(LlamaConfig.from_hf(config), state, ids).tolist()))
`;
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', program, JSON.stringify(ids)], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 28 }));
}

test('attnlab-kjv-llama: config, tokenizer and logits as the reference computes them', async () => {
  const l = await lab(true);
  const { model, tokenizer } = await l.loadBuiltinLlama();
  assert.equal(model.family, 'llama');
  assert.equal(model.config.numHeads, config.num_attention_heads);
  assert.equal(model.config.numKeyValueHeads, config.num_key_value_heads);
  assert.ok(model.config.numKeyValueHeads < model.config.numHeads, 'grouped-query attention');
  assert.equal(model.config.vocabSize, config.vocab_size);

  const reference = new Tokenizer(JSON.parse(readFileSync(new URL('tokenizer.json', folder), 'utf8')), {});
  const ids = [...tokenizer.encode(TEXT)];
  assert.deepEqual(ids, reference.encode(TEXT).ids);
  assert.equal(tokenizer.decode(ids), TEXT);

  const want = referenceLogits(ids);
  const got = model.forward(ids).logits;
  let largest = 1;
  let worst = 0;
  want.forEach((row, r) => row.forEach((v, c) => {
    largest = Math.max(largest, Math.abs(v));
    worst = Math.max(worst, Math.abs(got.data[r * got.cols + c] - v));
  }));
  assert.equal(got.rows, ids.length);
  assert.ok(worst <= 1e-4 * largest, `largest difference ${worst} against logits up to ${largest}`);
  model.dispose();
});

test("attnlab-kjv-llama's training log: each step once, in order; evaluations, stops and resumes as the file has them", async () => {
  const l = await lab(true);
  const log = await l.loadBuiltinLlamaTrainingLog();
  const lines = readFileSync(new URL('training-log.jsonl', folder), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const count = (type) => lines.filter((r) => r.type === type).length;
  const lastStep = Math.max(...lines.filter((r) => r.type === 'step').map((r) => r.step));
  assert.deepEqual(log.steps.map((s) => s.step), Array.from({ length: lastStep + 1 }, (_, i) => i));
  assert.equal(log.stops.length, count('stop'));
  assert.equal(log.resumes.length, count('resume'));
  assert.equal(log.evals.length, new Set(lines.filter((r) => r.type === 'eval').map((r) => r.step)).size);
  // A resumed step is the resumed run's record: the last line for that step.
  const lastRecord = lines.filter((r) => r.type === 'step' && r.step === log.resumes[0].fromStep).at(-1);
  assert.equal(log.steps[log.resumes[0].fromStep].loss, lastRecord.loss);
  const lastEval = lines.filter((r) => r.type === 'eval').at(-1);
  assert.equal(log.evals.at(-1).heldoutLoss, lastEval.heldout_loss);
  assert.deepEqual(log.evals.at(-1).heads.induction, lastEval.heads.induction);
  assert.equal(log.setup.config.model.numKeyValueHeads, config.num_key_value_heads);
  // The finished run's summary: all of its steps, and the shipped evaluation (the lowest held-out loss of the log).
  const best = lines.filter((r) => r.type === 'eval').reduce((a, b) => (b.heldout_loss < a.heldout_loss ? b : a));
  assert.deepEqual([log.summary.steps, log.summary.best.step], [lastStep + 1, best.step]);
  assert.equal(log.summary.best.loss.toFixed(5), best.heldout_loss.toFixed(5));
});
