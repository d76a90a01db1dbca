// attnlab's own trained model as the package ships it (web/models/kjv/, made by scripts/train-model.sh):
// it loads with one call, has the committed config's shape, tokenizes the corpus's text back exactly,
// its heads do measurable jobs (the package in wasm reproduces the induction scores the native
// trainer logged, and an induction head makes a repeated random sequence's second copy cheap), and it
// has read Genesis.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { AttnLabError } from '../../web/index.js';
import { allInOrder } from '../../web/lib/builtin-model.js';
import { lab } from './helpers.js';

const MODEL_DIR = new URL('../../web/models/kjv/', import.meta.url);
const config = JSON.parse(readFileSync(new URL('training-config.json', MODEL_DIR), 'utf8'));
const rejectsWith = (promise, message) => assert.rejects(promise, (e) => e instanceof AttnLabError && e.message === message);

test('loadBuiltinModel gives the committed config\'s model and a tokenizer that round-trips the corpus', async () => {
  const l = await lab(true);
  const { model, tokenizer } = await l.loadBuiltinModel();
  assert.deepEqual(model.config, {
    vocabSize: config.tokenizer.vocab_size, contextLength: config.model.context_length, dModel: config.model.d_model,
    numHeads: config.model.num_heads, numLayers: config.model.num_layers,
  });
  assert.equal(tokenizer.vocabSize, config.tokenizer.vocab_size);
  const verse = 'In the beginning God created the heaven and the earth.\n';
  const { logits } = model.forward(tokenizer.encode('In the beginning God created the heaven and the'));
  const last = Array.from(logits.data.slice(-logits.cols));
  // It has read Genesis 1:1: ' earth' is its likeliest next token, with probability ≥ 0.4 (chance is
  // 1/4096; this model gives 0.47). The model it replaced put ' heaven' first (0.26 against 0.25), its
  // induction heads pulling harder towards the ' heaven' two tokens back.
  const top = last.map((x, i) => [x, i]).sort((a, b) => b[0] - a[0]);
  const earth = top.findIndex(([, i]) => tokenizer.decode([i]) === ' earth');
  const max = top[0][0];
  const probability = Math.exp(top[earth][0] - max) / last.reduce((s, x) => s + Math.exp(x - max), 0);
  assert.ok(earth === 0 && probability >= 0.4, `' earth' is its choice number ${earth + 1} at probability ${probability}`);
  const ids = tokenizer.encode(verse);
  assert.equal(tokenizer.decode(ids), verse);
  assert.ok(ids.length < verse.split(' ').length + 4, `a learned vocabulary: ${ids.length} tokens for a 10-word verse`);
  model.dispose();
});

test('the built-in model copies from context with its induction heads, as its log says', async () => {
  const l = await lab(true);
  const { model, tokenizer } = await l.loadBuiltinModel();
  const log = await l.loadBuiltinTrainingLog();
  const text = tokenizer.encode('And the LORD spake unto Moses, saying, Speak unto the children of Israel, and say unto them, ' +
                                'When a man shall vow a vow unto the LORD, he shall not break his word.');
  // The trainer's options for the random repeated sequences: 8 samples, seed 0, learned tokens only.
  const scores = model.headScores(text, { samples: 8, seed: 0, tokenLow: 256, tokenHigh: config.tokenizer.vocab_size - 1 });
  // A head that spread its weight evenly over the ~75 positions it sees would score about 0.015; the
  // model was trained until one head of each kind put most of its weight where its job says (≥ 0.5).
  const max = (m) => Math.max(...m.data);
  assert.ok(max(scores.induction) >= 0.5, `best induction score ${max(scores.induction)}`);
  assert.ok(max(scores.previousToken) >= 0.5, `best previous-token score ${max(scores.previousToken)}`);
  // The second copy of 50 random tokens: each next token is predictable only by looking back.
  const ids = l.repeatedRandomTokens(50, { low: 256, high: config.tokenizer.vocab_size - 1, seed: 9 });
  const losses = model.tokenLosses(ids);
  const mean = (from, to) => losses.slice(from, to).reduce((s, x) => s + x, 0) / (to - from);
  assert.ok(mean(50, 99) < mean(0, 49) - 3, `first copy ${mean(0, 49)} nats, second ${mean(50, 99)}`);
  // Induction and duplicate-token scores use no text: wasm must reproduce the native trainer's, which
  // it rounded to 3 decimals.
  for (const name of ['induction', 'duplicateToken']) {
    const logged = log.summary.heads[name].flat();
    Array.from(scores[name].data).forEach((v, i) => assert.ok(Math.abs(v - logged[i]) <= 1e-3, `${name}[${i}] ${v} vs ${logged[i]}`));
  }
  model.dispose();
});

