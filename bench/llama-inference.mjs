// Llama-family inference, attnlab vs onnxruntime-web, on a SmolLM2-135M-shaped random checkpoint (issue 49,
// item 6): 30 layers, 9 query heads on 3 key/value heads of 64, d 576, MLP 1536, vocabulary 49,152, RoPE
// theta 100,000, tied embeddings, stored BF16 (269 MB). attnlab keeps its matrices BF16 in memory (and widens
// each value exactly as a product reads it); onnxruntime-web's graph holds them as float32 (538 MB).
// The peer is onnxruntime-web (wasm backend, SIMD, graph optimisation 'all') on a hand-built ONNX opset-17
// graph of the same forward (bench/onnx-llama-graph.mjs), built from the float32 weights attnlab decodes
// from the checkpoint, so both compute on the same numbers. (transformers.js is not installed and wants a
// Hugging Face hub folder with an exported ONNX model; see the results file.)
// Measured, in headless Chromium (cross-origin-isolated pages, one per side) and in Node (a child process
// per side), on one thread and on 2 (this machine's cores) where the side supports it — attnlab's threaded
// build exists for browsers only, so in Node attnlab runs on 1 thread in both configurations:
//   load       the checkpoint's bytes in memory → a model ready to run: lab.loadModel({ config.json,
//              model.safetensors, tokenizer.json }) vs ort.InferenceSession.create(graph bytes)
//   prefill    32 token ids into an empty KV cache → logits [32×49,152]: LlamaSession.append(ids) vs one
//              session.run with past length 0
//   decode     32 greedy steps after that prefill, one token each, the cache growing 32 → 64 tokens:
//              LlamaSession.append(id) vs session.run with the previous step's present K/V as past; ms per
//              token = the 32 steps' time / 32 (argmax in JS on both sides)
//   breakdown  attnlab alone: LlamaModel.forward of 32 ids and of 1, with every row's logits, the last row's or
//              none (llama-agent.mjs), to show what the output projection costs
//   memory     a fresh process (Node) or browser (Chromium) per side: load, prefill, decode 32 tokens;
//              peak RSS growth over the process (the renderer, in Chromium) from the moment the bytes were
//              in memory (/proc/<pid>/status VmHWM after clear_refs), the wasm heaps' size, and in Node
//              process.memoryUsage(); against each side's weights in memory + the 64-token cache
// Before any timing, in each configuration: the prefill's logits of the two sides (max |difference|), their
// 16 greedy tokens after it (identical), and both against the float64 PyTorch reference the fixture
// script stores (the last 3 rows' logits of its 12-token prompt); the run fails if they disagree. The two
// sides' calls are interleaved call by call (a, b, a, b, …, 100 ms pause before each: threads spin after a
// call), one warm-up round first; medians.
// The checkpoint: tests/fixtures/make_llama_fixtures.py --large DIR (written here if missing).
//   node bench/llama-inference.mjs [DIR] [--quick]   (default /tmp/llama-bench; the graph is written there too;
//                                                    --quick: one run of each, printed, no file written)
// Writes bench/llama-inference-results.md.
import { execFileSync, fork } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

import { base64ToFloats, byteTokenizerJson, captureWasmMemories, createAgent, PROMPT } from './llama-agent.mjs';

