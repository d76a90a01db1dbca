// What this copy of attnlab can load beyond the main module: the wasm builds and model files that the
// feature entries (lib/ship-*.js: 'attnlab/training', 'attnlab/gpt', 'attnlab/builtin-model', …) add
// when they are imported. The entries hold the literal import() and new URL(…, import.meta.url)
// references, so a bundler emits a module's files only for an app that imports its entry; index.js
// holds none of them (issue 29.12: an attention-only Vite app shipped 10 MB, models and all).
const builds = new Map();  // 'attnlab-gpt-simd' → { factory, wasmUrl, workerUrl?, scriptUrl? }
const files = new Map();   // 'model' → () => URL of models/kjv/model.safetensors

export function registerBuilds(table) {
  for (const [name, build] of Object.entries(table)) builds.set(name, build);
}

export function registerFiles(table) {
  for (const [which, url] of Object.entries(table)) files.set(which, url);
}

export const registeredBuild = (name) => builds.get(name);
export const registeredBuilds = () => [...builds.values()];
export const registeredFile = (which) => files.get(which);

// Which entry makes each build or file available, and how messages name it.
const BUILD_ENTRIES = [
  [/^attnlab-train-/, 'training', 'the training module'],
  [/^attnlab-gpt-/, 'gpt', 'the GPT module'],
  [/^attnlab-referent-/, 'referent-model', "the referent model's module"],
  [/^attnlab-seq2seq-/, 'translator', 'the encoder–decoder module'],
];
export function entryOfBuild(name) {
  const [, entry, what] = BUILD_ENTRIES.find(([pattern]) => pattern.test(name)) ?? [];
  return entry && { entry, what: `${what} (${name}.wasm)` };
}

export const FILE_ENTRIES = {
  model: { entry: 'builtin-model', path: 'models/kjv/model.safetensors' },
  vocab: { entry: 'builtin-tokenizer', path: 'models/kjv/vocab.json' },
  merges: { entry: 'builtin-tokenizer', path: 'models/kjv/merges.txt' },
  log: { entry: 'builtin-training-log', path: 'models/kjv/training-log.jsonl' },
  referentModel: { entry: 'referent-model', path: 'models/referent/model.safetensors' },
  referentLog: { entry: 'referent-model', path: 'models/referent/training-log.jsonl' },
  translatorModel: { entry: 'translator', path: 'models/translator/model.safetensors' },
  translatorVocab: { entry: 'translator', path: 'models/translator/vocab.json' },
  translatorHeldOut: { entry: 'translator', path: 'models/translator/heldout.json' },
  translatorLog: { entry: 'translator', path: 'models/translator/training-log.jsonl' },
  llamaConfig: { entry: 'builtin-llama', path: 'models/kjv-llama/config.json' },
  llamaModel: { entry: 'builtin-llama', path: 'models/kjv-llama/model.safetensors' },
  llamaTokenizer: { entry: 'builtin-llama', path: 'models/kjv-llama/tokenizer.json' },
  llamaLog: { entry: 'builtin-llama', path: 'models/kjv-llama/training-log.jsonl' },
};

// What prefetch() (index.js) starts downloading for each feature: its module's build (without the
// variant) and its model files (keys of FILE_ENTRIES). The site's build reads it too, to preload a
// lesson's files from its HTML (site/prerender-plugin.js).
export const PREFETCH_FEATURES = {
  'referent-model': { build: 'attnlab-referent', files: ['referentModel', 'referentLog'] },
  translator: { build: 'attnlab-seq2seq', files: ['translatorModel', 'translatorVocab', 'translatorHeldOut', 'translatorLog'] },
  training: { build: 'attnlab-train', files: [] },
};
