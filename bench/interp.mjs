// The interpretability calls in the browser, side by side with a plain forward: attnlab-kjv, a
// 24-token prompt pair, headless Chromium, wasm SIMD, one thread. Each call is timed interleaved with
// the others (harness.mjs: median, min and max of 15 samples); the ratios are over the plain forward.
// The targets: runWithCache ≤ 1.5× a forward; the 16-head patching sweep ≤ 100 ms; resid_pre ×
// position (4 layers × 24 positions) ≤ 300 ms; every composition score ≤ 200 ms.
// Writes bench/interp-results.md.   node bench/interp.mjs
import { writeFileSync } from 'node:fs';
import os from 'node:os';

import { launch } from '../tests/e2e/browser.js';
import { serve } from '../tests/e2e/static-server.js';

const repo = new URL('../', import.meta.url).pathname;
const TOKENS = 24;
const TARGETS = { cacheRatio: 1.5, headSweepMs: 100, residSweepMs: 300, compositionMs: 200 };

// ---- in the page (page.evaluate serialises this function: it may use only its argument) ----

async function runBench({ tokens }) {
  const { init } = await import('/web/index.js');
  const { timeInterleaved } = await import('/bench/harness.mjs');
  const lab = await init({ simd: true });
  const { model, tokenizer } = await lab.loadBuiltinModel({ baseUrl: '/web/models/kjv/' });
  // The clean prompt: the first 24 tokens of a verse; the corrupted one changes the name at the start.
  const text = 'And Moses said unto the LORD, Behold, the children of Israel have not hearkened unto me; how then shall Pharaoh hear me';
  const clean = Array.from(tokenizer.encode(text)).slice(0, tokens);
  const corrupted = [...clean];
  corrupted[1] = tokenizer.encode(' Aaron')[0];
  const last = model.forward(clean, { logits: 'last' }).logits.data;
  const order = Array.from(last.keys()).sort((a, b) => last[b] - last[a]);
  const metric = { target: order[0], baseline: order[1] };
  const calls = {
    'forward (all logits)': () => model.forward(clean),
    'runWithCache (every point)': () => model.runWithCache(clean),
    'logitLens (every position)': () => model.logitLens(clean, { k: 5 }),
    'directLogitAttribution': () => model.directLogitAttribution(clean, metric),
    'activationPatching z × head (16 cells)': () => model.activationPatching(clean, corrupted, { what: 'z', per: 'head', metric }),
    'activationPatching resid_pre × position (96 cells)': () => model.activationPatching(clean, corrupted, { what: 'resid_pre', metric }),
    'pathPatching (1 sender, 2 receivers)': () => model.pathPatching(clean, corrupted, {
      sender: { layer: 0, head: 1 }, receivers: [{ layer: 1, head: 0, input: 'k' }, { layer: 2, head: 3, input: 'q' }], metric,
    }),
    'compositionScores (96 pairs, 200 draws)': () => model.compositionScores({ draws: 200 }),
    'headCircuit with copying score (one head)': () => model.headCircuit(1, 2),
  };
  const asyncCalls = new Set(['activationPatching z × head (16 cells)', 'activationPatching resid_pre × position (96 cells)']);
  const impls = Object.entries(calls).map(([name, run]) => ({ name, run, async: asyncCalls.has(name) }));
  const times = await timeInterleaved(impls);
  return { names: impls.map((i) => i.name), times, tokens: clean.length, config: model.config };
}

// ---- in Node ----

const fixed = (x, digits = 2) => x.toFixed(digits);

const { url, close } = await serve(repo);
const browser = await launch();
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${url}/bench/blank.html`);
  const result = await page.evaluate(runBench, { tokens: TOKENS });
  if (errors.length) throw new Error(errors.join('\n'));
  const byName = Object.fromEntries(result.names.map((name, i) => [name, result.times[i]]));
  const forward = byName['forward (all logits)'].median;
  const rows = result.names.map((name) => {
    const t = byName[name];
    return `| ${name} | ${fixed(t.median)} | ${fixed(t.min)}–${fixed(t.max)} | ${fixed(t.median / forward)}× |`;
  });
  const met = (ok) => (ok ? 'met' : '**not met**');
  const cache = byName['runWithCache (every point)'].median / forward;
  const heads = byName['activationPatching z × head (16 cells)'].median;
  const resid = byName['activationPatching resid_pre × position (96 cells)'].median;
  const composition = byName['compositionScores (96 pairs, 200 draws)'].median;
  const cpus = os.cpus();
  const report = `# Interpretability calls in the browser: attnlab-kjv, one thread

Written by \`node bench/interp.mjs\` (${new Date().toISOString().slice(0, 10)}). Headless Chromium ${await browser.version()},
wasm SIMD, one thread; ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}. Model: attnlab-kjv (${result.config.numLayers} layers,
${result.config.numHeads} heads, d_model ${result.config.dModel}, vocabulary ${result.config.vocabSize}); a ${result.tokens}-token prompt
and a corrupted copy (one name changed). Each call timed interleaved with the others: median, min and max of 15
samples (each sample repeats the call for at least 25 ms). Ratio: the call's median over the plain forward's.
The two sweeps are async calls (they yield to the page between layers); their times include those yields.

| call | median ms | min–max ms | × forward |
|---|---|---|---|
${rows.join('\n')}

| target (issue 42) | measured | |
|---|---|---|
| runWithCache ≤ ${TARGETS.cacheRatio}× a forward | ${fixed(cache)}× | ${met(cache <= TARGETS.cacheRatio)} |
| 16-head patching sweep ≤ ${TARGETS.headSweepMs} ms | ${fixed(heads)} ms | ${met(heads <= TARGETS.headSweepMs)} |
| resid_pre × position (4 × 24) ≤ ${TARGETS.residSweepMs} ms | ${fixed(resid)} ms | ${met(resid <= TARGETS.residSweepMs)} |
| every composition score ≤ ${TARGETS.compositionMs} ms | ${fixed(composition)} ms | ${met(composition <= TARGETS.compositionMs)} |
`;
  writeFileSync(new URL('interp-results.md', import.meta.url), report);
  console.log(report);
} finally {
  await browser.close();
  await close();
}
