// Options are checked everywhere (issue 41, item 3): a misspelt option ("casual" for "causal") was
// ignored and the call computed something else. Every call refuses an unknown name with the names it
// takes and the nearest one; PyTorch's bool attn_mask convention (True = blocked) has its own maskKind.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { AttnLabError, init } from '../../web/index.js';
import { nearestName } from '../../web/lib/option-names.js';
import { lab } from './helpers.js';

const matrix = (rows, cols, values) => ({ rows, cols, data: Float32Array.from(values) });
const ones = (rows, cols) => matrix(rows, cols, new Array(rows * cols).fill(1));

// The message for an unknown option: the call, the name, the suggestion, then what the call takes.
const refused = (fn, name, near) => {
  const suggestion = near ? ` — did you mean "${near}"\\?` : '';
  return (error) => error instanceof AttnLabError &&
    new RegExp(`^${fn.replace('.', '\\.')}: unknown option "${name}"${suggestion} \\(it takes [^)]*\\)$`).test(error.message);
};

describe('unknown options are refused with the nearest name', () => {
  test('nearestName: slips (swapped, missing, extra letters, case, snake_case) find their name; far names none', () => {
    assert.equal(nearestName('casual', ['mask', 'causal', 'weights']), 'causal');  // two letters swapped
    assert.equal(nearestName('bais', ['dModel', 'numHeads', 'bias']), 'bias');
    assert.equal(nearestName('threds', ['threads', 'simd']), 'threads');
    assert.equal(nearestName('maxToken', ['maxTokens', 'stopToken']), 'maxTokens');
    assert.equal(nearestName('num_heads', ['dModel', 'numHeads']), 'numHeads');
    assert.equal(nearestName('MaxTokens', ['maxTokens']), 'maxTokens');
    assert.equal(nearestName('colour', ['causal', 'mask', 'weights']), null);
    assert.equal(nearestName('x', ['mask']), null);
  });

  test('the calls the issue names, each with its suggestion', async () => {
    const l = await lab(true);
    const q = matrix(2, 2, [1, 0, 0, 1]);
    assert.throws(() => l.scaledDotProductAttention(q, q, q, { casual: true }), refused('scaledDotProductAttention', 'casual', 'causal'));
    assert.throws(() => l.traceAttention(q, q, q, { casual: true }), refused('traceAttention', 'casual', 'causal'));
    const mha = new l.MultiHeadAttention({ dModel: 4, numHeads: 2, seed: 1 });
    const x = ones(3, 4);
    assert.throws(() => mha.forward(x, x, x, { casual: true }), refused('MultiHeadAttention.forward', 'casual', 'causal'));
    assert.throws(() => mha.trace(x, x, x, { casual: true }), refused('MultiHeadAttention.trace', 'casual', 'causal'));
    assert.throws(() => new l.MultiHeadAttention({ dModel: 4, numHeads: 2, bais: false }), refused('MultiHeadAttention', 'bais', 'bias'));
    assert.throws(() => l.embedTokens(['a', 'b'], 4, { postions: 'sinusoidal' }), refused('embedTokens', 'postions', 'positions'));
    assert.throws(() => l.positionalEncoding(4, 4, 'learned', { sed: 1 }), refused('positionalEncoding', 'sed', 'seed'));
    const layer = new l.TransformerEncoderLayer({ dModel: 4, numHeads: 2, dFF: 8 });
    assert.throws(() => layer.forward(x, { casual: true }), refused('TransformerEncoderLayer.forward', 'casual', 'causal'));
    assert.throws(() => new l.TransformerEncoderLayer({ dModel: 4, numHeads: 2, dff: 8 }), refused('TransformerEncoderLayer', 'dff', 'dFF'));
    // the tensor form of the same calls
    const t = { shape: [1, 2, 2], data: Float32Array.from([1, 0, 0, 1]) };
    assert.throws(() => l.scaledDotProductAttention(t, t, t, { casual: true }), refused('scaledDotProductAttention', 'casual', 'causal'));
    assert.throws(() => mha.forward({ shape: [1, 3, 4], data: x.data }, undefined, undefined, { averageWeight: true }),
      refused('MultiHeadAttention.forward', 'averageWeight', 'averageWeights'));
    await assert.rejects(init({ threds: 2 }), refused('init', 'threds', 'threads'));
  });

  test('the GPT: forward, generate, sample, tokenLosses, headScores, save, loadGPT, createGPT', async () => {
    const l = await lab(true);
    const model = await l.createGPT({ vocabSize: 11, contextLength: 8, dModel: 8, numHeads: 2, numLayers: 1, seed: 3 });
    const ids = [1, 2, 3];
    assert.throws(() => model.forward(ids, { attentions: true }), refused('GPTModel.forward', 'attentions', 'attention'));
    assert.throws(() => model.generate(ids, { maxToken: 5 }), refused('GPTModel.generate', 'maxToken', 'maxTokens'));
    assert.throws(() => model.generate(ids, { temprature: 0.5 }), refused('GPTModel.generate', 'temprature', 'temperature'));
    assert.throws(() => l.sample([0, 1, 2], { temprature: 0.5 }), refused('sample', 'temprature', 'temperature'));
    assert.throws(() => l.sample([0, 1, 2], { contxt: [1] }), refused('sample', 'contxt', 'context'));
    assert.throws(() => model.tokenLosses(ids, { ablation: 'zero', ablte: [] }), refused('GPTModel.tokenLosses', 'ablte', 'ablate'));
    assert.throws(() => model.save({ dtyp: 'F16' }), refused('GPTModel.save', 'dtyp', 'dtype'));
    await assert.rejects(l.loadGPT(model.save(), { num_heads: 2 }), refused('loadGPT', 'num_heads', 'numHeads'));
    await assert.rejects(l.createGPT({ vocabSize: 11, contextLength: 8, dModel: 8, numHeads: 2, numLayer: 1 }),
      /^AttnLabError: createGPT: unknown config field "numLayer" — did you mean "numLayers"\?/);
    // After every refusal the module is as it was: the same logits as a model never refused.
    const again = await l.createGPT({ vocabSize: 11, contextLength: 8, dModel: 8, numHeads: 2, numLayers: 1, seed: 3 });
    assert.deepEqual(model.forward(ids).logits.data, again.forward(ids).logits.data);
  });

  test('loadGPT: a numHeads that differs from the file\'s n_head is refused unless overrideNumHeads says so', async () => {
    const l = await lab(true);
    const model = await l.createGPT({ vocabSize: 11, contextLength: 8, dModel: 8, numHeads: 2, numLayers: 1, seed: 5 });
    const file = model.save();  // its metadata: n_head = 2
    assert.equal((await l.loadGPT(file, { numHeads: 2 })).config.numHeads, 2);
    await assert.rejects(l.loadGPT(file, { numHeads: 4 }), (error) => error instanceof AttnLabError && error.message ===
      'loadGPT: numHeads = 4 (as passed) differs from the metadata n_head = 2 of the file: leave numHeads out to take ' +
      'the count from the file, or override it (overrideNumHeads)');
    const four = await l.loadGPT(file, { numHeads: 4, overrideNumHeads: true });
    assert.equal(four.config.numHeads, 4);
  });

  test('translate names translate (not decode) and lists all its options', async () => {
    const l = await lab(true);
    const { model } = await l.loadBuiltinTranslator();
    assert.throws(() => model.translate('the cat', { bem: 2 }), (error) => error.message ===
      'Seq2SeqModel.translate: unknown option "bem" — did you mean "beam"? (it takes beam, maxTokens, selfAttention)');
    assert.throws(() => model.translate('the cat', { beam: 0 }), /^AttnLabError: Seq2SeqModel\.translate: beam must be an integer ≥ 1, got 0$/);
    assert.throws(() => model.decode([4, 5], { selfAttention: true }), refused('Seq2SeqModel.decode', 'selfAttention', null));
  });

  test('training: TaskModel, startTraining, the translator trainer', async () => {
    const l = await (await lab(true)).loadTraining();
    assert.throws(() => new l.TaskModel({ task: 'sort', dmodel: 16 }), refused('TaskModel', 'dmodel', 'dModel'));
    const model = await l.createGPT({ vocabSize: 11, contextLength: 8, dModel: 8, numHeads: 2, numLayers: 1, seed: 3 });
    assert.throws(() => model.startTraining({ maxLR: 1e-3 }), refused('GPTModel.startTraining', 'maxLR', 'maxLr'));
    await assert.rejects(l.createTranslatorTrainer({ steps: 10 }), refused('createTranslatorTrainer', 'steps', null));
    const trainer = await l.createTranslatorTrainer();
    assert.throws(() => trainer.upcomingBatches(1, { bach: 32 }), refused('TranslatorTrainer.upcomingBatches', 'bach', 'batch'));
    trainer.dispose();
  });
});

