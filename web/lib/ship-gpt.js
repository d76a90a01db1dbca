// import 'attnlab/gpt': the GPT module (lab.loadGPT, createGPT, loadTokenizer, trainTokenizer, sample, …)
// ships with the app, in its SIMD, scalar and threaded builds (the lab picks one when it loads).
// Nothing is fetched until the first call that needs it.
import { registerBuilds } from './registry.js';

registerBuilds({
  'attnlab-gpt-simd': {
    factory: () => import('../dist/attnlab-gpt-simd.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-gpt-simd.wasm', import.meta.url),
  },
  'attnlab-gpt-scalar': {
    factory: () => import('../dist/attnlab-gpt-scalar.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-gpt-scalar.wasm', import.meta.url),
  },
  // The threaded build (a cross-origin-isolated page): its workers start from the worker script, and
  // they and the page import the module's script by URL (lib/loader.js).
  'attnlab-gpt-simd-mt': {
    wasmUrl: () => new URL('../dist/attnlab-gpt-simd-mt.wasm', import.meta.url),
    workerUrl: () => new URL('../dist/attnlab-gpt-simd-mt.worker.js', import.meta.url),
    scriptUrl: () => new URL('../dist/attnlab-gpt-simd-mt.mjs', import.meta.url),
  },
});
