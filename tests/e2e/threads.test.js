// Threads in Chromium (issue: use every core): on a cross-origin-isolated page init() loads the
// threaded build and uses every core the browser reports; its results are bit-identical to the
// single-threaded build's (attention, multi-head attention with every head's weights, a GPT's forward
// with every head's attention, and GPT training steps), it matches the PyTorch fixtures as the
// single-threaded builds do, and errors stay AttnLabErrors. A page that is not isolated, or
// init({ threads: 1 }), gets the single-threaded build.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { launch } from './browser.js';
import { serve } from './static-server.js';

const repo = new URL('../../', import.meta.url).pathname;
const ISOLATION = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
let isolated;
let plain;
let browser;

before(async () => {
  isolated = await serve(repo, 0, { headers: ISOLATION });
  plain = await serve(repo);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await isolated?.close();
  await plain?.close();
});

async function blankPage(server) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(`${server.url}/bench/blank.html`);
  return { page, errors };
}

// Runs the same work in a lab from init(options): attention, MHA, a GPT's forward and three training
// steps. Every array comes back as a plain list of numbers, so two runs compare exactly.
async function runWork(page, options) {
  return page.evaluate(async (initOptions) => {
    const { init } = await import('/web/index.js');
    const lab = await init(initOptions);
    const rand = (rows, cols, seed) => {
      let state = seed;
      const data = new Float32Array(rows * cols);
      for (let i = 0; i < data.length; i++) {
        state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
        data[i] = state / 4294967296 - 0.5;
      }
      return { rows, cols, data };
    };
    const list = (m) => Array.from(m.data);
    const q = rand(300, 64, 1), k = rand(300, 64, 2), v = rand(300, 64, 3);
    const full = lab.scaledDotProductAttention(q, k, v, { causal: true });
    const outputOnly = lab.scaledDotProductAttention(q, k, v, { weights: false });
    const mha = new lab.MultiHeadAttention({ dModel: 128, numHeads: 8, seed: 4 });
    const x = rand(200, 128, 5);
    const heads = mha.forward(x, x, x, { causal: true });
    const gpt = await lab.createGPT({ vocabSize: 500, contextLength: 128, dModel: 128, numHeads: 4, numLayers: 2, seed: 6 });
    const ids = Array.from({ length: 128 }, (_, i) => (i * 37 + 11) % 500);
    const forward = gpt.forward(ids, { attention: true });
    gpt.startTraining({ maxLr: 1e-3, minLr: 1e-4, warmupSteps: 1, totalSteps: 10 });
    const batch = Array.from({ length: 4 * 128 }, (_, i) => (i * 53 + 7) % 500);
    const targets = Array.from({ length: 4 * 128 }, (_, i) => (i * 29 + 3) % 500);
    const losses = [0, 1, 2].map(() => gpt.trainStep(batch, targets, 4).loss);
    gpt.dispose();
    return {
      threads: lab.threads,
      isolated: globalThis.crossOriginIsolated,
      cores: navigator.hardwareConcurrency,
      attention: [list(full.weights), list(full.output), list(outputOnly.output)],
      mha: [list(heads.output), ...heads.weights.map(list)],
      gpt: [list(forward.logits), ...forward.attention.flat().map(list), losses],
    };
  }, options);
}

test('an isolated page runs the threaded build on every core, bit-identical to one thread', { timeout: 180000 }, async () => {
  const { page, errors } = await blankPage(isolated);
  const threaded = await runWork(page, {});
  const single = await runWork(page, { threads: 1 });
  await page.close();
  assert.equal(threaded.isolated, true);
  assert.equal(threaded.threads, Math.min(8, threaded.cores));
  assert.ok(threaded.threads >= 2, `this machine reports ${threaded.cores} cores`);
  assert.equal(single.threads, 1);
  for (const part of ['attention', 'mha', 'gpt']) {
    assert.equal(threaded[part].length, single[part].length);
    threaded[part].forEach((values, i) => assert.deepEqual(values, single[part][i], `${part} [${i}] differs between 1 and ${threaded.threads} threads`));
  }
  assert.deepEqual(errors, []);
});

// The main thread waits for its pool inside a parallel loop; Emscripten's glue warns about any such
// wait once ("Blocking on the main thread is very dangerous"), which a learner's console should not show
// for a wait that cannot hang (the package starts the pool before the module is used). Eight cores
// reported, so the work is split among workers even on a smaller test machine.
test('the threaded build leaves no warning about blocking the main thread on the console', { timeout: 180000 }, async () => {
  const page = await browser.newPage();
  await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 8 }));
  const messages = [];
  page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
  await page.goto(`${isolated.url}/bench/blank.html`);
  const { threads } = await runWork(page, {});
  await page.close();
  assert.equal(threads, 8);
  assert.deepEqual(messages.filter((m) => /blocking/i.test(m)), []);
});