describe("maskKind 'block': PyTorch's bool attn_mask (True = blocked)", () => {
  // q = k = I₂, v = [[1, 2], [3, 4]]; blocked: (0, 1) — query 0 may not see key 1.
  const q = matrix(2, 2, [1, 0, 0, 1]);
  const v = matrix(2, 2, [1, 2, 3, 4]);
  // By hand: row 0 sees key 0 alone → v₀; row 1's scaled scores (0, 1/√2) → softmax in double precision.
  const w = [1 / (1 + Math.exp(Math.SQRT1_2)), Math.exp(Math.SQRT1_2) / (1 + Math.exp(Math.SQRT1_2))];
  const expected = [1, 2, w[0] * 1 + w[1] * 3, w[0] * 2 + w[1] * 4];

  test('the Matrix and the tensor forms give the hand-computed output; the binary kind would give another', async () => {
    const l = await lab(true);
    const blocked = matrix(2, 2, [0, 1, 0, 0]);
    const close = (actual) => actual.forEach((value, i) => assert.ok(Math.abs(value - expected[i]) < 1e-6, `${i}: ${value} vs ${expected[i]}`));
    close(l.scaledDotProductAttention(q, q, v, { mask: blocked, maskKind: 'block' }).output.data);
    const tensor = (m) => ({ shape: [1, m.rows, m.cols], data: m.data });
    close(l.scaledDotProductAttention(tensor(q), tensor(q), tensor(v), { mask: tensor(blocked), maskKind: 'block' }).output.data);
    // The same mask read as ours (1 = may attend) lets query 0 see key 1 alone: a different answer.
    assert.deepEqual(Array.from(l.scaledDotProductAttention(q, q, v, { mask: blocked }).output.data.slice(0, 2)), [3, 4]);
    // The caller's mask is not changed.
    assert.deepEqual(Array.from(blocked.data), [0, 1, 0, 0]);
  });

  test('a value other than 0 and 1 is refused, naming maskKind; the Matrix form has no additive kind', async () => {
    const l = await lab(true);
    assert.throws(() => l.scaledDotProductAttention(q, q, v, { mask: matrix(2, 2, [0, 0.5, 0, 0]), maskKind: 'block' }),
      /^AttnLabError: scaledDotProductAttention: mask holds 0\.5 at index 1, but maskKind 'block' takes 0 and 1 \(1 = blocked, as PyTorch's bool attn_mask\)$/);
    assert.throws(() => l.scaledDotProductAttention(q, q, v, { mask: ones(2, 2), maskKind: 'additive' }),
      /maskKind must be one of 'binary', 'block', got 'additive'/);
  });
});
