// Sampling controls through the package: the penalties against the independent PyTorch implementation
// of their published definitions (tests/fixtures/make_sampling_fixtures.py), −Infinity as a blocked
// token, stop tokens, and generate saying why it stopped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { AttnLabError } from '../../web/index.js';
import { lab, VARIANTS } from './helpers.js';

const throwsMessage = (fn, message) => assert.throws(fn, (e) => e instanceof AttnLabError && e.message === message);
const { cases } = JSON.parse(readFileSync(new URL('../fixtures/sampling_penalties.json', import.meta.url), 'utf8'));
const jsOptions = (o) => ({
  temperature: o.temperature, topK: o.top_k, topP: o.top_p, repetitionPenalty: o.repetition_penalty,
  noRepeatNgramSize: o.no_repeat_ngram_size, presencePenalty: o.presence_penalty, frequencyPenalty: o.frequency_penalty,
});

for (const variant of VARIANTS) {
  test(`penalties give PyTorch's distributions for every case (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    await l.loadGPTModule();
    for (const c of cases) {
      const { probabilities } = l.sample(c.logits, { ...jsOptions(c.options), context: c.context });
      c.probabilities.forEach((p, i) => assert.ok(Math.abs(probabilities[i] - p) <= 1e-6, `${c.name}: token ${i}: ${probabilities[i]} vs ${p}`));
    }
  });

  test(`−Infinity is a blocked token in sample, and all −Infinity is an error (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    await l.loadGPTModule();
    const { probabilities } = l.sample([0, -Infinity, Math.log(2), -Infinity]);
    [1 / 3, 0, 2 / 3, 0].forEach((p, i) => assert.ok(Math.abs(probabilities[i] - p) < 1e-6));
    throwsMessage(() => l.sample([-Infinity, -Infinity]), 'sample: every one of the 2 logits is −∞: no token may be drawn');
    throwsMessage(() => l.sample([1, 2], { repetitionPenalty: 0 }), 'sample: repetitionPenalty must be > 0 (1 = off; 1.2 discourages repeats), got 0');
    throwsMessage(() => l.sample([1, 2], { context: [0, 2], repetitionPenalty: 1.2 }), 'sample: context[1] = 2 is not a token id in 0 … 1');
    assert.equal(l.sample([3, 1], { temperature: 0 }).token, 0);  // the module is still usable
  });

  test(`generate says why it stopped and takes stopTokens and the penalties (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const model = await l.createGPT({ vocabSize: 23, contextLength: 10, dModel: 16, numHeads: 2, numLayers: 2, seed: 3 });
    const free = model.generate([1, 2], { maxTokens: 4, seed: 9 });
    assert.equal(free.stopped, 'maxTokens');
    assert.equal(free.tokens.length, 4);
    const full = model.generate([1, 2, 3, 4, 5, 6, 7, 8], { maxTokens: 10 });
    assert.deepEqual([full.tokens.length, full.stopped], [3, 'context']);
    const stopped = model.generate([1, 2], { maxTokens: 4, seed: 9, stopTokens: [free.tokens[0]] });
    assert.deepEqual([Array.from(stopped.tokens), stopped.stopped], [[free.tokens[0]], 'stopToken']);
    // no 1-gram repeats: every generated token is new to the context
    const fresh = model.generate([1, 2, 3], { maxTokens: 8, temperature: 0, noRepeatNgramSize: 1 });
    const all = [1, 2, 3, ...fresh.tokens];
    assert.equal(new Set(all).size, all.length);
    model.dispose();
  });
}
