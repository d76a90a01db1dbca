// The encoder–decoder through the package, in both builds: a learner's own nn.Transformer checkpoint
// (the PyTorch fixtures of tests/fixtures/make_seq2seq_fixtures.py) gives PyTorch's logits, attention
// maps and decodes; the built-in translator translates held-out sentences to their gold French, its
// cross-attention shaped as the decoder's queries × the source words; bad input is refused in the
// package's words and leaves the module usable.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { safetensorsBytes } from '../../site/src/safetensors-file.js';
import { AttnLabError } from '../../web/index.js';
import { lab, VARIANTS } from './helpers.js';

const fixtureDir = new URL('../fixtures/seq2seq/', import.meta.url);
const torchFixture = (name) => ({
  json: JSON.parse(readFileSync(new URL(`${name}.json`, fixtureDir), 'utf8')),
  bytes: new Uint8Array(readFileSync(new URL(`${name}.safetensors`, fixtureDir))),
});

// A .safetensors file's header: { name: { dtype, shape, data_offsets } } in the file's order.
function safetensorsHeader(bytes) {
  const length = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length)));
}

function configOf(c) {
  return { sourceVocabSize: c.source_vocab_size, targetVocabSize: c.target_vocab_size, maxLen: c.max_len,
    dModel: c.d_model, numHeads: c.num_heads, numEncoderLayers: c.num_encoder_layers,
    numDecoderLayers: c.num_decoder_layers, dFf: c.d_ff, normFirst: c.norm_first };
}

function assertMatrixNear(actual, expectedRows, what, tol = 1e-4) {
  assert.equal(actual.rows, expectedRows.length, `${what}: rows`);
  assert.equal(actual.cols, expectedRows[0].length, `${what}: cols`);
  expectedRows.flat().forEach((e, i) => {
    assert.ok(Math.abs(actual.data[i] - e) <= 1e-5 + tol * Math.abs(e), `${what}[${i}]: ${actual.data[i]} vs ${e}`);
  });
}