const repo = new URL('../', import.meta.url).pathname;
const self = new URL(import.meta.url).pathname;
const ISOLATION = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
const CORS = { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' };
const THREADS = [1, 2];
// --quick: one run of each and 4 decode steps, printed and not written (for trying a change).
const QUICK = process.argv[2] !== '--agent' && process.argv.includes('--quick');
const LOAD_RUNS = QUICK ? 1 : 7;         // after the untimed first load (before the agreement check)
const PREFILL_RUNS = QUICK ? 1 : 11;
const DECODE_RUNS = QUICK ? 1 : 7;       // of DECODE_STEPS steps each
const DECODE_STEPS = QUICK ? 4 : 32;
const AGREEMENT_STEPS = 16;
const BREAKDOWN_RUNS = QUICK ? 1 : 7;    // attnlab's forward with and without logits (llama-agent.mjs breakdown)
const WARMUP_RUNS = 1;       // prefill and decode: untimed rounds first
const PAUSE_MS = 100;        // before each call: a side's threads spin after its call (both sides' do)
const MAX_RELATIVE_DIFFERENCE = 1e-4;  // |difference| ≤ this · max(1, max |logit|), the Llama tests' tolerance
const GOALS = { speedUp: 1.2, memory: 1.1 };
const SIDES = ['attnlab', 'onnxruntime-web'];

// ---- a side in a Node child process: `node llama-inference.mjs --agent '{…}'` ----

async function agentProcess({ library, threads, folder, config, reference }) {
  captureWasmMemories();  // before either library makes its wasm heap
  const file = (name) => readFileSync(`${folder}/${name}`);  // a Buffer is a Uint8Array: no copy, no garbage
  const files = library === 'attnlab'
    ? { 'config.json': file('config.json'), 'model.safetensors': file('model.safetensors'), 'tokenizer.json': byteTokenizerJson() }
    : { 'model.onnx': file('llama-step.onnx') };
  const init = library === 'attnlab' ? (await import('../web/index.js')).init : undefined;
  const ort = library === 'onnxruntime-web' ? await import('onnxruntime-web') : undefined;
  const agent = await createAgent({ library, threads, files, init, ort, config, reference });
  // Before the memory walk's baseline: what setting up left behind collected, and given back (V8 frees
  // ArrayBuffers' memory on a background thread after the collection).
  globalThis.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  process.on('message', async ({ id, method, args }) => {
    try {
      process.send({ id, result: await agent[method](...args) });
    } catch (error) {
      process.send({ id, error: error.stack ?? String(error) });
    }
  });
  process.send({ id: 0, result: 'ready' });
}

// `node llama-inference.mjs --graph FOLDER`: the ONNX graph from attnlab's decoded weights → FOLDER/llama-step.onnx;
// sends { config, onnxBytes }. (A process of its own: its ~1.5 GB are given back when it exits.)
async function graphProcess(folder) {
  const { init } = await import('../web/index.js');
  const { llamaStepModel } = await import('./onnx-llama-graph.mjs');
  const lab = await init({ memoryBudget: 2 ** 31 });
  const files = { 'config.json': readFileSync(`${folder}/config.json`), 'model.safetensors': readFileSync(`${folder}/model.safetensors`),
    'tokenizer.json': byteTokenizerJson() };
  const { model, tokenizer } = await lab.loadModel(files);
  const tensors = Object.fromEntries(model.tensorNames().map((name) => [name, model.tensor(name)]));
  const bytes = llamaStepModel(tensors, model.config);
  writeFileSync(`${folder}/llama-step.onnx`, bytes);
  process.send({ config: model.config, onnxBytes: bytes.length });
  model.dispose();
  tokenizer.dispose();
}

// A child process speaking to us by message: call(method, ...args) → its agent's result.
function spawnChild(args, execArgv = []) {
  const child = fork(self, args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map();
  let next = 1;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.on('exit', (code) => {
    for (const { reject } of pending.values()) reject(new Error(`llama-inference: a child process exited (${code})`));
  });
  child.on('message', ({ id, result, error }) => {
    const waiting = pending.get(id);
    if (!waiting) return;
    pending.delete(id);
    if (error) waiting.reject(new Error(error));
    else waiting.resolve(result);
  });
  const ready = new Promise((resolve, reject) => pending.set(0, { resolve, reject }));
  ready.catch(() => {});  // the graph process never says it is ready: its exit must not be an unhandled rejection
  return {
    child, ready, exited,
    call(method, ...args) {
      const id = next++;
      child.send({ id, method, args });
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
  };
}

async function nodeAgent(spec) {
  const { child, ready, call, exited } = spawnChild(['--agent', JSON.stringify(spec)], ['--expose-gc']);
  await ready;
  return { call, pid: () => child.pid, close: async () => { child.kill(); await exited; } };
}

// ---- a side in a Chromium page ----

// In the page (serialised by page.evaluate: only its argument is in scope): the bytes fetched from the
// data server, the library from the repo's server, globalThis.agent made.
async function setupPage({ library, threads, dataUrl, config, reference, tokenizerJson }) {
  const { createAgent } = await import('/bench/llama-agent.mjs');
  const bytes = async (name) => new Uint8Array(await (await fetch(`${dataUrl}/${name}`)).arrayBuffer());
  const files = library === 'attnlab'
    ? { 'config.json': await bytes('config.json'), 'model.safetensors': await bytes('model.safetensors'), 'tokenizer.json': tokenizerJson }
    : { 'model.onnx': await bytes('llama-step.onnx') };
  const init = library === 'attnlab' ? (await import('/web/index.js')).init : undefined;
  const ort = library === 'onnxruntime-web' ? await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs') : undefined;
  globalThis.agent = await createAgent({ library, threads, files, init, ort, config, reference });
  return globalThis.crossOriginIsolated;
}

async function pageAgent(browser, servers, spec) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.addInitScript(captureWasmMemories);
  await page.goto(`${servers.repo.url}/bench/blank.html`);
  const isolated = await page.evaluate(setupPage, { ...spec, dataUrl: servers.data.url, tokenizerJson: byteTokenizerJson() });
  if (!isolated) throw new Error('llama-inference: the page is not cross-origin isolated (threads need it)');
  return {
    async call(method, ...args) {
      const result = await page.evaluate(([m, a]) => globalThis.agent[m](...a), [method, args]);
      if (errors.length) throw new Error(`llama-inference: errors in the page: ${errors.join('; ')}`);
      return result;
    },
    close: () => page.close(),
  };
}

// ---- measuring ----

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p10: at(0.1), p90: at(0.9), min: sorted[0], max: sorted.at(-1), n: sorted.length };
}

// `rounds` timed rounds (after `warmup` untimed ones) of one call on each side in turn → { side: [result] }.
async function interleaved(agents, method, args, rounds, warmup) {
  const out = Object.fromEntries(Object.keys(agents).map((name) => [name, []]));
  for (let r = 0; r < warmup + rounds; r++) {
    for (const [name, agent] of Object.entries(agents)) {
      await sleep(PAUSE_MS);
      const result = await agent.call(method, ...args);
      if (r >= warmup) out[name].push(result);
    }
  }
  return out;
}

