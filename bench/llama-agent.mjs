// One side of bench/llama-inference.mjs — attnlab's LlamaModel or onnxruntime-web on
// bench/onnx-llama-graph.mjs's graph — in a Chromium page (imported from the repo's server) or in a Node
// child process (imported directly): the same code times both environments. bench/llama-inference.mjs
// sends it one call at a time and interleaves the two sides' calls. Every timed call starts from bytes
// already in memory and ends when the result is in JavaScript (logits copied out of the wasm heap).
//   load()         the checkpoint's bytes → a model ready to run (the previous one freed first, untimed)
//   prefill()      PROMPT ids read into an empty KV cache → logits [PROMPT×V] (and the cache)
//   decode(steps)  an untimed prefill, then `steps` greedy tokens one at a time through the cache, each
//                  step timed with its argmax (in JS, on both sides) → ms per step
//   breakdown(runs) attnlab only: LlamaModel.forward with and without the output projection
//   agreement(steps), walkLoad/walkPrefill/walkDecode, memory(): the checks before timing, the memory walk
// The shapes (SmolLM2-135M's): V 49,152, d 576, 30 layers, 9 query heads on 3 key/value heads of 64.

// The bench's token ids: fixed pseudo-random ids, the same on both sides.
export const PROMPT = 32;
export const promptIds = (vocabSize, n = PROMPT) => Array.from({ length: n }, (_, i) => (i * 7919 + 13) % vocabSize);

// Index of the largest value (the first, on a tie), as the GPT bench's greedy loop.
export function argmax(row) {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

// Float32Array ↔ base64 (page.evaluate and process.send carry strings well; 6 MB of logits as JSON numbers badly).
export function floatsToBase64(floats) {
  const bytes = new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

export function base64ToFloats(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

// Installed before either library loads (page.addInitScript; first thing in a Node child): remembers
// every WebAssembly.Memory made or exported, so a side's wasm heap can be read whichever library made it
// (attnlab's modules export theirs; onnxruntime-web's threaded build makes a shared one in JS).
// Self-contained: Playwright serialises it.
export function captureWasmMemories() {
  const W = globalThis.WebAssembly;
  const memories = new Set();
  globalThis.__wasmMemories = memories;
  const keep = (instance) => {
    for (const value of Object.values(instance?.exports ?? {})) if (value instanceof W.Memory) memories.add(value);
    return instance;
  };
  const kept = (result) => (result instanceof W.Instance ? keep(result) : (keep(result.instance), result));
  const instantiate = W.instantiate;
  W.instantiate = (...args) => instantiate.apply(W, args).then(kept);
  if (W.instantiateStreaming) {
    const streaming = W.instantiateStreaming;
    W.instantiateStreaming = (...args) => streaming.apply(W, args).then(kept);
  }
  W.Memory = new Proxy(W.Memory, { construct(target, args) { const m = Reflect.construct(target, args); memories.add(m); return m; } });
  W.Instance = new Proxy(W.Instance, { construct(target, args) { return keep(Reflect.construct(target, args)); } });
}

export const wasmHeapBytes = () => [...(globalThis.__wasmMemories ?? [])].reduce((sum, m) => sum + m.buffer.byteLength, 0);

// A tokenizer.json of the 256 byte tokens and no merges: lab.loadModel needs one (the benchmark feeds ids).
export function byteTokenizerJson() {
  const printable = [];
  for (let b = 0; b < 256; b++) if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174) printable.push(b);
  let extra = 0;
  const vocab = {};
  for (let b = 0; b < 256; b++) vocab[String.fromCodePoint(printable.includes(b) ? b : 256 + extra++)] = b;
  return JSON.stringify({
    version: '1.0', added_tokens: [], normalizer: null, post_processor: null, decoder: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, vocab, merges: [] },
  });
}

// attnlab: lab.loadModel({ config.json, model.safetensors, tokenizer.json }) → LlamaModel; a step is
// LlamaSession.append(ids) (prefill: 32 ids at once; decode: one). init: web/index.js's init.
async function attnlabSide({ init, threads, files }) {
  const lab = await init({ threads, memoryBudget: 2 ** 31 });  // ~0.6 GiB of float32 weights: over the 512 MiB default
  await lab.loadGPTModule();
  let model;
  let tokenizer;
  const release = () => {
    model?.dispose();
    tokenizer?.dispose();
    model = tokenizer = undefined;
  };
  return {
    info: { threads: lab.threads, build: `${lab.kernels}${lab.threads > 1 ? ', threaded build' : ''}`, version: lab.version },
    async load() {
      ({ model, tokenizer } = await lab.loadModel(files));
    },
    release,
    config: () => model.config,
    // A fresh cache: { step(ids) → logits Float32Array [ids.length×V], cacheBytes(), dispose() }.
    session() {
      const session = model.session();
      return { step: (ids) => session.append(ids).logits.data, cacheBytes: () => session.cacheBytes, dispose: () => session.dispose() };
    },
    memory: () => lab.memory(),
    forward: (ids, options) => model.forward(ids, options),
  };
}

// onnxruntime-web (wasm backend, graph optimisation 'all') on the step graph: the same session for a
// prefill (past 0) and a decode step (n 1), each step's present K/V fed back as the next past.
async function ortSide({ ort, threads, files, config }) {
  ort.env.wasm.numThreads = threads;
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const { numLayers, numKeyValueHeads, headDim } = config;
  const empty = new ort.Tensor('float32', new Float32Array(0), [numKeyValueHeads, 0, headDim]);
  const int64 = (values) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [values.length]);
  let session;
  const release = async () => {
    await session?.release();
    session = undefined;
  };
  return {
    get info() {
      return { threads: ort.env.wasm.numThreads, build: 'wasm SIMD', version: ort.env.versions?.web ?? '' };
    },
    async load() {
      session = await ort.InferenceSession.create(files['model.onnx'], options);
    },
    release,
    config: () => config,
    session() {
      let past = {};
      let position = 0;
      for (let l = 0; l < numLayers; l++) past[`past_k_${l}`] = past[`past_v_${l}`] = empty;
      return {
        async step(ids) {
          const out = await session.run({ ids: int64(ids), position: int64([position]), ...past });
          past = {};
          for (let l = 0; l < numLayers; l++) for (const kv of ['k', 'v']) past[`past_${kv}_${l}`] = out[`present_${kv}_${l}`];
          position += ids.length;
          return out.logits.data;
        },
        cacheBytes: () => Object.values(past).reduce((sum, t) => sum + t.data.byteLength, 0),
        dispose() {
          past = {};
        },
      };
    },
    memory: () => ({}),
  };
}