for (const variant of VARIANTS) {
  test(`loadSeq2Seq (${variant.name}): PyTorch's nn.Transformer numbers, post-norm and pre-norm`, async () => {
    for (const name of ['post_norm', 'pre_norm']) {
      const { json, bytes } = torchFixture(name);
      const model = await (await lab(variant.simd)).loadSeq2Seq(bytes, configOf(json.config));
      const out = model.forward(json.source, json.target);
      assertMatrixNear(out.logits, json.logits, `${name} logits`);
      for (const [kind, key] of [['encoderSelfAttention', 'encoder_self'], ['decoderSelfAttention', 'decoder_self'], ['crossAttention', 'cross']]) {
        json.attention[key].forEach((heads, l) => heads.forEach((m, h) => assertMatrixNear(out[kind][l][h], m, `${name} ${kind}[${l}][${h}]`)));
      }
      const greedy = model.decode(json.source, { maxTokens: json.greedy.max_tokens });
      assert.deepEqual(greedy.tokens, json.greedy.tokens);
      assert.equal(greedy.finished, json.greedy.finished);
      json.greedy.cross_attention.forEach((heads, l) => heads.forEach((m, h) => assertMatrixNear(greedy.crossAttention[l][h], m, `${name} decoded cross[${l}][${h}]`)));
      const beam = model.decode(json.source, { beam: json.beam.beam, maxTokens: json.beam.max_tokens });
      assert.deepEqual(beam.tokens, json.beam.tokens);
      assert.ok(Math.abs(beam.logProb - json.beam.log_prob) < 1e-4);
      model.dispose();
    }
  });

  test(`loadBuiltinTranslator (${variant.name}): held-out sentences to their gold French, alignment rows × columns`, async () => {
    const { model, heldOut, log } = await (await lab(variant.simd)).loadBuiltinTranslator();
    const best = log.summary.bestHeadPerLayer;
    const layer = best.length - 1, head = best[layer].head;
    let aligned = 0, words = 0;
    for (const pair of heldOut.slice(0, 20)) {
      const t = model.translate(pair.english);
      assert.equal(t.text, pair.french, pair.english);
      assert.deepEqual(t.sourceTokens, pair.english.split(' '));
      assert.deepEqual(t.targetTokens, ['<s>', ...pair.french.split(' ')]);
      assert.equal(t.finished, true);
      const m = t.crossAttention[layer][head];
      assert.equal(m.rows, t.targetTokens.length);
      assert.equal(m.cols, t.sourceTokens.length);
      // Row i is the query that produced French word i: its largest weight on the gold English word?
      pair.alignment.forEach((gold, i) => {
        const row = m.data.subarray(i * m.cols, (i + 1) * m.cols);
        aligned += row.indexOf(Math.max(...row)) === gold ? 1 : 0;
        words += 1;
      });
    }
    assert.ok(aligned / words >= 0.8, `the log's best head aligns ${aligned} of ${words} words`);
    const beam = model.translate('the small cat sees the red car', { beam: 4, selfAttention: true });
    assert.equal(beam.text, 'le petit chat voit la voiture rouge');
    assert.equal(beam.encoderSelfAttention[0][0].rows, 7);
    assert.equal(beam.decoderSelfAttention[0][0].rows, 8);
  });

  test(`translate (${variant.name}): empty text, unknown words, too many words, and own checkpoints that do not fit`, async () => {
    const theLab = await lab(variant.simd);
    const { model } = await theLab.loadBuiltinTranslator();
    for (const text of ['', '   ', '?!…']) {
      assert.throws(() => model.translate(text), (e) => e instanceof AttnLabError &&
        e.message.startsWith('Seq2SeqModel.translate: text has no words to translate'));
    }
    const unknown = model.translate('The DRAGON sees the cat!');
    assert.deepEqual(unknown.unknownWords, ['dragon']);
    assert.deepEqual(unknown.sourceTokens, ['the', 'dragon', 'sees', 'the', 'cat']);
    const words = Array(20).fill('cat').join(' ');
    const long = model.translate(`the ${words}`);
    assert.deepEqual(long.truncated, { kept: model.config.maxLen, dropped: 21 - model.config.maxLen });
    assert.equal(long.sourceTokens.length, model.config.maxLen);
    assert.throws(() => model.decode([1, 2], { beam: 0 }), /Seq2SeqModel.decode: beam must be an integer ≥ 1, got 0/);
    assert.throws(() => model.decode([9999]), /Seq2SeqModel.decode: sourceIds\[0\] = 9999 is not a token id in 0 … \d+/);

    const { json, bytes } = torchFixture('post_norm');
    await assert.rejects(theLab.loadSeq2Seq(bytes, { ...configOf(json.config), dFf: 40 }), (e) => e instanceof AttnLabError &&
      e.message === "loadSeq2Seq: 'transformer.encoder.layers.0.linear1.weight' is [32, 16] in the file but [40, 16] for this config");
    await assert.rejects(theLab.loadSeq2Seq(new TextEncoder().encode('not a safetensors file at all'), configOf(json.config)),
      (e) => e instanceof AttnLabError && e.message.startsWith('loadSeq2Seq: '));
    await assert.rejects(theLab.loadSeq2Seq(bytes, { ...configOf(json.config), dModel: 15 }),
      /loadSeq2Seq: config.dModel = 15 is not divisible by config.numHeads = 4/);
    assert.equal(model.translate('the cat sees the dog').text, 'le chat voit le chien', 'still usable');
  });
}

// Mean over heads of one layer's cross-attention, then each row's largest weight: computed here, apart
// from the package's own loop, to check translate()'s unattendedWords.
function mostAttended(heads, rows) {
  const { cols } = heads[0];
  return Array.from({ length: rows }, (_, r) => {
    const mean = Array.from({ length: cols }, (_, j) => heads.reduce((s, m) => s + m.data[r * cols + j], 0) / heads.length);
    return mean.indexOf(Math.max(...mean));
  });
}

