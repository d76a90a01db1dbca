// The GPT module in Chromium: a checkpoint with GPT-2 small's shapes (124,439,808 parameters, random
// values, written as .safetensors here) loads within a 2 GiB memory budget and runs a 64-token forward
// with every head's attention; the module refuses it under the default 512 MiB budget with a clear
// error and stays usable.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { launch } from './browser.js';
import { GPT2_SMALL, gpt2SmallHeader } from './gpt2-small-file.js';
import { serve } from './static-server.js';

const repo = new URL('../../', import.meta.url).pathname;
let server;
let browser;

before(async () => {
  server = await serve(repo);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('a GPT-2-sized checkpoint loads in Chromium and runs a 64-token forward', { timeout: 300000 }, async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${server.url}/bench/blank.html`);
  const result = await page.evaluate(async ({ header: text, dataBytes: offset, V }) => {
    const { init } = await import('/web/index.js');
    // GPT-2 small's tensors (gpt2-small-file.js), F32, values from a small LCG (the shapes are what is tested)
    const file = new Uint8Array(8 + text.length + offset);
    new DataView(file.buffer).setBigUint64(0, BigInt(text.length), true);
    file.set(new TextEncoder().encode(text), 8);
    const values = new Float32Array(file.buffer, 8 + text.length, offset / 4);
    let state = 1;
    for (let i = 0; i < values.length; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      values[i] = (state / 4294967296 - 0.5) * 0.04;
    }
    const lab = await init();
    let refused = '';
    try {
      await lab.loadGPT(file);
    } catch (error) {
      refused = error.message;
    }
    lab.setMemoryBudget(2 ** 31);
    const start = performance.now();
    const model = await lab.loadGPT(file);
    const loadMs = performance.now() - start;
    const ids = Array.from({ length: 64 }, (_, i) => (i * 7919) % V);
    const t0 = performance.now();
    const out = model.forward(ids, { attention: true });
    const forwardMs = performance.now() - t0;
    let finite = true;
    for (const x of out.logits.data) if (!Number.isFinite(x)) finite = false;
    const result = {
      refused, loadMs, forwardMs, finite, config: model.config, parameters: model.parameterCount(),
      logits: [out.logits.rows, out.logits.cols], heads: out.attention.length * out.attention[0].length,
      heap: lab.memory().gpt.heapSize,
    };
    model.dispose();
    return result;
  }, { ...gpt2SmallHeader(), V: GPT2_SMALL.vocabSize });
  assert.deepEqual(errors, []);
  assert.match(result.refused, /^loadGPT: needs about .* but the memory budget is 512 MiB/);
  assert.equal(result.parameters, 124439808);
  assert.deepEqual(result.config, { vocabSize: 50257, contextLength: 1024, dModel: 768, numHeads: 12, numLayers: 12 });
  assert.deepEqual(result.logits, [64, 50257]);
  assert.equal(result.heads, 144);
  assert.ok(result.finite);
  console.log(`GPT-2-sized checkpoint in Chromium: load ${result.loadMs.toFixed(0)} ms, 64-token forward ${result.forwardMs.toFixed(0)} ms, heap ${(result.heap / 2 ** 20).toFixed(0)} MiB`);
  await page.close();
});
