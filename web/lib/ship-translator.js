// import 'attnlab/translator': the English → French translator attnlab trained (models/translator/:
// weights, vocabularies, held-out sentences with their gold alignment, training log) and the
// encoder–decoder module it runs in ship with the app, for lab.loadBuiltinTranslator() and lab.loadSeq2Seq().
import { registerBuilds, registerFiles } from './registry.js';

registerBuilds({
  'attnlab-seq2seq-simd': {
    factory: () => import('../dist/attnlab-seq2seq-simd.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-seq2seq-simd.wasm', import.meta.url),
  },
  'attnlab-seq2seq-scalar': {
    factory: () => import('../dist/attnlab-seq2seq-scalar.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-seq2seq-scalar.wasm', import.meta.url),
  },
});

registerFiles({
  translatorModel: () => new URL('../models/translator/model.safetensors', import.meta.url),
  translatorVocab: () => new URL('../models/translator/vocab.json', import.meta.url),
  translatorHeldOut: () => new URL('../models/translator/heldout.json', import.meta.url),
  translatorLog: () => new URL('../models/translator/training-log.jsonl', import.meta.url),
});