test('translate: outside its grammar it says where and what was expected, and which words no French word looked at', async () => {
  const theLab = await lab(true);
  const { model, heldOut } = await theLab.loadBuiltinTranslator();
  // Verdicts by hand from the grammar: subject verb object [preposition noun-phrase]; a noun phrase is
  // determiner [size adjective] [colour adjective] noun, agreeing in number.
  const grammatical = model.translate('The small cat SEES the red car.');
  assert.deepEqual(grammatical.grammar, { inGrammar: true, position: -1, expected: [] });
  assert.deepEqual(model.translate('these cars see my old green houses in a garden').grammar.inGrammar, true);
  const car = model.translate('a blue car is near the big tree');
  assert.equal(car.grammar.inGrammar, false);
  assert.equal(car.grammar.position, 3, '“is” is no verb of the grammar');
  assert.deepEqual(car.grammar.expected, [{ kind: 'a verb agreeing with a singular subject',
    words: ['sees', 'eats', 'likes', 'watches', 'follows', 'finds', 'takes', 'has'] }]);
  const children = model.translate('the children like the white cats');
  assert.equal(children.grammar.position, 1, '“children” is no noun of the grammar');
  assert.deepEqual(children.grammar.expected.map((k) => k.kind),
    ['an adjective French puts before the noun', 'an adjective French puts after the noun', 'a noun']);
  assert.deepEqual(model.translate('the cats sees the dog').grammar.position, 2, 'agreement: “the cats” needs “see”');
  assert.deepEqual(model.translate('the cat sees').grammar, { inGrammar: false, position: 3,
    expected: [{ kind: 'a determiner', words: ['the', 'a', 'some', 'my', 'this', 'these'] }] });
  // The whole text is checked, the words past the model's length too.
  const long = model.translate(`the cat sees the dog ${Array(12).fill('with').join(' ')}`);
  assert.ok(long.truncated);
  assert.equal(long.grammar.position, 6);

  // The ignored words of the example, from the returned cross-attention: the last layer, heads
  // averaged, one row per written word.
  const written = car.targetTokens.length - 1;
  const attended = new Set(mostAttended(car.crossAttention.at(-1), written));
  const expected = car.sourceTokens.map((word, position) => ({ position, word })).filter((w) => !attended.has(w.position));
  assert.deepEqual(car.unattendedWords, expected);
  assert.ok(car.unattendedWords.length >= car.sourceTokens.length - written,
    `${written} written words look at most ${written} English words: ${JSON.stringify(car.unattendedWords)}`);
  assert.deepEqual(car.unknownWords, ['is', 'near', 'tree']);
  // The same measurement on the other sentence of the issue.
  const childrenAttended = new Set(mostAttended(children.crossAttention.at(-1), children.targetTokens.length - 1));
  assert.deepEqual(children.unattendedWords, children.sourceTokens.map((word, position) => ({ position, word }))
    .filter((w) => !childrenAttended.has(w.position)));

  // As the README says: a held-out sentence translated exactly can leave a size adjective unattended.
  const sizes = model.sourceWordKinds.find((k) => k.kind === 'an adjective French puts before the noun').words;
  const exactYetUnattended = heldOut.filter((p) => {
    const t = model.translate(p.english);
    return t.text === p.french && t.unattendedWords.some((w) => sizes.includes(w.word));
  });
  assert.ok(exactYetUnattended.length > 0);

  // Every English word once, by kind; a learner's own checkpoint has no grammar.
  assert.deepEqual(model.sourceWordKinds.flatMap((k) => k.words).sort(), model.sourceTokenizer.vocabulary.slice(4).slice().sort());
  const { json, bytes } = torchFixture('post_norm');
  const own = await theLab.loadSeq2Seq(bytes, configOf(json.config));
  assert.equal(own.sourceWordKinds, null);
  own.dispose();
});

test('createTranslatorTrainer: a fresh translator learns in the page; evaluate and watch are shaped as documented', async () => {
  const theLab = await lab(true);
  const trainer = await theLab.createTranslatorTrainer({ seed: 7 });
  const before = trainer.evaluate(20);
  assert.ok(before.tokenAccuracy < 0.1, `an untrained translator is not already right (${before.tokenAccuracy})`);
  assert.ok(before.loss > 4, `untrained: about log(the French vocabulary) nats per word, got ${before.loss}`);
  const losses = trainer.train(30, { batch: 16 });
  assert.equal(losses.length, 30);
  assert.equal(trainer.steps, 30);
  // (Still in the warm-up: the learning rate rises over the first 200 steps.)
  assert.ok(losses.at(-1) < losses[0] - 0.1, `the loss falls: ${losses[0]} → ${losses.at(-1)}`);
  const after = trainer.evaluate(20);
  assert.ok(after.loss < before.loss);
  assert.equal(after.alignment.length, 2);
  for (const share of after.alignment.flat()) assert.ok(share >= 0 && share <= 1);
  const w = trainer.watch(1);
  assert.equal(w.alignment.length, w.french.length);
  assert.equal(w.crossAttention[1][0].rows, w.french.length + 1, 'a row per French word, and one that writes the end');
  assert.equal(w.crossAttention[1][0].cols, w.english.length);
  assert.throws(() => trainer.watch(100), /TranslatorTrainer.watch: index must be in 0 … 99, got 100/);
  assert.throws(() => trainer.train(0), /TranslatorTrainer.train: count must be an integer ≥ 1, got 0/);
  assert.equal(trainer.train(1).length, 1, 'still usable');
  trainer.dispose();
});