// Largest |a − b| over max(1, max |b|).
function relativeDifference(a, b) {
  let worst = 0;
  let scale = 1;
  for (let i = 0; i < b.length; i++) {
    worst = Math.max(worst, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return { worst, scale, relative: a.length === b.length ? worst / scale : Infinity };
}

// Throws unless the sides agree with each other and with the float64 reference; → the numbers for the report.
function checkAgreement(label, results, referenceRows) {
  const [ours, theirs] = SIDES.map((side) => ({ ...results[side], logits: base64ToFloats(results[side].logits),
    referenceRows: base64ToFloats(results[side].referenceRows) }));
  const prefill = relativeDifference(theirs.logits, ours.logits);
  const reference = SIDES.map((_, i) => relativeDifference([ours, theirs][i].referenceRows, referenceRows));
  const sameTokens = ours.tokens.join() === theirs.tokens.join();
  console.log(`${label}: prefill max |logit difference| ${prefill.worst.toExponential(2)} (max |logit| ${prefill.scale.toFixed(1)}); ` +
    `vs float64: attnlab ${reference[0].worst.toExponential(2)}, onnxruntime-web ${reference[1].worst.toExponential(2)}; ` +
    `${AGREEMENT_STEPS} greedy tokens ${sameTokens ? 'identical' : 'DIFFER'}`);
  if (!sameTokens || ![prefill, ...reference].every((d) => d.relative <= MAX_RELATIVE_DIFFERENCE)) {
    console.error(`attnlab: ${ours.tokens.join(' ')}\nonnxruntime-web: ${theirs.tokens.join(' ')}`);
    throw new Error(`llama-inference: ${label}: attnlab and onnxruntime-web disagree`);
  }
  return { prefill, reference, tokens: ours.tokens };
}

// One configuration (an environment and a thread count): agreement, then load, prefill and decode timed.
async function measureTimes(label, makeAgent, threads, referenceRows) {
  const agents = {};
  const loadAverage = [os.loadavg()[0]];
  try {
    for (const side of SIDES) agents[side] = await makeAgent(side, threads);
    const info = {};
    for (const side of SIDES) {
      info[side] = await agents[side].call('info');
      await agents[side].call('load');  // untimed: the load's warm-up
    }
    const agreement = {};
    for (const side of SIDES) agreement[side] = await agents[side].call('agreement', AGREEMENT_STEPS);
    const checked = checkAgreement(label, agreement, referenceRows);
    console.log(`${label}: timing (attnlab ${info.attnlab.threads} thread(s), onnxruntime-web ${info['onnxruntime-web'].threads})`);
    const load = await interleaved(agents, 'load', [], LOAD_RUNS, 0);
    const prefill = await interleaved(agents, 'prefill', [], PREFILL_RUNS, WARMUP_RUNS);
    const decode = await interleaved(agents, 'decode', [DECODE_STEPS], DECODE_RUNS, WARMUP_RUNS);
    const breakdown = await agents.attnlab.call('breakdown', BREAKDOWN_RUNS);
    loadAverage.push(os.loadavg()[0]);
    return { label, threads, info, agreement: checked, load, prefill, decode, breakdown, loadAverage };
  } finally {
    for (const agent of Object.values(agents)) await agent.close();
  }
}

const procBytes = (pid, field) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`))[1]) * 1024;
const resetPeak = (pid) => writeFileSync(`/proc/${pid}/clear_refs`, '5');  // VmHWM := VmRSS

// The memory walk on a fresh agent; `pids()` → the processes that may hold it (Node: the child; Chromium:
// every renderer, the one that grew most being the page's). RSS figures are growth over the moment the
// bytes were in memory.
async function walkMemory(agent, pids) {
  const processes = pids();
  const base = Object.fromEntries(processes.map((pid) => [pid, procBytes(pid, 'VmRSS')]));
  const before = await agent.call('memory');
  processes.forEach(resetPeak);
  const rss = () => Object.fromEntries(processes.map((pid) => [pid, procBytes(pid, 'VmRSS') - base[pid]]));
  const afterLoad = { ...(await agent.call('walkLoad')), rssGrowth: rss() };
  const afterPrefill = { ...(await agent.call('walkPrefill')), rssGrowth: rss() };
  const afterDecode = { ...(await agent.call('walkDecode', DECODE_STEPS)), rssGrowth: rss() };
  const peaks = Object.fromEntries(processes.map((pid) => [pid, procBytes(pid, 'VmHWM') - base[pid]]));
  const pid = processes.reduce((best, p) => (peaks[p] > peaks[best] ? p : best));
  const pick = (step) => ({ ...step, rssGrowth: step.rssGrowth[pid] });
  return { before, afterLoad: pick(afterLoad), afterPrefill: pick(afterPrefill), afterDecode: pick(afterDecode), peakGrowth: peaks[pid] };
}

// ---- the report ----

const MB = (bytes) => (bytes / 1e6).toFixed(0);
const fixed = (x, digits = 1) => x.toFixed(digits);
const range = (s, digits = 1) => `${fixed(s.p10, digits)}–${fixed(s.p90, digits)}`;
const met = (ok) => (ok ? 'met' : '**not met**');

// The three timed measures of a configuration, each side's runs → stats (decode: ms per token of each run).
function summarise(run) {
  const perToken = (runs) => runs.map((steps) => steps.reduce((a, b) => a + b, 0) / steps.length);
  const of = (measure, map = (x) => x) => Object.fromEntries(SIDES.map((side) => [side, stats(map(run[measure][side]))]));
  return {
    load: of('load'), prefill: of('prefill'), decode: of('decode', perToken),
    decodeStep: of('decode', (runs) => runs.flat()),
  };
}

function timeRows(run) {
  const s = summarise(run);
  const row = (what, measure, digits, runs) => {
    const [a, o] = SIDES.map((side) => s[measure][side]);
    return `| ${run.label} | ${what} | ${fixed(a.median, digits)} | ${range(a, digits)} | ${fixed(o.median, digits)} | ${range(o, digits)} | ${fixed(o.median / a.median, 2)}× | ${runs} | ` +
      `${run.loadAverage.map((x) => fixed(x)).join('→')} |`;
  };
  return [
    row('load (ms)', 'load', 0, `${LOAD_RUNS}`),
    row(`prefill ${PROMPT} tokens (ms)`, 'prefill', 0, `${PREFILL_RUNS}`),
    row(`decode, ms per token (${DECODE_STEPS} steps, cache ${PROMPT}→${PROMPT + DECODE_STEPS})`, 'decode', 1, `${DECODE_RUNS}`),
    row('decode, one step (ms; all steps pooled)', 'decodeStep', 1, `${DECODE_RUNS}×${DECODE_STEPS}`),
  ];
}

// weightsAndCache: side → its weights in memory + the cache (bytes).
function memoryRows(env, walks, weightsAndCache) {
  return walks.map(({ side, threads, walk }) => {
    const own = weightsAndCache[side];
    const end = walk.afterDecode;
    const heap = end.wasmHeap;
    const inUse = end.lab?.gpt ? `${MB(end.lab.gpt.inUse)} MB` : '—';
    const node = end.arrayBuffers !== undefined ? `${MB(end.arrayBuffers - walk.before.arrayBuffers)} MB` : '—';
    return `| ${env} | ${side} | ${threads} | ${fixed(walk.afterLoad.ms, 0)} | ${MB(heap)} MB | ${inUse} | ${MB(walk.afterLoad.rssGrowth)} MB | ` +
      `${MB(walk.peakGrowth)} MB | ${MB(end.rssGrowth)} MB | ${node} | ${fixed(walk.peakGrowth / own, 2)}× | ${fixed(heap / own, 2)}× |`;
  });
}

function goalRows(runs, walks, weightsAndCache) {
  const speed = (measure) => runs.map((run) => {
    const s = summarise(run)[measure];
    const ratio = s['onnxruntime-web'].median / s.attnlab.median;
    return `${fixed(ratio, 2)}×, ${met(ratio >= GOALS.speedUp)}`;
  });
  const memory = (side) => runs.map((run) => {
    const walk = walks.find((w) => w.env === run.env && w.side === side && w.threads === run.info[side].threads);
    if (!walk) return '—';
    const ratio = walk.walk.peakGrowth / weightsAndCache[side];
    return `${fixed(ratio, 2)}×, ${met(ratio <= GOALS.memory)}`;
  });
  return [
    `| prefill: attnlab ≥ ${GOALS.speedUp}× as fast as onnxruntime-web | ${speed('prefill').join(' | ')} |`,
    `| decode: attnlab ≥ ${GOALS.speedUp}× as fast as onnxruntime-web | ${speed('decode').join(' | ')} |`,
    `| attnlab's peak memory ≤ ${GOALS.memory} × (its weights + cache) | ${memory('attnlab').join(' | ')} |`,
    `| (onnxruntime-web's peak memory ÷ (its weights + cache), for comparison) | ${memory('onnxruntime-web').map((m) => m.split(',')[0]).join(' | ')} |`,
    `| (attnlab's live heap allocations, "heap in use", ÷ (its weights + cache)) | ${runs.map((run) => {
      const walk = walks.find((w) => w.env === run.env && w.side === 'attnlab' && w.threads === run.info.attnlab.threads);
      return walk?.walk.afterDecode.lab?.gpt ? `${fixed(walk.walk.afterDecode.lab.gpt.inUse / weightsAndCache.attnlab, 2)}×` : '—';
    }).join(' | ')} |`,
  ];
}

