// Threads in the browser: attnlab's threaded build against its single-threaded one, and against
// onnxruntime-web and tfjs-backend-wasm with the same number of threads, in headless Chromium on a
// cross-origin-isolated page (COOP + COEP, which WebAssembly threads need). Two pages: one where the
// peers run on one thread, one where they use every core the browser reports. The same seeded inputs
// everywhere; each peer's output is checked against attnlab's first. Medians of RUNS timed runs, in blocks (see measure).
//   1. the attention core softmax(Q·Kᵀ/√d)·V, seq 256 / 512 / 1024, d_k 64 (attnlab: weights: false);
//   2. multi-head self-attention, d_model 512, 8 heads, seq 128 / 512;
//   3. attnlab-kjv (the shipped GPT): a 128-token forward with every head's attention, greedy
//      generation with the KV cache from 16 tokens to the full context (onnxruntime-web on the same
//      weights for both), and one training step of 16 × 128 tokens (AdamW) on a model of its size.
// And natively: bench/gpt_training_native.cpp's training step on 1 thread and on every core.
// Writes bench/threads-results.md.   node bench/threads.mjs   (scripts/bench.sh builds the native part)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

import { launch } from '../tests/e2e/browser.js';
import { serve } from '../tests/e2e/static-server.js';
import { init } from '../web/index.js';
import { gptDecodeModel, gptForwardModel } from './onnx-gpt-graph.mjs';
import { attentionCoreModel, multiHeadModel } from './onnx-graphs.mjs';

const repo = new URL('../', import.meta.url).pathname;
const ISOLATION = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
const CORE_SEQ = [256, 512, 1024];
const MHA_SEQ = [128, 512];
const RUNS = 30;
const WARMUP = 1;

// The ONNX graphs, built here in Node (the MHA graph needs the MHA's weights, from attnlab's seed 7;
// the GPT graphs attnlab-kjv's weights as attnlab decodes them).
async function graphs() {
  const lab = await init();
  const out = {};
  for (const n of CORE_SEQ) out[`core-${n}.onnx`] = attentionCoreModel(n, 64);
  for (const n of MHA_SEQ) {
    const mha = new lab.MultiHeadAttention({ dModel: 512, numHeads: 8, seed: 7 });
    out[`mha-${n}.onnx`] = multiHeadModel(n, 512, 8, mha.weights());
    mha.dispose();
  }
  const model = await lab.loadGPT(readFileSync(`${repo}web/models/kjv/model.safetensors`));
  const tensors = Object.fromEntries(model.tensorNames().map((name) => [name, model.tensor(name)]));
  out['gpt-forward.onnx'] = gptForwardModel(tensors, model.config, model.config.contextLength);
  out['gpt-decode.onnx'] = gptDecodeModel(tensors, model.config);
  model.dispose();
  return out;
}