// → the agent bench/llama-inference.mjs drives: { info, load, prefill, decode, agreement, memory… }.
// library 'attnlab' (needs init, files: config.json, model.safetensors, tokenizer.json) or
// 'onnxruntime-web' (needs ort, files: model.onnx, and the model's config).
export async function createAgent({ library, threads, files, init, ort, config, reference }) {
  const side = library === 'attnlab' ? await attnlabSide({ init, threads, files }) : await ortSide({ ort, threads, files, config });
  const ms = async (fn) => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  let kept;  // the memory walk's session, kept between its calls
  const ids = () => promptIds(side.config().vocabSize);
  return {
    info: () => side.info,
    // Timed: the previous model freed (untimed), then the bytes → a model ready to run.
    async load() {
      await side.release();
      return ms(() => side.load());
    },
    async prefill() {
      const session = side.session();
      const prompt = ids();
      const time = await ms(() => session.step(prompt));
      session.dispose();
      return time;
    },
    // → ms of each of `steps` greedy steps after an untimed prefill (each with its argmax).
    async decode(steps) {
      const session = side.session();
      let next = argmax((await session.step(ids())).slice(-side.config().vocabSize));
      const times = [];
      for (let s = 0; s < steps; s++) {
        const start = performance.now();
        next = argmax(await session.step([next]));
        times.push(performance.now() - start);
      }
      session.dispose();
      return times;
    },
    // What the sides are compared on, before any timing: the prefill's logits [PROMPT×V], the `steps`
    // greedy tokens after it, and the logits of the fixture's own prompt (reference.prompt, whose last
    // rows the float64 PyTorch reference computed) → base64 floats, token ids.
    async agreement(steps) {
      const V = side.config().vocabSize;
      let session = side.session();
      const logits = Float32Array.from(await session.step(ids()));
      const tokens = [argmax(logits.subarray(logits.length - V))];
      while (tokens.length < steps) tokens.push(argmax(await session.step([tokens.at(-1)])));
      session.dispose();
      session = side.session();
      const referenceLogits = Float32Array.from(await session.step(reference.prompt));
      session.dispose();
      return {
        logits: floatsToBase64(logits), tokens,
        referenceRows: floatsToBase64(referenceLogits.subarray(referenceLogits.length - reference.rows * V)),
      };
    },
    // attnlab only (null for the peer): where a prefill's and a decode step's time goes, from LlamaModel.forward
    // without a cache — 32 ids, and 1 id (a decode step less its attention over the cache) — with the
    // logits of every row, of the last row only, or none (no output projection, 576 × 49,152 per row) →
    // { case: median ms } over `runs` interleaved runs after one untimed round.
    async breakdown(runs) {
      if (!side.forward) return null;
      const prompt = ids();
      const cases = {
        'forward 32, logits all': () => side.forward(prompt),
        'forward 32, logits last': () => side.forward(prompt, { logits: 'last' }),
        'forward 32, logits none': () => side.forward(prompt, { logits: 'none' }),
        'forward 1, logits all': () => side.forward(prompt.slice(0, 1)),
        'forward 1, logits none': () => side.forward(prompt.slice(0, 1), { logits: 'none' }),
      };
      const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
      for (let r = 0; r <= runs; r++) {
        for (const [name, run] of Object.entries(cases)) {
          const time = await ms(run);
          if (r > 0) times[name].push(time);
        }
      }
      return Object.fromEntries(Object.entries(times).map(([name, t]) => [name, [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)]]));
    },
    // The memory walk (bench/llama-inference.mjs reads the process's RSS between the calls): load once,
    // prefill PROMPT tokens into a cache that is kept, then `steps` decode steps into it.
    async walkLoad() {
      return { ms: await ms(() => side.load()), ...this.memory() };
    },
    async walkPrefill() {
      kept = side.session();
      await kept.step(ids());
      return { cacheBytes: kept.cacheBytes(), ...this.memory() };
    },
    async walkDecode(steps) {
      let next = 0;
      for (let s = 0; s < steps; s++) next = argmax(await kept.step([next]));
      return { cacheBytes: kept.cacheBytes(), ...this.memory() };
    },
    // The sides' wasm heaps (every memory made), attnlab's own count of its heaps, and in Node the
    // process's memoryUsage().
    memory() {
      const node = typeof process !== 'undefined' && process.memoryUsage ? process.memoryUsage() : undefined;
      return { wasmHeap: wasmHeapBytes(), lab: side.memory(), ...(node ? { rss: node.rss, arrayBuffers: node.arrayBuffers, external: node.external } : {}) };
    },
  };
}