test('a page that is not isolated gets the single-threaded build with the same results', { timeout: 120000 }, async () => {
  const { page: isolatedPage } = await blankPage(isolated);
  const threaded = await runWork(isolatedPage, {});
  await isolatedPage.close();
  const { page, errors } = await blankPage(plain);
  const single = await runWork(page, {});
  await page.close();
  assert.equal(single.isolated, false);
  assert.equal(single.threads, 1);
  assert.deepEqual(single.gpt, threaded.gpt);
  assert.deepEqual(single.attention, threaded.attention);
  assert.deepEqual(errors, []);
});

test('the threaded build matches the PyTorch fixtures and keeps errors as AttnLabErrors', { timeout: 120000 }, async () => {
  const { page, errors } = await blankPage(isolated);
  const result = await page.evaluate(async () => {
    const { init, AttnLabError } = await import('/web/index.js');
    const lab = await init();
    const fixture = await (await fetch('/tests/fixtures/gpt/small.json')).json();
    const bytes = new Uint8Array(await (await fetch('/tests/fixtures/gpt/small.safetensors')).arrayBuffer());
    const model = await lab.loadGPT(bytes);
    const out = model.forward(fixture.ids, { attention: true });
    let worst = 0;
    const compare = (m, rows) => rows.flat().forEach((e, i) => {
      worst = Math.max(worst, Math.abs(m.data[i] - e) / (1e-4 + 1e-4 * Math.abs(e)));
    });
    compare(out.logits, fixture.logits);
    fixture.attention.forEach((heads, l) => heads.forEach((w, h) => compare(out.attention[l][h], w)));
    const refused = [];
    for (const call of [() => lab.scaledDotProductAttention({ rows: 2, cols: 3, data: new Float32Array(6) },
      { rows: 2, cols: 4, data: new Float32Array(8) }, { rows: 2, cols: 4, data: new Float32Array(8) }),
    () => model.forward([0, 1, 1e6])]) {
      try {
        call();
        refused.push('no error');
      } catch (error) {
        refused.push(error instanceof AttnLabError ? error.message : `not an AttnLabError: ${error}`);
      }
    }
    const again = model.forward(fixture.ids).logits.data[0];
    let badThreads;
    try {
      await init({ threads: 0 });
    } catch (error) {
      badThreads = `${error.name}: ${error.message}`;
    }
    return { threads: lab.threads, worst, refused, again, expectedFirst: fixture.logits[0][0], badThreads };
  });
  await page.close();
  assert.ok(result.threads >= 2);
  assert.ok(result.worst <= 1, `logits or attention off PyTorch's by ${result.worst} × (1e-4 + 1e-4·|x|)`);
  assert.equal(result.refused[0], 'scaledDotProductAttention: K is 2×4 but Q is 2×3 (d_k must match)');
  assert.match(result.refused[1], /^GPTModel\.forward: .*ids\[2\] = 1000000 is outside the vocabulary/);
  assert.ok(Math.abs(result.again - result.expectedFirst) <= 1e-4 * (1 + Math.abs(result.expectedFirst)));
  assert.equal(result.badThreads, "AttnLabError: init: threads must be 'auto' or a whole number ≥ 1, got 0");
  assert.deepEqual(errors, []);
});

// Under Trusted Types the workers start from the package's own 'attnlab' policy: a page whose CSP
// allows it runs threaded; a page whose trusted-types list leaves it out gets one thread and works.
test('Trusted Types: the attnlab policy starts the workers; a page that refuses it gets one thread', { timeout: 120000 }, async () => {
  const policy = (names) => ({ ...ISOLATION, 'content-security-policy': `require-trusted-types-for 'script'; trusted-types ${names}` });
  const allowing = await serve(repo, 0, { headers: policy('attnlab') });
  const refusing = await serve(repo, 0, { headers: policy('someone-else') });
  try {
    const seen = [];
    for (const server of [allowing, refusing]) {
      const { page, errors } = await blankPage(server);
      const result = await page.evaluate(async () => {
        const { init } = await import('/web/index.js');
        const lab = await init();
        const w = lab.scaledDotProductAttention(lab.randn(300, 64, 1), lab.randn(300, 64, 2), lab.randn(300, 64, 3)).weights;
        return { threads: lab.threads, first: w.data[0], isolated: globalThis.crossOriginIsolated };
      });
      seen.push({ ...result, errors });
      await page.close();
    }
    const [allowed, refused] = seen;
    assert.equal(allowed.isolated, true);
    assert.ok(allowed.threads >= 2, `threads ${allowed.threads}`);
    assert.equal(refused.threads, 1);
    assert.equal(refused.first, allowed.first, 'the same numbers either way');
    assert.deepEqual(allowed.errors, []);
    // The browser itself reports the refused policy, which tells the author what to add.
    assert.equal(refused.errors.length, 1, refused.errors.join('\n'));
    assert.match(refused.errors[0], /TrustedTypePolicy named 'attnlab' violates .*trusted-types someone-else/);
  } finally {
    await allowing.close();
    await refusing.close();
  }
});