// ---- in the page (serialised by page.evaluate: only its argument is in scope) ----
// Times attnlab with 1 thread and with every core (two labs in this page), and onnxruntime-web with
// `ortThreads`. Each library runs in short blocks of its own, ten rounds of blocks, with a pause before
// each block: both libraries' threads keep spinning for a while after a run (attnlab's for 20 ms),
// and a spinning thread from one block would otherwise take a core from the next. The rounds spread
// a change in the machine's load over every column.
async function measure({ ortThreads, coreSeq, mhaSeq, runs, warmup }) {
  const { init } = await import('/web/index.js');
  const ort = await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
  ort.env.wasm.numThreads = ortThreads;
  const labs = [await init({ threads: 1 }), await init()];
  const tf = await loadTfjs(ortThreads);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const pause = () => new Promise((resolve) => setTimeout(resolve, 60));
  const ROUNDS = 10;  // this VM's speed drifts over seconds: short blocks, many rounds
  // Untimed calls for at least `ms` milliseconds and `calls` calls.
  async function untimed(fn, ms, calls) {
    for (let i = 0, start = performance.now(); i < calls || performance.now() - start < ms; i++) await fn();
  }
  // Medians of `count` timed runs of each function, in ROUNDS blocks. First each runs untimed for a
  // second: V8 compiles a hot wasm function's optimised code in the background, and separately in each
  // worker, so the threaded build's first ~20 calls are slow. Each block starts with 40 ms of untimed
  // calls: after the pause the threads sleep, and a worker woken in Chromium here takes 1–17 ms to start.
  async function time(fns, count = runs, calls = warmup) {
    const ms = fns.map(() => []);
    for (const fn of fns) {
      await pause();
      await untimed(fn, 1000, calls);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [j, fn] of fns.entries()) {
        await pause();
        await untimed(fn, 40, calls);
        for (let i = 0; i < Math.ceil(count / ROUNDS); i++) {
          const start = performance.now();
          await fn();
          ms[j].push(performance.now() - start);
        }
      }
    }
    return ms.map(median);
  }
  const worst = (a, b) => a.reduce((w, x, i) => Math.max(w, Math.abs(x - b[i])), 0);
  // tfjs: each call's result read back with dataSync(), as the others hand their output to JavaScript.
  const tfRun = (compute) => () => {
    const out = tf.tidy(compute);
    out.dataSync();
    out.dispose();
  };
  const session = async (name, options = { executionProviders: ['wasm'] }) =>
    ort.InferenceSession.create(new Uint8Array(await (await fetch(`/threads-bench/${name}`)).arrayBuffer()), options);
  const tensor = (m) => new ort.Tensor('float32', m.data, [m.rows, m.cols]);
  const rows = [];
  const add = (what, [one, many, peer, tfjs], extra = {}) => rows.push({ what, one, many, peer, tfjs, ...extra });
  for (const n of coreSeq) {
    const [q, k, v] = [1, 2, 3].map((seed) => labs[0].randn(n, 64, seed));
    const s = await session(`core-${n}.onnx`);
    const feeds = { q: tensor(q), k: tensor(k), v: tensor(v) };
    // tfjs: its fast path for this (bench/peers.mjs): an explicit transpose and 2-D matMuls.
    const [tq, tk, tv] = [q, k, v].map((m) => tf.tensor2d(m.data, [m.rows, m.cols]));
    const tfCore = () => tf.matMul(tf.softmax(tf.mul(tf.matMul(tq, tf.transpose(tk)), 1 / Math.sqrt(64))), tv);
    const ours = labs[1].scaledDotProductAttention(q, k, v, { weights: false }).output.data;
    const difference = Math.max(worst(ours, (await s.run(feeds)).out.data), worst(ours, tf.tidy(tfCore).dataSync()));
    add(`attention core, seq ${n}`, [...await time(labs.map((lab) => () => lab.scaledDotProductAttention(q, k, v, { weights: false }))),
      ...await time([() => s.run(feeds)]), ...await time([tfRun(tfCore)])], { difference });
    tf.dispose([tq, tk, tv]);
  }
  for (const n of mhaSeq) {
    const mhas = labs.map((lab) => new lab.MultiHeadAttention({ dModel: 512, numHeads: 8, seed: 7 }));
    const x = labs[0].randn(n, 512, 4);
    const s = await session(`mha-${n}.onnx`);
    const feeds = { x: tensor(x) };
    const tfMha = multiHeadTfjs(tf, mhas[0].weights(), 8, tf.tensor2d(x.data, [n, 512]));
    const ours = mhas[1].forward(x, x, x, { weights: false }).output.data;
    const difference = Math.max(worst(ours, (await s.run(feeds)).out.data), worst(ours, tf.tidy(tfMha.run).dataSync()));
    add(`multi-head attention, d_model 512, seq ${n}`, [...await time(mhas.map((mha) => () => mha.forward(x, x, x, { weights: false }))),
      ...await time([() => s.run(feeds)]), ...await time([tfRun(tfMha.run)])], { difference });
    tfMha.dispose();
    mhas.forEach((mha) => mha.dispose());
  }
  const models = await Promise.all(labs.map(async (lab) => (await lab.loadBuiltinModel({ baseUrl: '/web/models/kjv/' })).model));
  const { vocabSize, contextLength } = models[0].config;
  const ids = Array.from({ length: contextLength }, (_, i) => (i * 7919 + 13) % vocabSize);
  // onnxruntime-web runs the same weights (bench/gpt-inference.mjs checks the two agree in detail; here
  // the logits and the greedy tokens are compared).
  const { int64, ortGenerate } = await import('/bench/ort-gpt-page.mjs');
  const gptOptions = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const forwardSession = await session('gpt-forward.onnx', gptOptions);
  const decodeSession = await session('gpt-decode.onnx', gptOptions);
  const idsTensor = int64(ort, ids);
  const forwardDifference = worst(models[1].forward(ids).logits.data, (await forwardSession.run({ ids: idsTensor })).logits.data);
  add('attnlab-kjv: 128-token forward, every head\'s attention', [...await time(models.map((m) => () => m.forward(ids, { attention: true }))),
    ...await time([() => forwardSession.run({ ids: idsTensor })])], { difference: forwardDifference });
  const prompt = ids.slice(0, 16);
  const generated = contextLength - 16;
  const ourTokens = Array.from(models[1].generate(prompt, { temperature: 0, maxTokens: generated }).tokens);
  const theirTokens = await ortGenerate(ort, decodeSession, models[0].config, prompt, generated);
  const generation = [...await time(models.map((m) => () => m.generate(prompt, { temperature: 0, maxTokens: generated })), 10, 1),
    ...await time([() => ortGenerate(ort, decodeSession, models[0].config, prompt, generated)], 10, 1)];
  add(`attnlab-kjv: greedy generation with the KV cache, ${generated} tokens`, generation,
    { tokensPerSecond: generation.map((ms) => generated / (ms / 1000)), sameTokens: ourTokens.join() === theirTokens.join() });
  models.forEach((m) => m.dispose());
  const trainees = await Promise.all(labs.map((lab) => lab.createGPT({ vocabSize: 4096, contextLength: 128, dModel: 192, numHeads: 4, numLayers: 4, seed: 1 })));
  trainees.forEach((t) => t.startTraining({ maxLr: 1e-3, minLr: 1e-4, warmupSteps: 2, totalSteps: 1000 }));
  const batch = Array.from({ length: 16 * 128 }, (_, i) => (i * 7919 + 13) % 4096);
  const targets = Array.from({ length: 16 * 128 }, (_, i) => (i * 31 + 5) % 4096);
  add('GPT training step, attnlab-kjv\'s size, 16 × 128 tokens (AdamW)', await time(trainees.map((t) => () => t.trainStep(batch, targets, 16)), 10, 1));
  trainees.forEach((t) => t.dispose());
  return { threads: labs[1].threads, tfjsThreads: tf.wasm.getThreadsCount(), rows };

  // tfjs-core and tfjs-backend-wasm (UMD builds: the ES builds import files the packages do not ship)
  // on `threads` threads. Its C++ caps the thread pool at navigator.hardwareConcurrency / 2, read as the
  // backend starts ("many x86-64 processors have 2 threads per core", tfjs-backend-wasm's backend.cc),
  // so on this 2-core machine it would run 1 thread whatever it is asked: the page reports twice the
  // threads asked for until the backend is up. (attnlab's labs above were made before.)
  async function loadTfjs(threads) {
    const script = (src) => new Promise((resolve, reject) => {
      const element = document.createElement('script');
      element.src = src;
      element.onload = resolve;
      element.onerror = () => reject(new Error(`cannot load ${src}`));
      document.head.append(element);
    });
    await script('/node_modules/@tensorflow/tfjs-core/dist/tf-core.js');
    await script('/node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.js');
    const cores = Object.getOwnPropertyDescriptor(Navigator.prototype, 'hardwareConcurrency');
    Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { configurable: true, get: () => 2 * threads });
    try {
      globalThis.tf.wasm.setWasmPaths('/node_modules/@tensorflow/tfjs-backend-wasm/dist/');
      globalThis.tf.wasm.setThreadsCount(threads);
      await globalThis.tf.setBackend('wasm');
    } finally {
      Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', cores);
    }
    return globalThis.tf;
  }

  // Multi-head self-attention in tfjs with attnlab's weights, as the ONNX graph computes it, head by head
  // through tfjs's fast path (2-D matMuls with explicit transposes; its batched 3-D matMul with
  // transposeB was several times slower here). The weights are transposed once, outside the timed
  // call, as the ONNX graph stores them. → { run, dispose }
  function multiHeadTfjs(tf, w, heads, x) {
    const [n, d] = x.shape;
    const dK = d / heads;
    const inProj = tf.tensor2d(w.inProjWeight.data, [3 * d, d]);
    const projections = [0, 1, 2].map((i) => ({
      weight: tf.transpose(tf.slice(inProj, [i * d, 0], [d, d])),
      bias: tf.tensor1d(w.inProjBias.slice(i * d, (i + 1) * d)),
    }));
    const outWeight = tf.transpose(tf.tensor2d(w.outProjWeight.data, [d, d]));
    const outBias = tf.tensor1d(w.outProjBias);
    inProj.dispose();
    const run = () => {
      const [q, k, v] = projections.map(({ weight, bias }) => tf.add(tf.matMul(x, weight), bias));
      const head = (t, h) => tf.slice(t, [0, h * dK], [n, dK]);
      const outputs = Array.from({ length: heads }, (_, h) =>
        tf.matMul(tf.softmax(tf.mul(tf.matMul(head(q, h), tf.transpose(head(k, h))), 1 / Math.sqrt(dK))), head(v, h)));
      return tf.add(tf.matMul(tf.concat(outputs, 1), outWeight), outBias);
    };
    const dispose = () => tf.dispose([x, outWeight, outBias, ...projections.flatMap(({ weight, bias }) => [weight, bias])]);
    return { run, dispose };
  }
}

