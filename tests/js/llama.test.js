// The Llama family through the package: lab.loadModel on the random Hugging Face checkpoints of
// tests/fixtures/llama/ (their float64 PyTorch numbers: tests/fixtures/make_llama_fixtures.py), the KV
// cache and StreamingLLM's sinks, the hook points, tokenizer.json against @huggingface/tokenizers live,
// and bad folders named by what is wrong.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';

import { Tokenizer } from '@huggingface/tokenizers';

import { AttnLabError } from '../../web/index.js';
import { lab, VARIANTS } from './helpers.js';

const FIXTURES = new URL('../fixtures/llama/', import.meta.url);
const NAMES = ['llama_gqa', 'qwen2_bias', 'mistral_window', 'llama_mha_sharded'];

// A fixture folder as { name: Uint8Array }, the way a learner's folder pick arrives once read.
function folder(name) {
  const dir = new URL(`${name}/`, FIXTURES);
  const files = {};
  for (const file of readdirSync(dir)) {
    if (file === 'expected.json' || statSync(new URL(file, dir)).isDirectory()) continue;
    files[file] = new Uint8Array(readFileSync(new URL(file, dir)));
  }
  return files;
}
const expected = (name) => JSON.parse(readFileSync(new URL(`${name}/expected.json`, FIXTURES), 'utf8'));

// |ours − reference| ≤ 1e-4 · max(1, max |reference|): the issue's relative tolerance.
function assertRowsNear(matrix, rows, what) {
  assert.equal(matrix.rows, rows.length, `${what}: rows`);
  const largest = Math.max(1, ...rows.flat().map(Math.abs));
  let worst = 0;
  rows.forEach((row, r) => row.forEach((value, c) => {
    worst = Math.max(worst, Math.abs(matrix.data[r * matrix.cols + c] - value));
  }));
  assert.ok(worst <= 1e-4 * largest, `${what}: largest difference ${worst} against entries up to ${largest}`);
}

// A tokenizer.json for the test alone: attnlab-kjv's vocabulary as Hugging Face's ByteLevel BPE.
function kjvTokenizerJson() {
  const vocab = JSON.parse(readFileSync(new URL('../../web/models/kjv/vocab.json', import.meta.url), 'utf8'));
  const merges = readFileSync(new URL('../../web/models/kjv/merges.txt', import.meta.url), 'utf8').split('\n')
    .filter((l) => l && !l.startsWith('#version'));
  return {
    version: '1.0', added_tokens: [{ id: 4095, content: '<|endoftext|>', single_word: false, lstrip: false, rstrip: false,
      normalized: false, special: true }],
    normalizer: null, pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null, decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, ignore_merges: false, vocab, merges },
  };
}

// What a checkpoint's weights take in memory, read from its safetensors header: a BF16 matrix 2 bytes a value
// (kept as the file holds it), every other tensor 4 (float32); a tied lm_head is not kept.
function weightBytesFromHeader(file, tied) {
  const length = Number(new DataView(file.buffer, file.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + length)));
  return Object.entries(header).filter(([name]) => name !== '__metadata__' && !(tied && name === 'lm_head.weight'))
    .reduce((sum, [, t]) => sum + t.shape.reduce((a, b) => a * b, 1) * (t.dtype === 'BF16' && t.shape.length === 2 ? 2 : 4), 0);
}