function breakdownRow(run, config) {
  const b = run.breakdown;
  const s = summarise(run);
  const [prefill, decode] = ['prefill', 'decode'].map((m) => SIDES.map((side) => s[m][side].median));
  const gflops = prefill.map((ms) => fixed((2 * PROMPT * config.parameterCount) / (ms * 1e6), 1));
  const weights = weightsInMemory(config);
  const gbs = decode.map((ms, i) => fixed(weights[SIDES[i]] / (ms * 1e6), 1));
  const share = (all, none) => `${Math.round((100 * (all - none)) / all)}%`;
  return `| ${run.label} | ${fixed(b['forward 32, logits all'], 0)} | ${fixed(b['forward 32, logits last'], 0)} | ${fixed(b['forward 32, logits none'], 0)} | ` +
    `${share(b['forward 32, logits all'], b['forward 32, logits last'])} | ${fixed(b['forward 1, logits all'])} | ${fixed(b['forward 1, logits none'])} | ` +
    `${share(b['forward 1, logits all'], b['forward 1, logits none'])} | ${gflops.join(' / ')} | ${gbs.join(' / ')} |`;
}

// Each side's 2-thread medians over its 1-thread ones, per environment (> 1: slower on 2 threads).
function threadsNote(runs) {
  const lines = ['Chromium', 'Node'].map((env) => {
    const [one, two] = [1, 2].map((t) => runs.find((r) => r.env === env && r.threads === t));
    if (!one || !two) return '';
    const [s1, s2] = [one, two].map(summarise);
    const ratio = (side, m) => fixed(s2[m][side].median / s1[m][side].median, 2);
    const sides = env === 'Node' ? ['onnxruntime-web'] : SIDES;
    return `${env}: ${sides.map((side) => `${side} took ${ratio(side, 'prefill')}× its 1-thread time for the prefill and ${ratio(side, 'decode')}× for a decode step`).join('; ')}.`;
  }).filter(Boolean);
  return `Two threads against one (2-thread medians over 1-thread medians, from configurations run minutes apart
under different load, so only roughly; in Node attnlab runs 1 thread in both): ${lines.join(' ')}
With the load average above the core count, a second thread has no idle core to run on: a parallel loop
waits for whichever thread the system preempted. And attnlab keeps a product under 2²⁰ multiply-adds on
one thread (cpp/src/tensor/parallel.cpp): in a decode step every projection (576 × 1,536 and smaller) stays
on one thread and only the output projection (576 × 49,152) is shared.`;
}