// What a PyTorch program needs to start where a trainer starts (Watch it learn's translation program):
// the weights under nn.Transformer's names, in the order PyTorch's state_dict lists them (the post-norm
// fixture has the trainer's 2 + 2 layers: its names come from PyTorch), and the coming batches' pairs.
test('TranslatorTrainer.parameters and upcomingBatches: nn.Transformer\'s state_dict, and the pairs train() then takes', async () => {
  const theLab = await lab(true);
  const trainer = await theLab.createTranslatorTrainer({ seed: 4 });
  const params = trainer.parameters();
  assert.deepEqual(Object.keys(params), Object.keys(safetensorsHeader(torchFixture('post_norm').bytes)).filter((k) => k !== '__metadata__'),
    'the names and order of PyTorch\'s state_dict for a 2 + 2 layer nn.Transformer and its embeddings');
  const d = 64, [english] = params['src_tok_emb.weight'].shape, [french] = params['generator.bias'].shape;
  assert.deepEqual(params['transformer.decoder.layers.1.multihead_attn.in_proj_weight'].shape, [3 * d, d]);
  assert.deepEqual(params['transformer.encoder.layers.0.linear1.weight'].shape, [256, d]);
  assert.deepEqual(params['generator.weight'].shape, [french, d]);
  for (const [name, t] of Object.entries(params)) {
    assert.ok(t.data instanceof Float32Array && t.data.length === t.shape.reduce((a, b) => a * b, 1), name);
  }

  // The same weights: loaded as a learner's checkpoint, they give the trainer's own cross-attention.
  const config = { sourceVocabSize: english, targetVocabSize: french, maxLen: 16, dModel: d, numHeads: 4,
    numEncoderLayers: 2, numDecoderLayers: 2, dFf: 256, normFirst: false };
  const copy = await theLab.loadSeq2Seq(safetensorsBytes(params), config);
  const watched = trainer.watch(0);
  assert.equal(watched.target[0], 1, 'the decoder reads the start token first');
  assert.equal(watched.source.length, watched.english.length);
  assert.deepEqual(copy.forward(watched.source, watched.target).crossAttention, watched.crossAttention);

  // Looking ahead takes nothing: twice the same pairs, no step taken.
  const ahead = trainer.upcomingBatches(2, { batch: 5 });
  assert.deepEqual(trainer.upcomingBatches(2, { batch: 5 }), ahead);
  assert.equal(trainer.steps, 0);
  assert.equal(ahead.length, 2);
  for (const p of ahead.flat()) {
    assert.equal(p.source.length, p.english.length);
    assert.deepEqual(Array.from(p.target), [1, ...p.targets.slice(0, -1)], 'the decoder reads <s>, then the French it must write');
    assert.equal(p.targets.at(-1), 2, 'the last position writes </s>');
    assert.equal(p.targets.length, p.french.length + 1);
  }
  // The first step trains on the first batch: its loss is the mean cross-entropy over all the batch's
  // French tokens, computed here in double from the copy's logits.
  let sum = 0, tokens = 0;
  for (const p of ahead[0]) {
    const { logits } = copy.forward(p.source, p.target);
    p.targets.forEach((gold, row) => {
      const z = Array.from(logits.data.subarray(row * logits.cols, (row + 1) * logits.cols));
      const top = Math.max(...z);
      sum += top + Math.log(z.reduce((s, v) => s + Math.exp(v - top), 0)) - z[gold];
      tokens++;
    });
  }
  const [loss] = trainer.train(1, { batch: 5 });
  assert.ok(Math.abs(loss - sum / tokens) < 1e-5, `step 1's loss ${loss} is the first batch's mean loss ${sum / tokens}`);
  assert.deepEqual(trainer.upcomingBatches(1, { batch: 5 }), [ahead[1]], 'and the next step will take the second');
  assert.notDeepEqual(trainer.parameters()['generator.bias'].data, params['generator.bias'].data, 'the step changed the weights');

  assert.throws(() => trainer.upcomingBatches(0), /TranslatorTrainer.upcomingBatches: count must be an integer ≥ 1, got 0/);
  assert.throws(() => trainer.upcomingBatches(1, { batch: 1.5 }), /TranslatorTrainer.upcomingBatches: batch must be an integer ≥ 1, got 1.5/);
  copy.dispose();
  trainer.dispose();
  assert.throws(() => trainer.parameters(), /TranslatorTrainer.parameters: called on a disposed object/);
});

test('prefetch: the features it knows, refused otherwise; in Node it fetches nothing and later loads work', async () => {
  const { prefetch } = await import('../../web/index.js');
  assert.throws(() => prefetch(['gpt2']), (e) => e instanceof AttnLabError &&
    e.message === "prefetch: unknown feature 'gpt2' ('referent-model', 'translator', 'training')");
  assert.throws(() => prefetch('translator'), /prefetch: features must be a list such as \['referent-model'\], got 'translator'/);
  assert.equal(prefetch(['translator', 'referent-model', 'training']), undefined);
  const { model } = await (await lab(true)).loadBuiltinTranslator();
  assert.equal(model.translate('the cat sees the dog').text, 'le chat voit le chien');
});
