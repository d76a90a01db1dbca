// The four caches, off the page's thread: attnlab-kjv-llama and the same weights with Mistral's sliding window read
// the passage a token at a time (parts.js CacheRun). On a phone one token through four caches is a good part of a
// task's budget (200 ms at 4× slowdown), and a busy device stretches it, so the page hands the whole run to this worker
// and only draws.
//
// Page → worker: { type: 'load', files } (attnlab-kjv-llama's config.json text, model.safetensors and tokenizer.json
// bytes), { type: 'run', id, length, sinks, window }, { type: 'stop', id }. Worker → page: { type: 'ready', config,
// tokens }, { type: 'progress', id, snapshot } (CacheRun.snapshot()), { type: 'done', id }, { type: 'stopped', id },
// { type: 'error', id, message }. A new run stops the one before.
import { AttnLabError, init } from 'attnlab';

import { CacheRun, loadMaskModel } from './parts.js';
import { HELD_OUT } from '../../held-out-text.js';

const SLICE_MS = 40;     // between two looks at the messages
const SNAPSHOT_MS = 500; // the page is sent what has been read at most this often

let loaded = null;       // { lab, model, tokenizer, files, ids, mask: { window, model, tokenizer } | null }
let wanted = 0;          // the run the page wants now (0: none)
let queue = Promise.resolve();

const turn = () => new Promise((resolve) => setTimeout(resolve));
const say = (error) => (error instanceof AttnLabError ? error.message : `The caches could not run: ${error?.message ?? error}`);

async function load(files) {
  const lab = await init();
  const { model, tokenizer } = await lab.loadBuiltinLlama();
  loaded = { lab, model, tokenizer, files, ids: Array.from(tokenizer.encode(HELD_OUT)), mask: null };
  const { numLayers, numHeads, numKeyValueHeads, headDim, hiddenSize, maxPositionEmbeddings, kvCacheBytesPerToken } = model.config;
  self.postMessage({ type: 'ready', tokens: loaded.ids.length,
    config: { numLayers, numHeads, numKeyValueHeads, headDim, hiddenSize, maxPositionEmbeddings, kvCacheBytesPerToken } });
}

async function run({ id, length, sinks, window }) {
  if (wanted !== id) return self.postMessage({ type: 'stopped', id });
  const L = loaded;
  if (L.mask?.window !== window) {
    L.mask?.model.dispose();
    L.mask?.tokenizer.dispose();
    L.mask = null;
    L.mask = { window, ...(await loadMaskModel(L.lab, L.files, window)) };
  }
  const cacheRun = new CacheRun({ model: L.model, maskModel: L.mask.model, ids: L.ids.slice(0, length), sinks, window });
  try {
    let sent = 0;
    while (!cacheRun.finished) {
      const start = performance.now();
      do cacheRun.step(); while (!cacheRun.finished && performance.now() - start < SLICE_MS);
      if (cacheRun.finished || performance.now() - sent > SNAPSHOT_MS) {
        self.postMessage({ type: 'progress', id, snapshot: cacheRun.snapshot() });
        sent = performance.now();
      }
      await turn();
      if (wanted !== id && !cacheRun.finished) return self.postMessage({ type: 'stopped', id });
    }
    self.postMessage({ type: 'done', id });
  } finally {
    cacheRun.dispose();
  }
}

self.addEventListener('message', ({ data }) => {
  if (data?.type === 'load') {
    load(data.files).catch((error) => self.postMessage({ type: 'error', id: 0, message: say(error) }));
  } else if (data?.type === 'run') {
    wanted = data.id;  // the run under way stops at its next look
    queue = queue.then(() => run(data)).catch((error) => self.postMessage({ type: 'error', id: data.id, message: say(error) }));
  } else if (data?.type === 'stop' && wanted === data.id) {
    wanted = 0;
  }
});