// What each side's weights take in memory (bytes): attnlab's BF16 matrices stay BF16 (LlamaConfig.weightBytes);
// onnxruntime-web's graph holds float32.
const weightsInMemory = (config) => ({ attnlab: config.weightBytes, 'onnxruntime-web': config.parameterCount * 4 });

// Where attnlab's load time and heap go (read from the code: web/lib/checkpoint-files.js,
// cpp/src/llama/llama_loader.cpp); `heap`: its GPT module's heap at the end of a memory walk.
const memoryNote = (fileBytes, weights, heap) => `Where attnlab's memory and load time go (read from the code, web/lib/checkpoint-files.js and
cpp/src/llama/llama_loader.cpp): \`lab.loadModel\` streams the ${MB(fileBytes)} MB checkpoint into the model 4 MiB at a
time (a LlamaLoaderHandle): config.json lays the model out and is checked against the memory budget; each
tensor's buffer is made when its file's header names its dtype — a BF16 matrix stays BF16 (2 bytes a value), any
other tensor is float32 — and each piece is copied into the heap and into place (BF16 as it is, F16 and F32
widened or copied), then every weight is checked finite: ${MB(weights)} MB of weights. The heap never holds the file. The GPT module's heap (${heap ? `${MB(heap)} MB` : '—'}) is larger than what it holds (weights +
cache, the "heap in use" column below): a wasm heap grows in steps of up to a fifth of its size (Emscripten's
geometric growth) and never shrinks, and the pages it has not touched take no memory — the peak RSS growth stays
near weights + cache.`;

// What the 2-thread columns compare, in words from the data.
function likeForLikeNote(runs) {
  const node = [1, 2].map((t) => runs.find((r) => r.env === 'Node' && r.threads === t));
  let nodeNote = '';
  if (node[0] && node[1]) {
    const [s1, s2] = node.map(summarise);
    const ratio = (m) => fixed(s2[m]['onnxruntime-web'].median / s1[m]['onnxruntime-web'].median, 2);
    nodeNote = ` In Node attnlab runs on 1 thread in both columns, while onnxruntime-web on 2 threads took ${ratio('prefill')}× (prefill)
and ${ratio('decode')}× (decode) its 1-thread time here (runs minutes apart): where that is above 1, the Node 2-thread column compares
attnlab with onnxruntime-web's slower configuration on this machine.`;
  }
  return `The 1-thread columns are the like-for-like comparison on this machine: on 2 threads both sides compete with
other processes for the 2 cores (see "Two threads against one").${nodeNote}`;
}

// How busy the machine was, in words from its load averages.
function loadNote(start, end, cores) {
  const figures = `1-minute load average ${start.toFixed(1)} when the run began (${end.toFixed(1)} at its end) on ${cores} cores`;
  if (Math.max(start, end) < 0.5 * cores) return `A quiet machine: ${figures}.`;
  return `**A busy machine:** ${figures} — other processes shared them. Every figure here was taken with them running, the
2-thread ones most of all (a second thread finds no idle core); read the ratios more than the times.`;
}

