// import 'attnlab/referent-model': the "it" sentence model (models/referent/: weights and training log)
// and the small module it runs in ship with the app, for lab.loadReferentModel().
import { registerBuilds, registerFiles } from './registry.js';

registerBuilds({
  'attnlab-referent-simd': {
    factory: () => import('../dist/attnlab-referent-simd.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-referent-simd.wasm', import.meta.url),
  },
  'attnlab-referent-scalar': {
    factory: () => import('../dist/attnlab-referent-scalar.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-referent-scalar.wasm', import.meta.url),
  },
});

registerFiles({
  referentModel: () => new URL('../models/referent/model.safetensors', import.meta.url),
  referentLog: () => new URL('../models/referent/training-log.jsonl', import.meta.url),
});
