// GPT inference in the browser: attnlab (wasm SIMD, one thread) against onnxruntime-web (wasm backend,
// numThreads 1) in the same headless Chromium page, on the same weights: attnlab's F16-decoded floats,
// read here in Node and written into hand-built ONNX graphs (bench/onnx-gpt-graph.mjs).
//   1. a 128-token forward with every head's attention (GPTModel.forward vs graph (a));
//   2. greedy generation with the KV cache from a 16-token prompt until the context is full
//      (GPTModel.generate and a GPTSession.append loop vs graph (b) looped in JS, present K/V fed back).
// The two are checked against each other first (logits, attention weights, greedy tokens); the run
// fails if they disagree. Writes bench/gpt-inference-results.md.
//   node bench/gpt-inference.mjs [model.safetensors]   (default web/models/kjv/model.safetensors)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

import { launch } from '../tests/e2e/browser.js';
import { serve } from '../tests/e2e/static-server.js';
import { init } from '../web/index.js';
import { gptDecodeModel, gptForwardModel } from './onnx-gpt-graph.mjs';

const repo = new URL('../', import.meta.url).pathname;
const DEFAULT_MODELS = ['web/models/kjv/model.safetensors', '/tmp/pilot/model.safetensors'];  // the second: a same-shaped pilot checkpoint
const FORWARD_TOKENS = 128;
const PROMPT_TOKENS = 16;
const FORWARD_RUNS = 30;
const GENERATION_RUNS = 11;
const WARMUP_RUNS = 3;
const MAX_LOGIT_DIFFERENCE = 1e-3;
const TARGETS = { forwardMs: 16, tokensPerSecond: 500 };

function modelPath() {
  const path = process.argv[2] ?? DEFAULT_MODELS.map((p) => (p.startsWith('/') ? p : repo + p)).find(existsSync);
  if (!path || !existsSync(path)) throw new Error(`gpt-inference: no model file (tried ${process.argv[2] ?? DEFAULT_MODELS.join(', ')})`);
  return path;
}

// The model's config and every tensor as attnlab decodes it (F16/BF16 → F32), for the ONNX graphs.
async function readWeights(bytes) {
  const lab = await init();
  const model = await lab.loadGPT(bytes);
  const tensors = Object.fromEntries(model.tensorNames().map((name) => [name, model.tensor(name)]));
  const result = { config: model.config, parameters: model.parameterCount(), tensors };
  model.dispose();
  return result;
}

// ---- in the page (page.evaluate serialises these functions: they may use only their arguments) ----

// Loads both implementations from the page's server and defines globalThis.bench: the runs to compare
// and time. Files under /gpt-bench/ are answered from memory by page.route (see openPage).
async function installBench({ forwardTokens, promptTokens }) {
  const { init } = await import('/web/index.js');
  const ort = await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
  const { greedy, int64, ortGenerate } = await import('/bench/ort-gpt-page.mjs');
  ort.env.wasm.numThreads = 1;
  const bytes = async (name) => new Uint8Array(await (await fetch(`/gpt-bench/${name}`)).arrayBuffer());
  const lab = await init({ simd: true });
  const model = await lab.loadGPT(await bytes('model.safetensors'));
  const sessionOptions = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const forwardSession = await ort.InferenceSession.create(await bytes('forward.onnx'), sessionOptions);
  const decodeSession = await ort.InferenceSession.create(await bytes('decode.onnx'), sessionOptions);
  const { vocabSize, contextLength } = model.config;

  // Fixed pseudo-random token ids: the same work every run, for both sides.
  const ids = Array.from({ length: forwardTokens }, (_, i) => (i * 7919 + 13) % vocabSize);
  const prompt = ids.slice(0, promptTokens);
  const newTokens = contextLength - promptTokens;  // the prompt plus the tokens fed back fill the context
  const idsTensor = int64(ort, ids);

  async function sessionGenerate() {
    const session = model.session();
    try {
      return await greedy((id) => session.append(id).logits, prompt, newTokens);
    } finally {
      session.dispose();
    }
  }

  const runs = {
    forward: {
      attnlab: () => model.forward(ids, { attention: true }),
      'attnlab, logits only': () => model.forward(ids),
      'onnxruntime-web': () => forwardSession.run({ ids: idsTensor }),
    },
    generation: {
      'attnlab GPTModel.generate': () => Array.from(model.generate(prompt, { temperature: 0, maxTokens: newTokens }).tokens),
      'attnlab GPTSession.append loop': sessionGenerate,
      'onnxruntime-web': () => ortGenerate(ort, decodeSession, model.config, prompt, newTokens),
    },
  };

  // Largest |a − b| between attnlab's and ort-web's outputs, and whether every generator agrees.
  async function compare() {
    const ours = model.forward(ids, { attention: true });
    const theirs = await forwardSession.run({ ids: idsTensor });
    const maxDifference = (a, b) => a.reduce((worst, x, i) => Math.max(worst, Math.abs(x - b[i])), 0);
    const n = forwardTokens;
    let attention = 0;
    ours.attention.forEach((heads, l) => heads.forEach((w, h) => {
      attention = Math.max(attention, maxDifference(w.data, theirs[`attention_${l}`].data.subarray(h * n * n, (h + 1) * n * n)));
    }));
    const generated = {};
    for (const [name, run] of Object.entries(runs.generation)) generated[name] = await run();
    return { logits: maxDifference(ours.logits.data, theirs.logits.data), attention, generated, newTokens };
  }

  // Milliseconds per run of each of `group`'s runs, interleaved (a, b, c, a, b, c, …) so a change in the
  // machine's load touches all of them alike; `warmup` untimed rounds first.
  async function time(group, rounds, warmup) {
    const entries = Object.entries(runs[group]);
    const ms = Object.fromEntries(entries.map(([name]) => [name, []]));
    for (let r = 0; r < warmup + rounds; r++) {
      for (const [name, run] of entries) {
        const start = performance.now();
        await run();
        if (r >= warmup) ms[name].push(performance.now() - start);
      }
    }
    return ms;
  }

  globalThis.bench = { compare, time, ortVersion: ort.env.versions?.web ?? '' };
}