function report({ folder, config, onnxBytes, fileBytes, chromium, ortVersion, attnlabVersion, loadStart, loadEnd, runs, walks }) {
  const inMemory = weightsInMemory(config);
  const weights = inMemory.attnlab, floatWeights = inMemory['onnxruntime-web'];
  const cache = (PROMPT + DECODE_STEPS) * config.kvCacheBytesPerToken;
  const weightsAndCache = { attnlab: weights + cache, 'onnxruntime-web': floatWeights + cache };
  const cpus = os.cpus();
  const agreementRows = runs.map(({ label, agreement: a }) =>
    `| ${label} | ${a.prefill.worst.toExponential(2)} | ${a.reference[0].worst.toExponential(2)} | ${a.reference[1].worst.toExponential(2)} | identical |`);
  return `# Llama inference: attnlab vs onnxruntime-web (SmolLM2-135M's shapes)

\`node bench/llama-inference.mjs\` (via \`scripts/bench.sh\`), ${new Date().toISOString().slice(0, 10)}, ${cpus[0].model.trim()}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB.
${loadNote(loadStart, loadEnd, cpus.length)}
Node ${process.version}, headless Chromium ${chromium}, onnxruntime-web ${ortVersion}, attnlab ${attnlabVersion}.

Checkpoint: \`${folder}\`, written by \`tests/fixtures/make_llama_fixtures.py --large\` (random weights,
SmolLM2-135M's config.json): vocab ${config.vocabSize.toLocaleString('en-US')}, d ${config.hiddenSize}, MLP ${config.intermediateSize}, ${config.numLayers} layers, ${config.numHeads} query heads on
${config.numKeyValueHeads} key/value heads of ${config.headDim}, RoPE theta ${config.ropeTheta.toLocaleString('en-US')}, tied embeddings; ${config.parameterCount.toLocaleString('en-US')} parameters, stored BF16
(model.safetensors ${MB(fileBytes)} MB). Both sides compute in float32 on the same values. attnlab keeps the file's BF16
matrices as BF16 in memory and widens each value as its products read it (exact: the logits are those of the same
weights held in float32, bit for bit — tests/js/llama.test.js): **weights ${MB(weights)} MB** (the norms float32).
onnxruntime-web's graph holds them as float32: **weights ${MB(floatWeights)} MB**. The KV cache keeps
${config.kvCacheBytesPerToken.toLocaleString('en-US')} bytes per token, **${(cache / 1e6).toFixed(2)} MB** at ${PROMPT + DECODE_STEPS} tokens: weights + cache ${MB(weightsAndCache.attnlab)} MB
(attnlab), ${MB(weightsAndCache['onnxruntime-web'])} MB (onnxruntime-web).

## The peer, and what was done instead of transformers.js

transformers.js is not installed here, and it runs a Hugging Face hub folder holding an ONNX export
(optimum's, which needs the \`onnx\` and \`transformers\` Python packages, neither installed). So the peer is
**onnxruntime-web used directly** — the runtime transformers.js itself runs on — on an ONNX opset-17 graph
of the same forward built by hand in JavaScript (\`bench/onnx-llama-graph.mjs\`) from the float32 weights
attnlab decodes from the BF16 checkpoint (\`LlamaModel.tensor\`): both sides compute on the same numbers.
(\`torch.onnx.export\` in Debian's torch 1.13 does work without the \`onnx\` package — checked on a small
module — so the float64 reference in scripts/llama/model.py could have been exported cast to float32;
the graph was built by hand instead, as bench/onnx-gpt-graph.mjs is, to need no Python step at bench time and
to control its shape.) The graph (${MB(onnxBytes)} MB): one \`llama_step\` graph for both prefill and decode — ids [n],
position, and each layer's past K/V [${config.numKeyValueHeads}×past×${config.headDim}] → logits [n×${config.vocabSize}] and present K/V — so one session holds
the weights once, as attnlab's one LlamaModel does. Grouped-query attention reshapes the queries
[${config.numHeads}×n×${config.headDim}] to [${config.numKeyValueHeads}×(${config.numHeads / config.numKeyValueHeads}·n)×${config.headDim}] so each key/value head meets its ${config.numHeads / config.numKeyValueHeads} query heads in one batched MatMul (no
Expand/Tile copy of K and V); RoPE (Hugging Face's rotate_half pairing) reads cos/sin tables stored as
initializers; RMSNorm is the Pow→ReduceMean→Add→Sqrt→Div→Mul pattern onnxruntime fuses; every projection a
Gemm with transB on nn.Linear's [out×in] weight as stored (the tied output projection shares the
embedding's initializer). On the wasm backend onnxruntime-web hands every output to JavaScript and takes
every input from it: each decode step copies the present K/V (${(config.kvCacheBytesPerToken / 1000).toFixed(1)} kB per cached token) out of its heap
and the next run copies them back in, as any user of it does.

How each side runs: attnlab \`lab.loadModel({ config.json, model.safetensors, tokenizer.json })\` (loadModel
requires a tokenizer.json and there is no lower-level public loading call; the benchmark feeds ids, so it
passes a BPE tokenizer.json of the 256 byte tokens, ${(byteTokenizerJson().length / 1000).toFixed(1)} kB, parsed within the load time), \`LlamaSession.append(ids)\`
for the prefill and each decode step; \`init({ threads: 1 })\` is the single-threaded SIMD build, \`init({ threads: 2 })\`
the threaded one (Chromium only: in Node attnlab always runs its single-threaded build, so the Node
"2 threads" rows compare it, on 1 thread, with onnxruntime-web on 2). onnxruntime-web: wasm backend, SIMD,
\`numThreads\` 1 or 2, graph optimisation 'all'. In Chromium each side has a cross-origin-isolated page of
its own (threads need it; a side's spinning threads stay its own), the bytes fetched into the page before
anything is timed; in Node each side is a child process of its own. The two sides' calls are interleaved
call by call, with a ${PAUSE_MS} ms pause before each (both libraries' threads spin for a while after a call).

Agreement, checked before timing in each configuration (the run fails past ${MAX_RELATIVE_DIFFERENCE} × max(1, max |logit|)):
the ${PROMPT}-token prefill's logits of the two sides; both sides against the float64 PyTorch reference the
fixture script stores (scripts/llama/model.py on the BF16-rounded weights: the last 3 rows of its 12-token
prompt's logits); and the ${AGREEMENT_STEPS} greedy tokens after the prefill (${runs[0].agreement.tokens.join(' ')}).

| configuration | prefill: max \\|attnlab − ort-web\\| | max \\|attnlab − float64\\| | max \\|ort-web − float64\\| | greedy tokens |
|---|---|---|---|---|
${agreementRows.join('\n')}

(max |logit| ${runs[0].agreement.prefill.scale.toFixed(1)} on the prefill, ${runs[0].agreement.reference[0].scale.toFixed(1)} on the reference rows.)

## Times

Load: bytes in memory → model ready (the previous model freed first, untimed), ${LOAD_RUNS} runs after an untimed
first load (the heap has grown already: a fresh process's first load is in the memory table). Prefill:
${PROMPT} ids into an empty cache → logits [${PROMPT}×${config.vocabSize}] in JavaScript, ${PREFILL_RUNS} runs after ${WARMUP_RUNS} warm-up round. Decode:
${DECODE_STEPS} greedy steps after a ${PROMPT}-token prefill (untimed), each step's logits [1×${config.vocabSize}] to JavaScript and its argmax,
ms per token = the steps' time / ${DECODE_STEPS}, ${DECODE_RUNS} runs after ${WARMUP_RUNS} warm-up round. Medians, with the p10–p90 of the
runs; "ort-web ÷ attnlab" is onnxruntime-web's median over attnlab's (> 1: attnlab ahead); the last column is the
1-minute load average when the configuration began and ended. Within a configuration the two sides took
turns call by call, so their ratio compares like with like; the configurations ran minutes apart under
different load, so their times are not comparable with each other's.

| configuration | measure | attnlab median | attnlab p10–p90 | onnxruntime-web median | ort-web p10–p90 | ort-web ÷ attnlab | runs | load average (start→end) |
|---|---|---|---|---|---|---|---|---|
${runs.flatMap(timeRows).join('\n')}

${threadsNote(runs)}

## Where attnlab's time goes

\`LlamaModel.forward\` without a cache, attnlab alone (${BREAKDOWN_RUNS} interleaved runs of each, medians, ms): ${PROMPT} ids, and 1 id (a decode
step less its attention over the cache), with the logits of every row, of the last row only, or none (no
output projection: ${config.hiddenSize} × ${config.vocabSize.toLocaleString('en-US')} multiply-adds per row, ${MB(config.vocabSize * config.hiddenSize * 4)} MB of the weights). Throughput from the medians above: the
prefill's ≈ 2 × ${PROMPT} × ${(config.parameterCount / 1e6).toFixed(1)}M floating-point operations per second (attention's are < 1% here), and a decode
step's weights read per second (${MB(weights)} MB per token for attnlab, ${MB(floatWeights)} MB for onnxruntime-web: decoding is
bound by memory bandwidth).

| configuration | forward ${PROMPT}: all logits | last row's | none | ${PROMPT} rows of logits: share of the forward | forward 1: logits | none | output projection: share | prefill GFLOP/s attnlab / ort-web | decode GB/s of weights attnlab / ort-web |
|---|---|---|---|---|---|---|---|---|---|
${runs.map((run) => breakdownRow(run, config)).join('\n')}

${memoryNote(fileBytes, weights, walks.find((w) => w.side === 'attnlab')?.walk.afterDecode.lab?.gpt?.heapSize)}

## Memory

A fresh Node process or browser per side: the bytes read into memory (the baseline), then load, a
${PROMPT}-token prefill into a kept cache, ${DECODE_STEPS} decode steps into it (${PROMPT + DECODE_STEPS} cached tokens). RSS figures are growth over
the baseline, of the Node child process or of the page's Chromium renderer process (its workers are
threads of it); the peak is VmHWM after resetting it at the baseline (/proc/<pid>/clear_refs). The input
bytes (${MB(fileBytes)} MB of safetensors for attnlab, ${MB(onnxBytes)} MB of ONNX for onnxruntime-web) are in the baseline
and kept by the caller throughout. "wasm heap": every WebAssembly.Memory the side made, at the end (a wasm
heap never shrinks: it is its peak); "heap in use": attnlab's own count of its live allocations
(\`lab.memory().gpt.inUse\`). "arrayBuffers Δ": Node's process.memoryUsage().arrayBuffers growth (the
JavaScript-side copies: logits, onnxruntime-web's K/V tensors). The ratios are to each side's own weights + cache
(${MB(weightsAndCache.attnlab)} MB attnlab, ${MB(weightsAndCache['onnxruntime-web'])} MB onnxruntime-web).

| environment | side | threads | first load (ms) | wasm heap | heap in use | RSS growth after load | peak RSS growth | RSS growth at the end | arrayBuffers Δ | peak ÷ (weights + cache) | wasm heap ÷ (weights + cache) |
|---|---|---|---|---|---|---|---|---|---|---|---|
${walks.flatMap(({ env, side, threads, walk }) => memoryRows(env, [{ side, threads, walk }], weightsAndCache)).join('\n')}

## Goals (issue 49, item 6)

Speed: onnxruntime-web's median time over attnlab's (prefill ${PROMPT} tokens; decode ms per token); memory: peak RSS
growth over the side's own weights + cache (${MB(weightsAndCache.attnlab)} MB for attnlab).

| goal | ${runs.map((r) => r.label).join(' | ')} |
|---|${runs.map(() => '---').join('|')}|
${goalRows(runs, walks, weightsAndCache).join('\n')}

${likeForLikeNote(runs)}

${overheadNote(walks, weightsAndCache.attnlab, config.vocabSize)}

${DECODE_NOTE}
`;
}