test('the training log: every step, a first loss near ln(vocab) (uniform guessing), held-out loss below the bigram\'s', async () => {
  const log = await (await lab(true)).loadBuiltinTrainingLog();
  assert.equal(log.steps.length, config.training.steps);
  assert.ok(Math.abs(log.steps[0].loss - Math.log(config.tokenizer.vocab_size)) < 0.1, `first loss ${log.steps[0].loss}`);
  assert.equal(log.setup.corpus.verses, 31102);  // the King James Bible's verse count
  assert.equal(log.setup.corpus.chapters, 1189);
  assert.ok(log.summary.heldoutLossF16 < log.summary.baselines.bigram - 0.5);
  // the summary's n-gram baselines are the setup's
  assert.equal(log.summary.baselines.bigram, log.setup.baselines.bigram);
  assert.ok(log.summary.baselines.bigram < log.summary.baselines.unigram);
});

test('allInOrder: when several reads fail, the error is the first in list order, whichever failed first', async () => {
  const later = new Promise((_, reject) => setTimeout(() => reject(new Error('first file')), 20));
  const sooner = Promise.reject(new Error('second file'));
  await assert.rejects(allInOrder([later, sooner, Promise.resolve(3)]), { message: 'first file' });
  assert.deepEqual(await allInOrder([Promise.resolve(1), 2]), [1, 2]);
});

test('loadBuiltinTokenizer: the built-in model\'s tokenizer without its weights', async () => {
  const l = await lab(true);
  const tokenizer = await l.loadBuiltinTokenizer();
  const { tokenizer: withModel, model } = await l.loadBuiltinModel();
  const text = 'And God said, Let there be light: and there was light. U.S.A. 3.14 café';
  assert.deepEqual(Array.from(tokenizer.encode(text)), Array.from(withModel.encode(text)));
  assert.equal(tokenizer.decode(tokenizer.encode(text)), text);
  assert.equal(tokenizer.vocabSize, config.tokenizer.vocab_size);
  await rejectsWith(l.loadBuiltinTokenizer({ baseUrl: 'file:///nonexistent/' }),
    'loadBuiltinTokenizer: could not read /nonexistent/vocab.json (ENOENT)');
  model.dispose();
});

test('loadBuiltinModel: a bad baseUrl is an AttnLabError naming it, and the next call still works', async () => {
  const l = await lab(true);
  await rejectsWith(l.loadBuiltinModel({ baseUrl: 'models' }), 'loadBuiltinModel: baseUrl must name a folder (end in "/"), got "models"');
  await rejectsWith(l.loadBuiltinModel({ baseUrl: 42 }), 'loadBuiltinModel: baseUrl must be a string or URL, got 42');
  await rejectsWith(l.loadBuiltinModel({ baseUrl: 'file:///nonexistent/' }),
    'loadBuiltinModel: could not read /nonexistent/model.safetensors (ENOENT)');
  await rejectsWith(l.loadBuiltinTrainingLog({ baseUrl: 'file:///nonexistent/' }),
    'loadBuiltinTrainingLog: could not read /nonexistent/training-log.jsonl (ENOENT)');
  const { model } = await l.loadBuiltinModel({ baseUrl: MODEL_DIR });
  assert.equal(model.config.numLayers, config.model.num_layers);
  model.dispose();
});
