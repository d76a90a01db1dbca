// Threads in the browser: attnlab's threaded build against its single-threaded one, and against
// onnxruntime-web and tfjs-backend-wasm with the same number of threads, in headless Chromium on a
// cross-origin-isolated page (COOP + COEP, which WebAssembly threads need). Each library in pages of its
// own (see measure): attnlab, and each peer on one thread and on every core the browser reports. The
// same seeded inputs everywhere; each peer's output is checked against attnlab's. Medians of RUNS timed
// runs: attnlab's builds in pairs of calls, a peer in blocks (see measure).
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
const ROUNDS = 20;  // this VM's speed drifts over seconds: short blocks, many rounds
const RUNS = 3 * ROUNDS;
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
// Times one library in a page of its own: 'attnlab' (its single-threaded build and its threaded one,
// on every core), 'onnxruntime-web' or 'tfjs' on `threads` threads. A page of its own, because a peer's
// threads can keep a core busy after its work: with tfjs-backend-wasm's threaded build loaded and run
// once, attnlab's threaded calls in the same page took up to twice as long. A peer's page checks the
// peer's output against attnlab's single-threaded build (which starts no thread). attnlab's two builds
// are timed in pairs of calls (timePaired); a peer in short blocks, `rounds` rounds of blocks, with a
// pause before each block (its threads spin after a run, and a spinning thread from one block would take
// a core from the next); the rounds spread a change in the machine's speed over the run.
async function measure({ library, threads, coreSeq, mhaSeq, rounds, runs, warmup }) {
  const { init } = await import('/web/index.js');
  const labs = library === 'attnlab' ? [await init({ threads: 1 }), await init()] : [await init({ threads: 1 })];
  const ort = library === 'onnxruntime-web' ? await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs') : undefined;
  if (ort) ort.env.wasm.numThreads = threads;
  const tf = library === 'tfjs' ? await loadTfjs(threads) : undefined;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const pause = () => new Promise((resolve) => setTimeout(resolve, 60));
  // Untimed calls for at least `ms` milliseconds and `calls` calls.
  async function untimed(fn, ms, calls) {
    for (let i = 0, start = performance.now(); i < calls || performance.now() - start < ms; i++) await fn();
  }
  // Medians of `count` timed runs of each function, in `rounds` blocks. First each runs untimed for a
  // second: V8 compiles a hot wasm function's optimised code in the background, and separately in each
  // worker, so a threaded build's first ~20 calls are slow. Each block starts with 40 ms of untimed
  // calls: after the pause the threads sleep, and a worker woken in Chromium here takes 1–17 ms to start.
  // → [{ median }] in the order of fns.
  async function time(fns, count = runs, calls = warmup) {
    const ms = fns.map(() => []);
    for (const fn of fns) {
      await pause();
      await untimed(fn, 1000, calls);
    }
    for (let round = 0; round < rounds; round++) {
      for (const [j, fn] of fns.entries()) {
        await pause();
        await untimed(fn, 40, calls);
        for (let i = 0; i < Math.ceil(count / rounds); i++) {
          const start = performance.now();
          await fn();
          ms[j].push(performance.now() - start);
        }
      }
    }
    return ms.map((all) => ({ median: median(all) }));
  }
  // attnlab's two builds, [single-threaded, threaded], timed call by call: `count` pairs, one call of
  // each in turn (the order alternating), so both calls of a pair meet the machine in the same state;
  // the speed-up is read pair by pair. After its call the threaded build's worker spins for 20 ms on
  // the other core (this machine's two are separate cores, an L2 cache each), where it takes nothing
  // from the single-threaded call, and the next threaded call finds it awake.
  // → [{ median, pairs }] in the order of fns: pairs[i] is the time in the i-th pair.
  async function timePaired(fns, count = runs, calls = warmup) {
    for (const fn of fns) await untimed(fn, 1000, calls);
    const ms = fns.map(() => []);
    for (let i = 0; i < count; i++) {
      for (const j of i % 2 ? [1, 0] : [0, 1]) {
        const start = performance.now();
        await fns[j]();
        ms[j].push(performance.now() - start);
      }
    }
    return ms.map((all) => ({ median: median(all), pairs: all }));
  }
  const worst = (a, b) => a.reduce((w, x, i) => Math.max(w, Math.abs(x - b[i])), 0);
  const session = async (name, options = { executionProviders: ['wasm'] }) =>
    ort.InferenceSession.create(new Uint8Array(await (await fetch(`/threads-bench/${name}`)).arrayBuffer()), options);
  const tensor = (m) => new ort.Tensor('float32', m.data, [m.rows, m.cols]);
  // tfjs: each call's result read back with dataSync(), as the others hand their output to JavaScript.
  const tfOutput = (compute) => {
    const out = tf.tidy(compute);
    const data = out.dataSync();
    out.dispose();
    return data;
  };
  // A row: attnlab's page gives [1 thread, every core] times; a peer's page its time and difference.
  const rows = [];
  const add = (what, timed, extra = {}) =>
    rows.push({ what, ms: timed.map((t) => t.median), pairs: timed.map((t) => t.pairs), ...extra });
  for (const n of coreSeq) {
    const what = `attention core, seq ${n}`;
    const [q, k, v] = [1, 2, 3].map((seed) => labs[0].randn(n, 64, seed));
    const reference = labs[0].scaledDotProductAttention(q, k, v, { weights: false }).output.data;
    if (library === 'attnlab') {
      add(what, await timePaired(labs.map((lab) => () => lab.scaledDotProductAttention(q, k, v, { weights: false }))));
      // The same call writing into an array of the caller's (out): no new array per call.
      const arrays = labs.map(() => new Float32Array(n * 64));
      add(`${what}, into the caller's array (\`out\`)`, await timePaired(labs.map((lab, j) => () =>
        lab.scaledDotProductAttention(q, k, v, { weights: false, out: { output: arrays[j] } }))));
    } else if (ort) {
      const s = await session(`core-${n}.onnx`);
      const feeds = { q: tensor(q), k: tensor(k), v: tensor(v) };
      add(what, await time([() => s.run(feeds)]), { difference: worst(reference, (await s.run(feeds)).out.data) });
    } else {
      // tfjs: its fast path for this (bench/peers.mjs): an explicit transpose and 2-D matMuls.
      const [tq, tk, tv] = [q, k, v].map((m) => tf.tensor2d(m.data, [m.rows, m.cols]));
      const core = () => tf.matMul(tf.softmax(tf.mul(tf.matMul(tq, tf.transpose(tk)), 1 / Math.sqrt(64))), tv);
      add(what, await time([() => tfOutput(core)]), { difference: worst(reference, tfOutput(core)) });
      tf.dispose([tq, tk, tv]);
    }
  }
  for (const n of mhaSeq) {
    const what = `multi-head attention, d_model 512, seq ${n}`;
    const mhas = labs.map((lab) => new lab.MultiHeadAttention({ dModel: 512, numHeads: 8, seed: 7 }));
    const x = labs[0].randn(n, 512, 4);
    const reference = mhas[0].forward(x, x, x, { weights: false }).output.data;
    if (library === 'attnlab') {
      add(what, await timePaired(mhas.map((mha) => () => mha.forward(x, x, x, { weights: false }))));
    } else if (ort) {
      const s = await session(`mha-${n}.onnx`);
      const feeds = { x: tensor(x) };
      add(what, await time([() => s.run(feeds)]), { difference: worst(reference, (await s.run(feeds)).out.data) });
    } else {
      const mha = multiHeadTfjs(tf, mhas[0].weights(), 8, tf.tensor2d(x.data, [n, 512]));
      add(what, await time([() => tfOutput(mha.run)]), { difference: worst(reference, tfOutput(mha.run)) });
      mha.dispose();
    }
    mhas.forEach((mha) => mha.dispose());
  }
  if (tf) return { threads: tf.wasm.getThreadsCount(), rows };
  const models = await Promise.all(labs.map(async (lab) => (await lab.loadBuiltinModel({ baseUrl: '/web/models/kjv/' })).model));
  const { vocabSize, contextLength } = models[0].config;
  const ids = Array.from({ length: contextLength }, (_, i) => (i * 7919 + 13) % vocabSize);
  const prompt = ids.slice(0, 16);
  const generated = contextLength - 16;
  const forward = 'attnlab-kjv: 128-token forward, every head\'s attention';
  const generation = `attnlab-kjv: greedy generation with the KV cache, ${generated} tokens`;
  const tokens = (timed) => ({ tokensPerSecond: timed.map((t) => generated / (t.median / 1000)) });
  if (library === 'attnlab') {
    add(forward, await timePaired(models.map((m) => () => m.forward(ids, { attention: true }))));
    const ms = await timePaired(models.map((m) => () => m.generate(prompt, { temperature: 0, maxTokens: generated })), 20, 1);
    add(generation, ms, tokens(ms));
    const trainees = await Promise.all(labs.map((lab) => lab.createGPT({ vocabSize: 4096, contextLength: 128, dModel: 192, numHeads: 4, numLayers: 4, seed: 1 })));
    trainees.forEach((t) => t.startTraining({ maxLr: 1e-3, minLr: 1e-4, warmupSteps: 2, totalSteps: 1000 }));
    const batch = Array.from({ length: 16 * 128 }, (_, i) => (i * 7919 + 13) % 4096);
    const targets = Array.from({ length: 16 * 128 }, (_, i) => (i * 31 + 5) % 4096);
    add('GPT training step, attnlab-kjv\'s size, 16 × 128 tokens (AdamW)', await timePaired(trainees.map((t) => () => t.trainStep(batch, targets, 16)), 20, 1));
    trainees.forEach((t) => t.dispose());
  } else {
    // onnxruntime-web on the same weights (bench/gpt-inference.mjs checks the two agree in detail; here
    // the logits and the greedy tokens are compared).
    const { int64, ortGenerate } = await import('/bench/ort-gpt-page.mjs');
    const gptOptions = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
    const forwardSession = await session('gpt-forward.onnx', gptOptions);
    const decodeSession = await session('gpt-decode.onnx', gptOptions);
    const idsTensor = int64(ort, ids);
    const difference = worst(models[0].forward(ids).logits.data, (await forwardSession.run({ ids: idsTensor })).logits.data);
    add(forward, await time([() => forwardSession.run({ ids: idsTensor })]), { difference });
    const ours = Array.from(models[0].generate(prompt, { temperature: 0, maxTokens: generated }).tokens);
    const generate = () => ortGenerate(ort, decodeSession, models[0].config, prompt, generated);
    const sameTokens = (await generate()).join() === ours.join();
    const ms = await time([generate], 10, 1);
    add(generation, ms, { sameTokens, ...tokens(ms) });
  }
  models.forEach((m) => m.dispose());
  return { threads: library === 'attnlab' ? labs[1].threads : threads, rows };

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
const cores = os.cpus().length;
// `--attnlab-only`: attnlab's page alone, its rows printed and no file written (for trying a change).
const attnlabOnly = process.argv.includes('--attnlab-only');
const PAGES = [['attnlab', cores], ...(attnlabOnly ? [] : [['onnxruntime-web', 1], ['onnxruntime-web', cores], ['tfjs', 1], ['tfjs', cores]])];
const results = {};
try {
  for (const [library, threads] of PAGES) {
    const page = await browser.newPage();
    await page.route('**/threads-bench/*', (route) => route.fulfill({
      body: Buffer.from(onnx[route.request().url().split('/').pop()]), headers: { 'content-type': 'application/octet-stream', ...ISOLATION } }));
    await page.goto(`${server.url}/bench/blank.html`);
    results[`${library} ${threads}`] = await page.evaluate(measure, { library, threads, coreSeq: CORE_SEQ, mhaSeq: MHA_SEQ, rounds: ROUNDS, runs: RUNS, warmup: WARMUP });
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}

const ours = results[`attnlab ${cores}`];
const n = ours.threads;
if (attnlabOnly) {
  for (const { what, ms: [one, many], pairs } of ours.rows) console.log(`${what}: ${one.toFixed(2)} / ${many.toFixed(2)} ms, ${pairedSpeedUp(pairs)}`);
  process.exit(0);
}
for (const threads of [1, cores]) {
  const got = results[`tfjs ${threads}`].threads;
  if (got !== threads) throw new Error(`tfjs-backend-wasm runs ${got} threads, not ${threads}`);
}
const peerRows = Object.entries(results).filter(([key]) => !key.startsWith('attnlab')).flatMap(([, r]) => r.rows);
for (const row of peerRows) {
  if (row.difference > 1e-3) throw new Error(`${row.what}: a peer differs from attnlab by ${row.difference}`);
  if (row.sameTokens === false) throw new Error(`${row.what}: onnxruntime-web generated other tokens than attnlab`);
}
// A peer's row for `what` in the page `key` (undefined where that peer does not run it).
const peer = (key, what) => results[key].rows.find((r) => r.what === what);
const peerMs = (key, what) => peer(key, what)?.ms[0];
const ms = (x) => (x === undefined ? '—' : `${x.toFixed(x < 10 ? 2 : 1)} ms`);
const ratio = (a, b) => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}×`);
// attnlab's speed-up read pair by pair (timePaired): each pair's 1-thread time over its N-thread time,
// → "median (quartiles)" of the pairs.
function pairedSpeedUp([one, many]) {
  const ratios = one.map((t, r) => t / many[r]).sort((a, b) => a - b);
  const at = (q) => ratios[Math.floor(q * (ratios.length - 1))].toFixed(2);
  return `${at(0.5)}× (${at(0.25)}–${at(0.75)})`;
}
const table = ours.rows.map(({ what, ms: [one, many], pairs }) => {
  const [ort1, ortN, tf1, tfN] = [`onnxruntime-web 1`, `onnxruntime-web ${cores}`, 'tfjs 1', `tfjs ${cores}`].map((key) => peerMs(key, what));
  return `| ${what} | ${ms(one)} | ${ms(many)} | ${pairedSpeedUp(pairs)} | ${ms(ort1)} | ${ms(ortN)} | ${ratio(ortN, many)} | ` +
    `${ms(tf1)} | ${ms(tfN)} | ${ratio(tfN, many)} |`;
});
const generationRow = (r) => r.rows.find((row) => row.tokensPerSecond);
const tokensPerSecond = (r) => generationRow(r).tokensPerSecond.map((t) => Math.round(t).toLocaleString('en-US'));
const tokens = tokensPerSecond(ours);
const [ortTokensOnOne, ortTokens] = [results['onnxruntime-web 1'], results[`onnxruntime-web ${cores}`]].map((r) => tokensPerSecond(r)[0]);
const largestDifference = Math.max(...peerRows.map((r) => r.difference).filter((d) => d !== undefined));
const report = `# Threads in the browser

\`node bench/threads.mjs\`, ${new Date().toISOString().slice(0, 10)}, headless Chromium on a cross-origin-isolated page,
${os.cpus()[0].model.trim()}, ${os.cpus().length} cores (load average ${os.loadavg()[0].toFixed(1)} at the end).
attnlab 1 thread = the single-threaded SIMD build (\`init({ threads: 1 })\`); attnlab ${n} threads = the threaded
build (\`init()\`); both in one page. onnxruntime-web 1.30 (wasm backend, SIMD, \`numThreads\` 1 and ${n}) and
tfjs-backend-wasm 4.22 (SIMD; its threaded build on ${n} threads, which needs a nudge, see below) each run in
pages of their own: a peer's threads can keep a core busy after its work (with tfjs's threaded build loaded
and run once, attnlab's threaded calls in the same page took up to twice as long). Each peer's output was
checked against attnlab's single-threaded build in its page (largest difference ${largestDifference.toExponential(1)}); tfjs's
result is read back with \`dataSync()\` in each call, as the others hand theirs to JavaScript.
Each library first runs for a second untimed (V8 optimises a hot wasm function in the background, in each
worker separately). attnlab's two builds are then timed call by call, one call of each in turn (the order
alternating), ${RUNS} pairs (generation and training: 20): this VM's speed drifts by up to 1.5× over minutes and
jumps between blocks of calls (the same call measured 2.0 and 3.3 ms in neighbouring blocks), and a slow
spell costs a call on two threads more than one on one (it needs both cores), so the speed-up is read pair
by pair, each pair's 1-thread time over its ${n}-thread time: the median of the pairs, their quartiles in
brackets. Between a pair's calls the threaded build's worker spins on the other core (separate cores, an
L2 cache each), taking nothing from the single-threaded call. Each peer runs in blocks of its own, with a
60 ms pause before each (threads keep spinning for a while after a run), ${ROUNDS} rounds of blocks, each
starting with 40 ms of untimed calls (a worker woken from sleep takes 1–17 ms here to start): medians of
${RUNS} runs, ${RUNS / ROUNDS} per block (generation: ${ROUNDS}, 1 per block). The ratios against the peers are of the
columns' medians; expect ±15% between runs. The rows "into the caller's array" are the same call with
\`out: { output }\` (web/README.md): the result is copied into one Float32Array kept from call to call instead
of a new one each time; the peers' columns are left empty there (their calls are timed as above, with new
arrays).

| what | attnlab 1 thread | attnlab ${n} threads | speed-up | onnxruntime-web 1 thread | onnxruntime-web ${n} threads | attnlab ${n} threads vs onnxruntime-web ${n} threads | tfjs-wasm 1 thread | tfjs-wasm ${n} threads | attnlab ${n} threads vs tfjs-wasm ${n} threads |
|---|---|---|---|---|---|---|---|---|---|
${table.join('\n')}
| native (x86 SIMD kernels), GPT training step as above (\`bench/gpt_training_native.cpp\`, median of 8 steps) | ${ms(native[0])} | ${ms(native[1])} | ${ratio(native[0], native[1])} | | | | | | |

tfjs-backend-wasm caps its thread pool at \`navigator.hardwareConcurrency\` / 2 (its backend.cc assumes two
hardware threads per core), so on this 2-core machine \`setThreadsCount(2)\` quietly runs 1 thread. The page
reports twice the threads asked for while its backend starts, and the run checks \`tf.wasm.getThreadsCount()\`
(${results[`tfjs ${cores}`].threads} here). Its multi-head attention is the same computation as the ONNX graph, head by head with
2-D matMuls (its fast path), the projection weights transposed once outside the timed call.

The GPT rows' onnxruntime-web columns run attnlab-kjv's weights in ONNX graphs (\`bench/onnx-gpt-graph.mjs\`:
the forward returns the logits and every layer's attention; the decode graph takes and returns the K/V cache,
looped in JavaScript with the argmax there); its logits were checked against attnlab's (in the difference
above) and its greedy tokens are the same. onnxruntime-web 1.30 has no training API (the package ships
inference sessions only), so the training row has no peer; \`bench/gpt-training-results.md\` compares
training with PyTorch.

Generation: attnlab ${tokens[0]} tokens/s on 1 thread, ${tokens[1]} tokens/s on ${n}; onnxruntime-web ${ortTokensOnOne}
on 1 thread, ${ortTokens} on ${n}. One token's work (a 1×192 row through
192×576 and 192×768 products) is far below the 2²⁰ multiply-adds at which the core shares a loop, so the threaded
build runs it on one thread; what differs is that build's JavaScript-emulated exceptions (web/README.md, "Threads").
The 128-token forward hands back 128 × 4,096 logits and 16 attention matrices, about 3 MB that JavaScript
copies out of the heap on the page's thread (about 1.7 ms of each call in a Chromium profile), whatever the
thread count.

How the threads work (cpp/src/tensor/parallel.cpp): a loop is cut into up to 8 tasks per thread, handed out as threads
ask; after a loop the workers spin for 20 ms before sleeping, because a sleeping worker took 0.9–1.9 ms on
average (up to 17 ms) to wake here, longer than a seq-512 attention call.
`;
writeFileSync(new URL('threads-results.md', import.meta.url), report);
console.log(report);