// ---- in Node ----

// A page of the repo's server with attnlab and ort-web loaded; `files` (name → bytes) are served
// from memory under /gpt-bench/ (the model may live outside the repo; the graphs are never on disk).
async function openPage(browser, url, files) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.route('**/gpt-bench/*', (route) => {
    const body = files[new URL(route.request().url()).pathname.split('/').pop()];
    return body ? route.fulfill({ body: Buffer.from(body), contentType: 'application/octet-stream' }) : route.fulfill({ status: 404 });
  });
  await page.goto(`${url}/bench/blank.html`);
  await page.evaluate(installBench, { forwardTokens: FORWARD_TOKENS, promptTokens: PROMPT_TOKENS });
  return { page, errors };
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p10: at(0.1), p90: at(0.9), min: sorted[0], max: sorted.at(-1) };
}

// Throws (the run fails) unless both sides computed the same logits and generated the same tokens.
function checkAgreement({ logits, attention, generated }) {
  const [reference, ...others] = Object.entries(generated);
  const disagreeing = others.filter(([, tokens]) => tokens.join() !== reference[1].join()).map(([name]) => name);
  console.log(`max |logit difference| ${logits.toExponential(2)}, max |attention difference| ${attention.toExponential(2)}, ` +
    `greedy tokens ${disagreeing.length ? `DIFFER (${disagreeing.join(', ')} vs ${reference[0]})` : 'identical'}`);
  if (!(logits <= MAX_LOGIT_DIFFERENCE) || disagreeing.length) {
    for (const [name, tokens] of Object.entries(generated)) console.error(`${name}: ${tokens.join(' ')}`);
    throw new Error(`gpt-inference: attnlab and onnxruntime-web disagree (max |logit difference| ${logits}, limit ${MAX_LOGIT_DIFFERENCE})`);
  }
}

const fixed = (x, digits = 2) => x.toFixed(digits);
const ORT = 'onnxruntime-web';

// Rows of a results table; `ratio` is ort-web's median time over this row's (> 1: ahead of ort-web).
function forwardRows(ms) {
  const ort = stats(ms[ORT]).median;
  return Object.entries(ms).map(([name, values]) => {
    const s = stats(values);
    return `| ${name} | ${fixed(s.median)} | ${fixed(s.p10)}–${fixed(s.p90)} | ${fixed(s.min)}–${fixed(s.max)} | ${fixed(ort / s.median)}× |`;
  });
}

function generationRows(ms, newTokens) {
  const ort = stats(ms[ORT]).median;
  return Object.entries(ms).map(([name, values]) => {
    const s = stats(values.map((v) => newTokens / (v / 1000)));
    return `| ${name} | ${Math.round(s.median)} | ${Math.round(s.min)}–${Math.round(s.max)} | ${fixed(1000 / s.median, 3)} | ${fixed(ort / stats(values).median)}× |`;
  });
}

function targetRows(forwardMs, generationMs, newTokens) {
  const median = (values) => stats(values).median;
  const forward = median(forwardMs.attnlab);
  const ortForward = median(forwardMs[ORT]);
  const ortGeneration = median(generationMs[ORT]);
  const met = (ok) => (ok ? 'met' : '**not met**');
  return [
    `| 128-token forward with every head's attention < ${TARGETS.forwardMs} ms | ${fixed(forward)} ms | ${met(forward < TARGETS.forwardMs)} |`,
    `| forward ahead of onnxruntime-web | ${fixed(ortForward / forward)}× | ${met(forward < ortForward)} |`,
    ...Object.keys(generationMs).filter((name) => name !== ORT).flatMap((name) => {
      const ms = median(generationMs[name]);
      return [
        `| ${name}: ≥ ${TARGETS.tokensPerSecond} tokens/s | ${Math.round(newTokens / (ms / 1000))} tokens/s | ${met(newTokens / (ms / 1000) >= TARGETS.tokensPerSecond)} |`,
        `| ${name}: ahead of onnxruntime-web | ${fixed(ortGeneration / ms)}× | ${met(ms < ortGeneration)} |`,
      ];
    }),
  ];
}