// Native training steps (ms, median after the first) on `threads` threads.
function nativeStep(threads) {
  const binary = `${repo}build/native/bench/attnlab_bench_gpt_training`;
  if (!existsSync(binary)) return undefined;
  const { stepMs } = JSON.parse(execFileSync(binary, ['9', String(threads)], { encoding: 'utf8' }));
  return [...stepMs.slice(1)].sort((a, b) => a - b)[Math.floor((stepMs.length - 1) / 2)];
}
const native = [nativeStep(1), nativeStep(os.cpus().length)];

const onnx = await graphs();
const server = await serve(repo, 0, { headers: ISOLATION });
const browser = await launch();
const results = {};
try {
  for (const ortThreads of [1, os.cpus().length]) {
    const page = await browser.newPage();
    await page.route('**/threads-bench/*', (route) => route.fulfill({
      body: Buffer.from(onnx[route.request().url().split('/').pop()]), headers: { 'content-type': 'application/octet-stream', ...ISOLATION } }));
    await page.goto(`${server.url}/bench/blank.html`);
    results[ortThreads] = await page.evaluate(measure, { ortThreads, coreSeq: CORE_SEQ, mhaSeq: MHA_SEQ, runs: RUNS, warmup: WARMUP });
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}

// attnlab's times from the page where onnxruntime-web had every core (both pages measure them; one is shown).
const first = results[1];
const main = results[os.cpus().length];
const n = main.threads;
const ms = (x) => (x === undefined ? '—' : `${x.toFixed(x < 10 ? 2 : 1)} ms`);
const ratio = (a, b) => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}×`);
for (const [page, result] of [[1, first], [os.cpus().length, main]]) {
  if (result.tfjsThreads !== page) throw new Error(`tfjs-backend-wasm runs ${result.tfjsThreads} threads, not ${page}`);
}
for (const row of [...first.rows, ...main.rows]) {
  if (row.difference !== undefined && row.difference > 1e-3) throw new Error(`${row.what}: a peer differs from attnlab by ${row.difference}`);
  if (row.sameTokens === false) throw new Error(`${row.what}: onnxruntime-web generated other tokens than attnlab`);
}
const table = main.rows.map((r, i) =>
  `| ${r.what} | ${ms(r.one)} | ${ms(r.many)} | ${ratio(r.one, r.many)} | ${ms(first.rows[i].peer)} | ${ms(r.peer)} | ${ratio(r.peer, r.many)} | ` +
  `${ms(first.rows[i].tfjs)} | ${ms(r.tfjs)} | ${ratio(r.tfjs, r.many)} |`);
const tokensPerSecond = (results) => results.rows.find((r) => r.tokensPerSecond).tokensPerSecond.map((t) => Math.round(t).toLocaleString('en-US'));
const tokens = tokensPerSecond(main);
const ortTokensOnOne = tokensPerSecond(first)[2];
const report = `# Threads in the browser