// What attnlab's peak holds beyond its weights and cache, in megabytes from the memory walks.
function overheadNote(walks, weightsAndCache, vocabSize) {
  const over = walks.filter((w) => w.side === 'attnlab').map((w) => Math.round((w.walk.peakGrowth - weightsAndCache) / 1e6));
  const range = Math.min(...over) === Math.max(...over) ? `${over[0]}` : `${Math.min(...over)}–${Math.max(...over)}`;
  return `attnlab's peak RSS growth is its weights + cache and ${range} MB more in every walk: the 4 MiB piece a load reads
the file into, and during the prefill the ${PROMPT} rows of logits (${MB(PROMPT * vocabSize * 4)} MB) in the heap and again in JavaScript. With
the matrices kept as BF16 those fixed megabytes are a tenth of weights + cache, where they were a twentieth of the
float32 weights, which is why the memory ratio sits at the 1.1 line.`;
}

// Why decoding has a ceiling both sides are near (the breakdown table's last column shows it).
const DECODE_NOTE = `A decode step reads every weight once for one token: it runs at the memory bandwidth of one core (the
breakdown's last column), so what moves it is how many bytes a token reads. attnlab reads the checkpoint's BF16
matrices as the file stores them, half the bytes of float32, widening each value inside the dot product that
reads it (exact: BF16 → float32 loses nothing); onnxruntime-web reads float32. A prefill is bound by arithmetic
instead: there attnlab widens each run of 64 weight rows once into a buffer that all the prompt's rows then read
from cache, and multiplies as it multiplies float32.`;