function report({ path, config, parameters, chromium, ortVersion, agreement, forwardMs, generationMs, load }) {
  const { newTokens } = agreement;
  const cpus = os.cpus();
  return `# GPT inference in the browser: attnlab vs onnxruntime-web

\`node bench/gpt-inference.mjs\` (via \`scripts/bench.sh\`), ${new Date().toISOString().slice(0, 10)}, ${cpus[0].model}, ${cpus.length} cores
(1-minute load average ${load.toFixed(1)} when the run began${load >= 0.5 ? ': other work shared the machine, widening the spreads' : ''}),
headless Chromium ${chromium}, onnxruntime-web ${ortVersion}.
Model: \`${path.replace(repo, '')}\`: vocab ${config.vocabSize}, context ${config.contextLength}, d_model ${config.dModel},
${config.numHeads} heads, ${config.numLayers} layers (${parameters.toLocaleString('en-US')} parameters), tied output.
Both run in one page on the main thread, one thread each: attnlab's SIMD wasm build, and onnxruntime-web's
wasm backend (numThreads 1, graph optimisation 'all') on ONNX opset-17 graphs built from attnlab's decoded
weights by \`bench/onnx-gpt-graph.mjs\`. Runs of the implementations are interleaved; ${WARMUP_RUNS} warm-up rounds first.

Agreement, checked before timing: max |logit difference| on the 128-token forward ${agreement.logits.toExponential(2)}
(limit ${MAX_LOGIT_DIFFERENCE}), max |attention weight difference| ${agreement.attention.toExponential(2)};
the ${newTokens} greedy tokens are identical for all three generators.

## 128-token forward with every head's attention

\`model.forward(ids, { attention: true })\` (logits 128×${config.vocabSize} and ${config.numLayers}×${config.numHeads} attention matrices
128×128, copied out of the wasm heap) vs \`session.run\` fetching the logits and each layer's [${config.numHeads}×128×128] weights.
The logits-only row is for reference (same forward, no attention copied out). ${FORWARD_RUNS} runs each.

| implementation | median ms | p10–p90 ms | min–max ms | ort-web time ÷ this |
|---|---|---|---|---|
${forwardRows(forwardMs).join('\n')}

## Greedy generation with the KV cache

A ${PROMPT_TOKENS}-token prompt fed one token at a time, then ${newTokens} greedy (argmax) tokens, the last
${newTokens - 1} fed back: ${config.contextLength} decoding steps in all, the whole context (${PROMPT_TOKENS} + 128 would not fit).
Tokens/s = ${newTokens} new tokens ÷ the whole run's time (prompt included). \`GPTModel.generate\`
(temperature 0) runs the loop inside wasm; the \`GPTSession.append\` loop and onnxruntime-web's loop run in JS
with the argmax in JS (ort-web's present K/V tensors fed back as the next past). ${GENERATION_RUNS} runs each.

| implementation | tokens/s (median) | min–max tokens/s | ms / new token | ort-web time ÷ this |
|---|---|---|---|---|
${generationRows(generationMs, newTokens).join('\n')}

## Targets

| target | measured | |
|---|---|---|
${targetRows(forwardMs, generationMs, newTokens).join('\n')}
`;
}

const load = os.loadavg()[0];
const path = modelPath();
const modelBytes = readFileSync(path);
const { config, parameters, tensors } = await readWeights(modelBytes);
const files = {
  'model.safetensors': modelBytes,
  'forward.onnx': gptForwardModel(tensors, config, FORWARD_TOKENS),
  'decode.onnx': gptDecodeModel(tensors, config),
};
const server = await serve(repo);
const browser = await launch();
try {
  const { page, errors } = await openPage(browser, server.url, files);
  const agreement = await page.evaluate(() => globalThis.bench.compare());
  checkAgreement(agreement);
  const forwardMs = await page.evaluate(([rounds, warmup]) => globalThis.bench.time('forward', rounds, warmup), [FORWARD_RUNS, WARMUP_RUNS]);
  const generationMs = await page.evaluate(([rounds, warmup]) => globalThis.bench.time('generation', rounds, warmup), [GENERATION_RUNS, WARMUP_RUNS]);
  if (errors.length) throw new Error(`gpt-inference: errors in the page: ${errors.join('; ')}`);
  const ortVersion = await page.evaluate(() => globalThis.bench.ortVersion);
  const text = report({ path, config, parameters, chromium: browser.version(), ortVersion, agreement, forwardMs, generationMs, load });
  writeFileSync(new URL('gpt-inference-results.md', import.meta.url), text);
  console.log(text);
} finally {
  await browser.close();
  await server.close();
}