\`node bench/threads.mjs\`, ${new Date().toISOString().slice(0, 10)}, headless Chromium on a cross-origin-isolated page,
${os.cpus()[0].model.trim()}, ${os.cpus().length} cores (load average ${os.loadavg()[0].toFixed(1)} at the end).
attnlab 1 thread = the single-threaded SIMD build (\`init({ threads: 1 })\`); attnlab ${n} threads = the threaded
build (\`init()\`); both in the same page. onnxruntime-web 1.30 (wasm backend, SIMD) with
\`numThreads\` 1 (its own page) and ${n} (the page attnlab's columns come from), on the same inputs, its output
checked against attnlab's first; tfjs-backend-wasm 4.22 (SIMD; its threaded build on ${n} threads, which it
needs a nudge to use, see below) the same way, each call's result read back with \`dataSync()\`
(largest difference of either peer ${Math.max(...main.rows.filter((r) => r.difference !== undefined).map((r) => r.difference)).toExponential(1)}).
Each library first runs for a second untimed (V8 optimises a hot wasm function in the background, in each
worker separately), then in blocks of its own with a 60 ms pause before each (both keep their threads spinning
for a while after a run), ten rounds of blocks, each starting with 40 ms of untimed calls (a worker woken from
sleep takes 1–17 ms here to start); medians of ${RUNS} runs, ${RUNS / 10} per block (generation and training: 10,
1 per block). This VM's speed drifts by up to 1.5× over minutes: compare within a row.

| what | attnlab 1 thread | attnlab ${n} threads | speed-up | onnxruntime-web 1 thread | onnxruntime-web ${n} threads | attnlab ${n} threads vs onnxruntime-web ${n} threads | tfjs-wasm 1 thread | tfjs-wasm ${n} threads | attnlab ${n} threads vs tfjs-wasm ${n} threads |
|---|---|---|---|---|---|---|---|---|---|
${table.join('\n')}
| native (x86 SIMD kernels), GPT training step as above (\`bench/gpt_training_native.cpp\`, median of 8 steps) | ${ms(native[0])} | ${ms(native[1])} | ${ratio(native[0], native[1])} | | | | | | |

tfjs-backend-wasm caps its thread pool at \`navigator.hardwareConcurrency\` / 2 (its backend.cc assumes two
hardware threads per core), so on this 2-core machine \`setThreadsCount(2)\` quietly runs 1 thread. The page
reports twice the threads asked for while its backend starts, and the run checks \`tf.wasm.getThreadsCount()\`
(${main.tfjsThreads} here). Its multi-head attention is the same computation as the ONNX graph, head by head with
2-D matMuls (its fast path), the projection weights transposed once outside the timed call.

The GPT rows' onnxruntime-web columns run attnlab-kjv's weights in ONNX graphs (\`bench/onnx-gpt-graph.mjs\`:
the forward returns the logits and every layer's attention; the decode graph takes and returns the K/V cache,
looped in JavaScript with the argmax there); its logits were checked against attnlab's (in the difference
above) and its greedy tokens are the same. onnxruntime-web 1.30 has no training API (the package ships
inference sessions only), so the training row has no peer; \`bench/gpt-training-results.md\` compares
training with PyTorch.

Generation: attnlab ${tokens[0]} tokens/s on 1 thread, ${tokens[1]} tokens/s on ${n}; onnxruntime-web ${ortTokensOnOne}
on 1 thread, ${tokens[2]} on ${n}. One token's work (a 1×192 row through
192×576 and 192×768 products) is far below the 2²⁰ multiply-adds at which the core shares a loop, so the threaded
build runs it on one thread; what differs is that build's JavaScript-emulated exceptions (web/README.md, "Threads").
The 128-token forward hands back 128 × 4,096 logits and 16 attention matrices, about 3 MB that JavaScript
copies out of the heap on the page's thread (about 1.7 ms of each call in a Chromium profile), whatever the
thread count.

How the threads work (cpp/src/parallel.cpp): a loop is cut into up to 8 tasks per thread, handed out as threads
ask; after a loop the workers spin for 20 ms before sleeping, because a sleeping worker took 0.9–1.9 ms on
average (up to 17 ms) to wake here, longer than a seq-512 attention call.
`;
writeFileSync(new URL('threads-results.md', import.meta.url), report);
console.log(report);
