// The GPT module through the package: the KV-cache session against the full forward, checkpoints
// saved and loaded, sampling against hand-computed distributions, training, and errors by name.
// (PyTorch's numbers for the same files: gpt-fixtures.test.js.)
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { AttnLabError } from '../../web/index.js';
import { assertClose, lab, VARIANTS } from './helpers.js';

const throwsMessage = (fn, message) => assert.throws(fn, (e) => e instanceof AttnLabError && e.message === message);
const CONFIG = { vocabSize: 23, contextLength: 10, dModel: 16, numHeads: 2, numLayers: 2 };
const row = (m, r) => ({ rows: 1, cols: m.cols, data: m.data.slice(r * m.cols, (r + 1) * m.cols) });

for (const variant of VARIANTS) {
  test(`the KV cache gives the full forward's logits and attention rows (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const model = await l.createGPT({ ...CONFIG, seed: 4 });
    assert.deepEqual(model.config, CONFIG);
    assert.equal(model.parameterCount(), 23 * 16 + 10 * 16 + 2 * (12 * 16 * 16 + 13 * 16) + 2 * 16);
    const ids = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3];
    const full = model.forward(ids, { attention: true });
    assert.equal(full.logits.rows, 10);
    assert.equal(full.attention.length, 2);
    assert.equal(full.attention[1].length, 2);
    const session = model.session();
    ids.forEach((id, t) => {
      const step = session.append(id);
      assertClose({ rows: 1, cols: 23, data: step.logits }, row(full.logits, t), { rtol: 1e-5, atol: 1e-5, what: `logits ${t}` });
      const fullRow = row(full.attention[1][0], t);
      assertClose(step.attention[1][0], { rows: 1, cols: t + 1, data: fullRow.data.slice(0, t + 1) }, { what: `weights ${t}` });
    });
    assert.equal(session.length, 10);
    const { keys, values } = session.cache(0);
    assert.equal(keys.rows, 10);
    assert.equal(values.cols, 16);
    throwsMessage(() => session.append(1), 'GPTSession.append: the context is full: 10 tokens = contextLength (reset() to start again)');
    assert.equal(session.reset().length, 0);
    // multiply-adds: 2 layers × (12·16² + 2·n·16) + 23·16 with the cache
    assert.equal(model.multiplyAdds(4), 2 * (12 * 256 + 2 * 4 * 16) + 23 * 16);
    assert.equal(model.multiplyAdds(4, { cache: false }), 2 * (4 * 12 * 256 + 2 * 10 * 16) + 23 * 16);
    session.dispose();
    model.dispose();
  });

  test(`save and load round-trip, ablation changes the logits, generation is seeded (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const model = await l.createGPT({ ...CONFIG, seed: 7 });
    const bytes = model.save();
    const loaded = await l.loadGPT(bytes);
    const ids = [1, 2, 3, 4];
    assert.deepEqual(loaded.forward(ids).logits, model.forward(ids).logits);
    const half = await l.loadGPT(model.save({ dtype: 'F16' }).buffer);
    assertClose(half.forward(ids).logits, model.forward(ids).logits, { atol: 1e-2, rtol: 1e-2 });
    assert.deepEqual(model.tensorNames().slice(0, 4), ['wte.weight', 'wpe.weight', 'h.0.ln_1.weight', 'h.0.ln_1.bias']);
    assert.deepEqual(model.tensor('h.1.mlp.c_fc.weight').shape, [16, 64]);
    const zeroed = model.forward(ids, { ablate: [{ layer: 0, head: 1 }] }).logits;
    assert.notDeepEqual(zeroed, model.forward(ids).logits);
    const a = model.generate(ids, { maxTokens: 5, seed: 3, temperature: 0.7 });
    assert.deepEqual(a, model.generate(ids, { maxTokens: 5, seed: 3, temperature: 0.7 }));
    assert.equal(a.tokens.length, 5);
    assert.equal(model.tokenLosses(ids).length, 3);
    const scores = model.headScores(ids, { repeatLength: 4 });
    assert.equal(scores.induction.rows, 2);
    for (const m of [model, loaded, half]) m.dispose();
    throwsMessage(() => model.forward(ids), 'GPTModel.forward: called on a disposed object');
  });

  test(`sample follows the hand-computed distribution (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    await l.loadGPTModule();
    const logits = [0, Math.log(2), Math.log(3), Math.log(4)];  // softmax 0.1, 0.2, 0.3, 0.4
    const close = (actual, expected) => expected.forEach((p, i) => assert.ok(Math.abs(actual[i] - p) < 1e-6, `${i}: ${actual[i]} vs ${p}`));
    close(l.sample(logits).probabilities, [0.1, 0.2, 0.3, 0.4]);
    close(l.sample(logits, { topK: 2 }).probabilities, [0, 0, 3 / 7, 4 / 7]);
    close(l.sample(logits, { topP: 0.85 }).probabilities, [0, 2 / 9, 3 / 9, 4 / 9]);
    close(l.sample(logits, { temperature: 0.5 }).probabilities, [1 / 30, 4 / 30, 9 / 30, 16 / 30]);
    assert.equal(l.sample(logits, { temperature: 0 }).token, 3);
    assert.equal(l.sample(logits, { seed: 5 }).token, l.sample(logits, { seed: 5 }).token);
    throwsMessage(() => l.sample(logits, { topP: 0 }), 'sample: topP must be in (0, 1], got 0');
    throwsMessage(() => l.sample([1, NaN]), 'sample: logits[1] is NaN (only −∞, a blocked token, may be non-finite)');
  });

  test(`training steps lower the loss (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const model = await l.createGPT({ ...CONFIG, seed: 1 });
    model.startTraining({ maxLr: 1e-2, minLr: 1e-3, warmupSteps: 3, totalSteps: 60 });
    const ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18];
    const targets = ids.map((id) => (id + 1) % 23);
    const first = model.trainStep(ids, targets, 2);
    assert.ok(Math.abs(first.loss - Math.log(23)) < 0.3, `first loss ${first.loss}`);
    let last = first;
    for (let s = 1; s < 60; s++) last = model.trainStep(ids, targets, 2);
    assert.equal(last.step, 60);
    assert.ok(last.loss < first.loss / 10, `last loss ${last.loss}`);
    assert.ok(model.loss(ids, targets, 2) < first.loss / 10);
    throwsMessage(() => model.trainStep(ids, targets, 4), 'GPTModel.trainStep: ids has 18 tokens, which is not 4 sequences of equal length');
    model.dispose();
  });

  test(`bad arguments are AttnLabErrors naming the call, and the module stays usable (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const model = await l.createGPT({ ...CONFIG, seed: 2 });
    throwsMessage(() => model.forward([1, 23]), 'GPTModel.forward: ids[1] = 23 is outside the vocabulary 0 … 22');
    throwsMessage(() => model.forward([1, 2.5]), 'GPTModel.forward: ids[1] must be an integer ≥ 0, got 2.5');
    throwsMessage(() => model.forward('abc'), "GPTModel.forward: ids must be an array of token ids (or an Int32Array), got 'abc'");
    throwsMessage(() => model.forward(new Array(11).fill(1)), "GPTModel.forward: a sequence of 11 tokens is longer than the model's contextLength = 10");
    throwsMessage(() => model.forward([1], { ablate: [{ layer: 2, head: 0 }] }),
      'GPTModel.forward: ablate names layer 2, head 0 but the model has layers 0 … 1 and heads 0 … 1');
    throwsMessage(() => model.forward([1], { logits: 'first' }), "GPTModel.forward: logits must be one of 'all', 'last', 'none', got 'first'");
    throwsMessage(() => model.save({ dtype: 'F64' }), "GPTModel.save: dtype must be one of 'F32', 'F16', 'BF16', got 'F64'");
    await assert.rejects(l.loadGPT(new Uint8Array([1, 2, 3])), (e) => e instanceof AttnLabError && e.message.startsWith('loadGPT: '));
    await assert.rejects(l.createGPT({ ...CONFIG, numHeads: 3 }),
      (e) => e instanceof AttnLabError && e.message === 'createGPT: dModel = 16 is not divisible by numHeads = 3');
    await assert.rejects(l.loadGPT('x'), (e) => e instanceof AttnLabError && e.message === "loadGPT: bytes must be a Uint8Array or ArrayBuffer of a .safetensors file, got 'x'");
    assert.equal(model.forward([1, 2]).logits.rows, 2);
    model.dispose();
  });
}

for (const variant of VARIANTS) {
  test(`a batch of sequences: each sequence's logits and attention are the one-sequence forward's, bit for bit (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const model = await l.createGPT({ ...CONFIG, seed: 5 });
    const sequences = [[3, 1, 4, 1, 5], [9, 2, 6, 0, 0]];  // the second padded at the end with id 0
    const batch = model.forward({ shape: [2, 5], data: sequences.flat() }, { attention: true });
    assert.deepEqual(batch.logits.shape, [2, 5, 23]);
    assert.equal(batch.attention.length, 2);
    assert.deepEqual(batch.attention[1].shape, [2, 2, 5, 5]);
    sequences.forEach((ids, b) => {
      const one = model.forward(ids, { attention: true });
      assert.deepEqual(batch.logits.data.slice(b * 115, (b + 1) * 115), one.logits.data, `logits of sequence ${b}`);
      for (let layer = 0; layer < 2; layer++) {
        for (let head = 0; head < 2; head++) {
          const at = (b * 2 + head) * 25;
          assert.deepEqual(batch.attention[layer].data.slice(at, at + 25), one.attention[layer][head].data, `layer ${layer}, head ${head}`);
        }
      }
    });
    // Padding at the end leaves a sequence's own positions as they were, up to float rounding (a
    // product's blocking depends on the length: the scalar build differs in the last bits): the first 3 of sequence 1.
    const short = model.forward([9, 2, 6]);
    assertClose({ rows: 3, cols: 23, data: batch.logits.data.slice(115, 115 + 69) }, short.logits, { rtol: 1e-5, atol: 1e-5, what: 'padded' });
    const last = model.forward({ shape: [2, 5], data: sequences.flat() }, { logits: 'last' });
    assert.deepEqual(last.logits.shape, [2, 1, 23]);
    assert.deepEqual(last.logits.data.slice(0, 23), batch.logits.data.slice(92, 115));
    assert.equal(model.forward({ shape: [2, 5], data: sequences.flat() }, { logits: 'none' }).logits, null);
    throwsMessage(() => model.forward({ shape: [2, 4], data: sequences.flat() }), 'GPTModel.forward: ids.data has 10 ids but ids is (2, 4) (8 ids)');
    throwsMessage(() => model.forward({ shape: [10], data: sequences.flat() }),
      'GPTModel.forward: ids must be token ids [n] or a batch { shape: [batch, seq], data }, got shape (10)');
    throwsMessage(() => model.forward({ shape: [2, 5], data: sequences.flat() }, { trace: true }),
      'GPTModel.forward: trace is for one sequence: pass its ids [n] (a batch would trace each sequence the same way)');
    model.dispose();
  });
}
