// import 'attnlab/training': the training module (TaskModel, lab.loadTraining()) ships with the app.
// Nothing is fetched until lab.loadTraining() runs; the app's bundler only learns of the files here.
import { registerBuilds } from './registry.js';

registerBuilds({
  'attnlab-train-simd': {
    factory: () => import('../dist/attnlab-train-simd.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-train-simd.wasm', import.meta.url),
  },
  'attnlab-train-scalar': {
    factory: () => import('../dist/attnlab-train-scalar.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-train-scalar.wasm', import.meta.url),
  },
});