for (const variant of VARIANTS) {
  test(`a BF16 checkpoint's matrices stay BF16 in memory and give the logits of the same weights in float32 (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const dir = new URL('llama_gqa/bf16/', FIXTURES);
    const files = { 'config.json': readFileSync(new URL('config.json', dir)), 'model.safetensors': new Uint8Array(readFileSync(new URL('model.safetensors', dir))),
      'tokenizer.json': JSON.stringify(kjvTokenizerJson()) };
    const { model } = await l.loadModel(files);
    assert.equal(model.config.weightBytes, weightBytesFromHeader(files['model.safetensors'], model.config.tieWordEmbeddings));
    assert.ok(model.config.weightBytes < 0.55 * 4 * model.parameterCount(), 'about half of float32');
    const { model: widened } = await l.loadModel({ ...files, 'model.safetensors': model.save({ dtype: 'F32' }) });
    assert.equal(widened.config.weightBytes, 4 * widened.parameterCount());
    const { prompt } = expected('llama_gqa');
    for (const n of [1, 2, 5, prompt.length]) {
      assert.deepEqual(model.forward(prompt.slice(0, n)).logits.data, widened.forward(prompt.slice(0, n)).logits.data, `${n} tokens`);
    }
    const step = (m) => { const s = m.session(); s.append(prompt.slice(0, 4)); return s.append(prompt[4]).logits.data; };
    assert.deepEqual(step(model), step(widened), 'a decode step through the cache');
    assertRowsNear(model.forward(prompt).logits, expected('llama_gqa').logits_bf16, 'against the float64 reference on the BF16 weights');
    model.dispose();
    widened.dispose();
  });

  test(`loadModel reads each family's checkpoint and computes PyTorch's logits (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    for (const name of NAMES) {
      const want = expected(name);
      const files = { ...folder(name), 'tokenizer.json': JSON.stringify(kjvTokenizerJson()) };
      const progress = [];
      const { model, tokenizer, family } = await l.loadModel(files, { onProgress: (p) => progress.push(p) });
      assert.equal(family, JSON.parse(new TextDecoder().decode(files['config.json'])).model_type);
      assert.equal(model.family, family);
      assert.equal(model.parameterCount(), want.parameter_count, name);
      assert.equal(model.config.kvCacheBytesPerToken, want.kv_cache_bytes_per_token, name);
      assertRowsNear(model.forward(want.prompt).logits, want.logits, `${name} logits`);
      assertRowsNear(model.forward(want.prompt, { firstPosition: 7 }).logits, want.logits_shifted_7, `${name} shifted`);
      assertRowsNear(model.forward(want.prompt, { ablate: [{ layer: 1, head: 0 }] }).logits, want.logits_ablate_1_0, `${name} ablated`);
      const generated = model.generate(want.prompt, { maxTokens: 6, temperature: 0 });
      assert.deepEqual([...generated.tokens], want.greedy_6, `${name} greedy`);
      const sinks = model.session({ sinks: 2, window: 4 });
      assertRowsNear(sinks.append(want.stream).logits, want.stream_sinks_2_window_4, `${name} sinks`);
      const n = want.stream.length;
      assert.deepEqual([...sinks.cachedTokens()], [0, 1, n - 4, n - 3, n - 2, n - 1]);
      assert.equal(sinks.cacheBytes, 6 * want.kv_cache_bytes_per_token);
      assert.equal(tokenizer.vocabSize, 4096);
      model.dispose();
    }
  });

  test(`runWithCache keeps TransformerLens's hook points with PyTorch's values (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const { model } = await l.loadModel({ ...folder('llama_gqa'), 'tokenizer.json': JSON.stringify(kjvTokenizerJson()) });
    const want = expected('llama_gqa');
    const { cache } = model.runWithCache(want.prompt);
    assert.deepEqual(cache.names().sort(), Object.keys(want.hooks).sort());
    assert.deepEqual(cache.get('blocks.0.attn.hook_rot_k').shape, [12, 2, 8]);  // per key/value head
    assert.deepEqual(cache.get('blocks.0.attn.hook_rot_q').shape, [12, 6, 8]);
    for (const name of ['blocks.1.attn.hook_pattern', 'blocks.0.attn.hook_rot_k', 'blocks.1.mlp.hook_post', 'ln_final.hook_scale']) {
      const ours = cache.get(name);
      const ref = want.hooks[name].values;
      const largest = Math.max(1, ...ref.map(Math.abs));
      ref.forEach((v, i) => assert.ok(Math.abs(ours.data[i] - v) <= 1e-4 * largest, `${name}[${i}]: ${ours.data[i]} vs ${v}`));
    }
    assert.throws(() => cache.get('blocks.0.attn.hook_rot_kk'), /did you mean "blocks.0.attn.hook_rot_k"/);
  });

  test(`the interpretability calls on a Llama agree with their float64 definitions (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    for (const name of ['llama_gqa', 'llama_mha_sharded']) {
      const { model } = await l.loadModel({ ...folder(name), 'tokenizer.json': JSON.stringify(kjvTokenizerJson()) });
      const want = expected(name);
      const { target, baseline, lens, attribution, patching } = want.interp;
      const T = want.prompt.length;
      // The logit lens: every resid_pre and resid_mid, then the model's own last row.
      const ours = model.logitLens(want.prompt, { k: 3, target });
      assert.deepEqual(ours.points.slice(0, -1), lens.map((p) => p.point), name);
      lens.forEach((point, i) => point.top_ids.forEach((ids, p) => {
        assert.deepEqual(ours.cells[i][p].top.map((t) => t.id), ids, `${name} ${point.point} position ${p}`);
        assert.ok(Math.abs(ours.cells[i][p].target.probability - point.target_probability[p]) < 1e-5);
        assert.equal(ours.cells[i][p].target.rank, point.target_rank[p]);
      }));
      // Attribution: the same parts, summing to the logit difference.
      const a = model.directLogitAttribution(want.prompt, { target, baseline });
      assert.deepEqual(a.terms.map((t) => t.label), attribution.labels);
      a.terms.forEach((t, i) => assert.ok(Math.abs(t.value - attribution.values[i]) < 1e-4 * Math.abs(attribution.logit), t.label));
      assert.ok(Math.abs(a.sum - attribution.logit) < 1e-4 * Math.abs(attribution.logit));
      // Patching: per head at z, per key/value head at k.
      const metric = { target, baseline };
      const gap = Math.abs(patching.clean_metric - patching.corrupted_metric);
      const tolerance = 2e-4 * Math.max(Math.abs(patching.clean_metric), Math.abs(patching.corrupted_metric)) / gap;
      for (const [what, key] of [['z', 'z/head'], ['k', 'k/head']]) {
        const progress = [];
        const result = await model.activationPatching(want.prompt, patching.corrupted, { what, per: 'head', metric, onProgress: (p) => progress.push(p.done) });
        const reference = patching.grids[key];
        assert.deepEqual(result.grid.shape, [reference.length, reference[0].length], `${name} ${key}`);
        reference.flat().forEach((v, i) => assert.ok(Math.abs(result.grid.data[i] - v) < tolerance, `${name} ${key}[${i}]: ${result.grid.data[i]} vs ${v}`));
        assert.deepEqual(progress, reference.map((_, i) => i + 1));
        assert.ok(Math.abs(result.clean - patching.clean_metric) < 1e-4 * Math.abs(patching.clean_metric));
      }
      // Path patching: each case of make_llama_fixtures.py's two steps (k and v receivers are key/value heads).
      for (const { sender, receivers, normalised } of want.interp.path_patching) {
        const got = model.pathPatching(want.prompt, patching.corrupted, { sender: { layer: sender[0], head: sender[1] }, metric,
          receivers: receivers.map(([layer, head, input]) => ({ layer, head, input })) });
        assert.ok(Math.abs(got.normalised - normalised) < tolerance, `${name} path ${JSON.stringify({ sender, receivers })}: ${got.normalised} vs ${normalised}`);
      }
      // The same pair measured the other way round (baseline − target): the clean run no longer favours the
      // target, so the sweep is refused with PyTorch's two values (issue 51).
      await assert.rejects(model.activationPatching(want.prompt, patching.corrupted, { what: 'z', per: 'head', metric: { target: baseline, baseline: target } }),
        (e) => e instanceof AttnLabError && /^LlamaModel\.activationPatching: the clean prompt does not favour/.test(e.message) &&
          e.message.includes((-patching.clean_metric).toFixed(3)) && e.message.includes((-patching.corrupted_metric).toFixed(3)));
      // Circuits: the copying scores (layers × heads) and the composition scores.
      const copying = model.copyingScores();
      want.interp.copying_scores.forEach((v, i) => assert.ok(Math.abs(copying.data[i] - v) < 1e-4, `${name} copying ${i}`));
      // Under TransformerLens's processing (an RMSNorm's: folded, not centred), against make_llama_fixtures.py.
      for (const [key, scores] of Object.entries(want.interp.copying_processed)) {
        const processed = model.copyingScores({ foldLn: key.includes('foldLn'), centreUnembed: key.includes('centreUnembed') });
        scores.forEach((v, i) => assert.ok(Math.abs(processed.data[i] - v) < 1e-4, `${name} ${key} copying ${i}`));
      }
      const composition = model.compositionScores({ draws: 5 });
      want.interp.composition.forEach(([, , , , q, k, v], i) => {
        const pair = composition.pairs[i];
        assert.ok(Math.abs(pair.q - q) < 1e-4 && Math.abs(pair.k - k) < 1e-4 && Math.abs(pair.v - v) < 1e-4, `${name} pair ${i}`);
      });
      // fold_ln for an RMSNorm (nothing centred), as the reference folds it; centreWriting refused, as for copying.
      const folded = model.compositionScores({ draws: 5, foldLn: true });
      want.interp.composition_folded.forEach(([, , , , q, k, v], i) => {
        const pair = folded.pairs[i];
        assert.ok(Math.abs(pair.q - q) < 1e-4 && Math.abs(pair.k - k) < 1e-4 && Math.abs(pair.v - v) < 1e-4, `${name} folded pair ${i}`);
      });
      assert.throws(() => model.compositionScores({ centreWriting: true }), /LlamaModel\.compositionScores: .*centre_writing needs a LayerNorm/);
      const circuit = model.headCircuit(0, 1, { distance: 3 });
      assert.deepEqual([circuit.wQ.rows, circuit.wQ.cols, circuit.wO.rows], [model.config.hiddenSize, model.config.headDim, model.config.headDim]);
      assert.ok(Math.abs(circuit.copyingScore - want.interp.copying_scores[1]) < 1e-4);
      // runWithHooks: zeroing head 0's z in layer 1 is the forward's ablation; kept points by name.
      const patched = model.runWithHooks(want.prompt, { patch: [{ name: 'blocks.1.attn.hook_z', ablate: 'zero', heads: [0] }], keep: ['blocks.1.attn.hook_z'] });
      assertRowsNear(patched.logits, want.logits_ablate_1_0, `${name} runWithHooks`);
      assert.deepEqual(patched.cache.names(), ['blocks.1.attn.hook_z']);
      assert.ok(patched.cache.get('blocks.1.attn.hook_z').data.slice(0, model.config.headDim).every((x) => x === 0));
      // The same ablation as a hook function (TransformerLens's fwd_hooks): head 0's columns of z set to 0 in place.
      const hd = model.config.headDim;
      const seen = [];
      const zeroed = model.runWithHooks(want.prompt, { hooks: [
        { name: 'blocks.0.attn.hook_rot_k', fn: (value, hook) => { seen.push([hook.name, value.shape]); } },
        { name: 'blocks.1.attn.hook_z', fn: (z) => { for (let t = 0; t < z.shape[0]; t++) z.data.fill(0, t * z.shape[1] * hd, t * z.shape[1] * hd + hd); } },
      ] });
      assertRowsNear(zeroed.logits, want.logits_ablate_1_0, `${name} runWithHooks with a hook function`);
      assert.deepEqual(seen, [['blocks.0.attn.hook_rot_k', [want.prompt.length, model.config.numKeyValueHeads, hd]]]);
      assert.throws(() => model.runWithHooks(want.prompt, { hooks: [{ name: 'blocks.1.attn.hook_z', fn: (z) => { z.data[0] = NaN; } }] }),
        /LlamaModel.runWithHooks: .*a hook function left a NaN or \+∞ in blocks.1.attn.hook_z/);
      const { cache } = model.runWithCache(want.prompt, { names: ['blocks.0.hook_resid_pre'], firstPosition: 2 });
      assert.deepEqual(cache.names(), ['blocks.0.hook_resid_pre']);
      assert.equal(model.hookNames().length, 3 + 20 * model.config.numLayers);
      const kvHeads = model.config.numKeyValueHeads;
      assert.throws(() => model.pathPatching(want.prompt, want.interp.patching.corrupted, { sender: { layer: 0, head: 0 },
        receivers: [{ layer: 1, head: kvHeads, input: 'v' }], metric: { target: want.interp.target, baseline: want.interp.baseline } }),
      (e) => e instanceof AttnLabError &&
        e.message.includes(`a receiver must be ${kvHeads < model.config.numHeads ? 'a key/value head' : 'a head'} (0 … ${kvHeads - 1})`));
      // Bad input names the call and the point; the model stays usable.
      assert.throws(() => model.runWithCache(want.prompt, { names: ['blocks.0.attn.hook_rotq'] }),
        (e) => e instanceof AttnLabError && /LlamaModel.runWithCache: .*did you mean "blocks.0.attn.hook_rot_q"/.test(e.message));
      assert.throws(() => model.runWithHooks(want.prompt, { patch: [{ name: 'blocks.0.attn.hook_v', ablate: 'zero', heads: [9] }] }),
        /LlamaModel.runWithHooks: .*patch\[0\] \(blocks.0.attn.hook_v\) heads holds 9, outside the point's heads 0 … \d/);
      assert.throws(() => model.headCircuit(0, 0, { distanse: 1 }), /LlamaModel.headCircuit: .*distanse/);
      await assert.rejects(model.activationPatching(want.prompt, want.prompt.slice(1), { what: 'z', metric }),
        /the clean prompt has 12 tokens and the corrupted prompt 11/);
      assert.equal(model.forward(want.prompt).logits.rows, T);
      model.dispose();
    }
  });

  test(`tokenizer.json encodes as @huggingface/tokenizers does (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const json = kjvTokenizerJson();
    const { tokenizer } = await l.loadModel({ ...folder('qwen2_bias'), 'tokenizer.json': JSON.stringify(json) });
    const reference = new Tokenizer(json, {});
    for (const text of ['And God said, Let there be light: and there was light.', "I'm   here\n\n\tnow 12345 café 👍🏽 中文",
      'said<|endoftext|>unto']) {
      const ids = tokenizer.encode(text);
      assert.deepEqual([...ids], reference.encode(text).ids, text);
      assert.equal(tokenizer.decode(ids), text);
    }
    assert.equal(tokenizer.decode([295, 4095], { skipSpecialTokens: true }), tokenizer.decode([295]));
    // A normalizer of NFC (Qwen2's) is applied by the package before the core sees the text.
    const nfc = { ...json, normalizer: { type: 'NFC' } };
    const { tokenizer: qwenLike } = await l.loadModel({ ...folder('qwen2_bias'), 'tokenizer.json': JSON.stringify(nfc) });
    assert.equal(qwenLike.normalizer, 'NFC');
    const decomposed = 'e\u0301clair Ångström';
    assert.deepEqual([...qwenLike.encode(decomposed)], new Tokenizer(nfc, {}).encode(decomposed).ids);
    assert.notDeepEqual([...qwenLike.encode(decomposed)], [...tokenizer.encode(decomposed)]);
  });

  test(`bad folders are refused by name and the module stays usable (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const good = { ...folder('llama_gqa'), 'tokenizer.json': JSON.stringify(kjvTokenizerJson()) };
    const refuses = async (files, message) => {
      await assert.rejects(l.loadModel(files), (e) => e instanceof AttnLabError && e.message === message);
    };
    await refuses({ ...good, 'config.json': '{"model_type": "gemma2"}' },
      "loadModel: config.json's model_type 'gemma2' is not supported (supported: llama, qwen2, mistral, gpt2)");
    const noTokenizer = { ...good };
    delete noTokenizer['tokenizer.json'];
    await refuses(noTokenizer,
      'loadModel: no tokenizer.json among the files (given: config.json, model.safetensors): the model\'s tokenizer is needed');
    const config = JSON.parse(new TextDecoder().decode(good['config.json']));
    await refuses({ ...good, 'config.json': JSON.stringify({ ...config, num_key_value_heads: 4 }) },
      'loadModel: num_attention_heads = 6 is not divisible by num_key_value_heads = 4 (each key/value head serves a whole group of query heads)');
    await refuses({ ...good, 'config.json': JSON.stringify({ ...config, intermediate_size: 96 }) },
      "loadModel: tensor 'model.layers.0.mlp.gate_proj.weight' has shape [80, 48] but this config needs [96, 48]");
    const sharded = folder('llama_mha_sharded');
    delete sharded['model-00002-of-00002.safetensors'];
    await assert.rejects(l.loadModel({ ...sharded, 'tokenizer.json': JSON.stringify(kjvTokenizerJson()) }),
      /loadModel: model\.safetensors\.index\.json names model-00002-of-00002\.safetensors, which is not among the files/);
    await refuses({ ...good, 'tokenizer.json': '{"model": {"type": "WordPiece", "vocab": {}}}' },
      'loadModel: the model WordPiece is not supported (supported: BPE)');
    const { model } = await l.loadModel(good);
    assert.equal(model.forward([1, 2, 3]).logits.rows, 3);
    assert.throws(() => model.session({ sinks: 2 }), /sinks = 2 needs a window > 0/);
  });
}