// ---- the run ----

async function main() {
  const loadStart = os.loadavg()[0];
  const dataDir = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? '/tmp/llama-bench';
  const folder = `${dataDir}/smollm2_135m`;
  if (!existsSync(`${folder}/model.safetensors`) || !existsSync(`${folder}/expected.json`)) {
    console.log(`llama-inference: writing the checkpoint into ${dataDir} (make_llama_fixtures.py --large)`);
    execFileSync('/usr/bin/python3', ['tests/fixtures/make_llama_fixtures.py', '--large', dataDir], { cwd: repo, stdio: 'inherit' });
  }
  const expected = JSON.parse(readFileSync(`${folder}/expected.json`, 'utf8'));
  const reference = { prompt: expected.prompt, rows: expected.logits_last_rows.length };
  const referenceRows = expected.logits_last_rows.flat();
  console.log('llama-inference: building the ONNX graph');
  const graph = spawnChild(['--graph', folder]);
  const { config, onnxBytes } = await new Promise((resolve, reject) => {
    graph.child.on('message', resolve);
    graph.child.on('exit', (code) => reject(new Error(`llama-inference: the graph process exited (${code})`)));
  });
  await graph.exited;
  const fileBytes = readFileSync(`${folder}/model.safetensors`).length;
  const agentSpec = (library, threads) => ({ library, threads, config, reference });

  const { launch } = await import('../tests/e2e/browser.js');
  const { serve } = await import('../tests/e2e/static-server.js');
  const servers = { repo: await serve(repo, 0, { headers: ISOLATION }), data: await serve(folder, 0, { headers: { ...CORS, ...ISOLATION } }) };
  const runs = [];
  const walks = [];
  let chromium = '';
  try {
    // Times: Chromium, then Node, each on 1 and 2 threads.
    const browser = await launch();
    chromium = browser.version();
    try {
      for (const threads of THREADS) {
        const run = await measureTimes(`Chromium, ${threads} thread${threads > 1 ? 's' : ''}`,
          (side, t) => pageAgent(browser, servers, agentSpec(side, t)), threads, referenceRows);
        runs.push({ ...run, env: 'Chromium' });
      }
    } finally {
      await browser.close();
    }
    for (const threads of THREADS) {
      const run = await measureTimes(`Node, ${threads} thread${threads > 1 ? 's' : ''}`,
        (side, t) => nodeAgent({ ...agentSpec(side, t), folder }), threads, referenceRows);
      runs.push({ ...run, env: 'Node' });
    }
    // Memory: a fresh browser or process per side and thread count.
    for (const threads of THREADS) {
      for (const side of SIDES) {
        const walkBrowser = await launch();
        try {
          const agent = await pageAgent(walkBrowser, servers, agentSpec(side, threads));
          const cdp = await walkBrowser.newBrowserCDPSession();
          const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
          const renderers = processInfo.filter((p) => p.type === 'renderer').map((p) => p.id);
          const walk = await walkMemory(agent, () => renderers);
          walks.push({ env: 'Chromium', side, threads: (await agent.call('info')).threads, walk });
          console.log(`memory, Chromium, ${side}, ${threads}: peak growth ${MB(walk.peakGrowth)} MB, heap ${MB(walk.afterDecode.wasmHeap)} MB`);
        } finally {
          await walkBrowser.close();
        }
      }
    }
    for (const [side, threads] of [['attnlab', 1], ['onnxruntime-web', 1], ['onnxruntime-web', 2]]) {
      const agent = await nodeAgent({ ...agentSpec(side, threads), folder });
      try {
        const walk = await walkMemory(agent, () => [agent.pid()]);
        walks.push({ env: 'Node', side, threads, walk });
        console.log(`memory, Node, ${side}, ${threads}: peak growth ${MB(walk.peakGrowth)} MB, heap ${MB(walk.afterDecode.wasmHeap)} MB`);
      } finally {
        await agent.close();
      }
    }
  } finally {
    await servers.repo.close();
    await servers.data.close();
  }
  const text = report({
    folder, config, onnxBytes, fileBytes, chromium, loadStart, loadEnd: os.loadavg()[0], runs, walks,
    ortVersion: runs[0].info['onnxruntime-web'].version, attnlabVersion: runs[0].info.attnlab.version,
  });
  if (!QUICK) writeFileSync(new URL('llama-inference-results.md', import.meta.url), text);
  console.log(text);
}

if (process.argv[2] === '--agent') await agentProcess(JSON.parse(process.argv[3]));
else if (process.argv[2] === '--graph') await graphProcess(process.argv[3]);
else await main();
