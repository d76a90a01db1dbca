// attnlab: the attention mechanism of transformers, computed by a C++ core compiled to WebAssembly.
//   const lab = await init();
//   const { output, weights } = lab.scaledDotProductAttention(q, k, v, { causal: true });
import { AttnLabError } from './lib/errors.js';
import {
  addOutArrays, checkBoolean, checkFloat32, checkMatrix, checkOneOf, checkOptions, checkSeed, checkSize, describe, fail,
  maskOptions, noMoreArguments, toFloat32, wellFormed,
} from './lib/checks.js';
import { makeCaller } from './lib/call.js';
import { CheckpointFiles, checkpointFamily, streamLlamaWeights } from './lib/checkpoint-files.js';
import { checkIds, gptClasses, samplingOptions } from './lib/gpt.js';
import { llamaClasses } from './lib/llama.js';
import { LazyModule } from './lib/lazy-module.js';
import { allInOrder, checkBaseUrl, parseLlamaTrainingLog, parseTrainingLog, prefetchFile, readBuiltinFile } from './lib/builtin-model.js';
import { checkThreads, chooseVariant, instantiate, pageCanUseThreads, prefetchBuild } from './lib/loader.js';
import { moduleClasses } from './lib/modules.js';
import { taskModelClass } from './lib/task-model.js';
import {
  checkDim, checkIntegers, checkShape, checkTensors, elementCount, shapeText, tensorOptions, usesTensors,
} from './lib/tensor.js';
import { referentClass } from './lib/referent.js';
import { PREFETCH_FEATURES } from './lib/registry.js';
import { checkSeq2SeqConfig, seq2seqClass, translatorTrainerClass, WordTokenizer } from './lib/seq2seq.js';

export { AttnLabError };

// init(options?) → Lab. options: { simd?: 'auto' | true | false, threads?: 'auto' | number, wasmBinary?,
// trainingWasmBinary?, gptWasmBinary?, referentWasmBinary?, seq2seqWasmBinary?, locateFile?, memoryBudget?,
// training?: boolean }.
// threads: on a cross-origin-isolated page the main and GPT modules are the threaded build, using
// that many threads (at most the cores the browser reports, capped at 8); elsewhere, or with
// threads: 1, the single-threaded build. lab.threads says what was picked. Training (TaskModel) and the GPT
// (GPTModel, Tokenizer) are modules of their own, loaded by lab.loadTraining() (or training: true) and
// by the first lab.loadGPT(), createGPT(), loadTokenizer() or trainTokenizer(), so that pages which
// never train or run a GPT do not download them; and a bundled app ships them (and the models) only if
// it imports their feature entry ('attnlab/training', 'attnlab/gpt', …: lib/registry.js), as this
// file names none of their files.
export async function init(options = {}) {
  const opts = checkOptions('init', options, ['threads', 'simd', 'memoryBudget', 'training', 'wasmBinary', 'trainingWasmBinary',
    'gptWasmBinary', 'referentWasmBinary', 'seq2seqWasmBinary', 'locateFile']);
  const budget = checkMemoryBudget('init', opts.memoryBudget === undefined ? DEFAULT_MEMORY_BUDGET : opts.memoryBudget);
  const training = opts.training === undefined ? false : checkBoolean('init', 'training', opts.training);
  const variant = chooseVariant(opts.simd);
  const threads = checkThreads(opts.threads);
  // The threaded build where the page allows it and more than one thread may be wanted; else today's.
  // (wasmBinary, gptWasmBinary and locateFile name a single-threaded build's files: the caller's choice.)
  const threaded = variant === 'simd' && threads !== 1 && pageCanUseThreads() && !opts.wasmBinary &&
    !opts.gptWasmBinary && !opts.locateFile;
  const { raw, threadsFallback } = threaded ? await startThreaded(opts) : { raw: null, threadsFallback: null };
  const module = raw ?? await instantiate(`attnlab-${variant}`, opts, 'init');
  if (raw) raw.setNumThreads(threads === 'auto' ? raw.maxThreads() : Math.min(threads, raw.maxThreads()));
  const lab = new Lab(module, variant, raw !== null, {
    training: { wasmBinary: opts.trainingWasmBinary, locateFile: opts.locateFile },
    gpt: { wasmBinary: opts.gptWasmBinary, locateFile: opts.locateFile },
    referent: { wasmBinary: opts.referentWasmBinary, locateFile: opts.locateFile },
    seq2seq: { wasmBinary: opts.seq2seqWasmBinary, locateFile: opts.locateFile },
  });
  lab.threadsFallback = threadsFallback;
  lab.setMemoryBudget(budget);
  if (training) await lab.loadTraining();
  return lab;
}

// The threaded build's workers must start (each imports the module's script) before its factory
// resolves; a page or bundler that keeps them from it would leave init() waiting forever. So it gets
// a bounded time, and after it (or an error) init() carries on with the single-threaded build and says
// why, on the console and in lab.threadsFallback.
const THREADED_START_MS = 15000;
async function startThreaded(opts) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve(`its worker threads did not start within ${THREADED_START_MS / 1000} s`), THREADED_START_MS);
  });
  const started = instantiate('attnlab-simd-mt', opts, 'init').catch((error) => `it failed to load (${error.message})`);
  const outcome = await Promise.race([started, timeout]);
  clearTimeout(timer);
  if (typeof outcome !== 'string') return { raw: outcome, threadsFallback: null };
  const threadsFallback = `init: the threaded build was not used: ${outcome}; running on one thread`;
  console.warn(`attnlab: ${threadsFallback}`);
  return { raw: null, threadsFallback };
}

// prefetch(features, { simd }?): starts downloading, in a browser, what lab.loadReferentModel() ('referent-model'),
// lab.loadBuiltinTranslator() ('translator') or lab.loadTraining() ('training') will need, before init()
// has finished: the later call then finds its module and files on the way instead of fetching them
// after the main module. Only what the app ships (its feature entries) is fetched; nothing in Node.
// `simd` as init()'s (the same build must be chosen).
export function prefetch(features, options = {}) {
  const opts = checkOptions('prefetch', options, ['simd']);
  if (!Array.isArray(features)) fail('prefetch', `features must be a list such as ['referent-model'], got ${describe(features)}`);
  const variant = chooseVariant(opts.simd);
  for (const feature of features) {
    const what = PREFETCH_FEATURES[feature];
    if (!what) fail('prefetch', `unknown feature ${describe(feature)} (${Object.keys(PREFETCH_FEATURES).map((k) => `'${k}'`).join(', ')})`);
    prefetchBuild(`${what.build}-${variant}`);
    what.files.forEach(prefetchFile);
  }
}

// The referent model's weights, log and module (lazy: a LazyModule) → a ReferentModel.
async function openReferentModel(fn, lazy, baseUrl) {
  const [bytes, logText] = await allInOrder([
    readBuiltinFile(fn, 'referentModel', { baseUrl }),
    readBuiltinFile(fn, 'referentLog', { baseUrl, as: 'text' }),
    lazy.load(fn),
  ]);
  const module = lazy.loaded;
  const ReferentModel = referentClass(module, { log: parseTrainingLog(logText) });
  return new ReferentModel(module.call(fn, () => module.raw.ReferentHandle.fromSafetensors(bytes)));
}

// loadReferentModel(options?) → ReferentModel without init(): the "it" sentence model in its own small
// module alone, for a page whose only computation is this model (it need not download the main module,
// 113 kB of the first lesson's bytes on a slow network). options: { simd?, referentWasmBinary?,
// locateFile?, memoryBudget?, baseUrl? }, as init()'s and lab.loadReferentModel()'s. Calls with the
// same build and budget and no files of their own share one module instance.
const standaloneReferents = new Map();  // 'simd:536870912' (variant:budget) → LazyModule
export async function loadReferentModel(options = {}) {
  const fn = 'loadReferentModel';
  const { simd, referentWasmBinary, locateFile, memoryBudget, baseUrl } =
    checkOptions(fn, options, ['simd', 'referentWasmBinary', 'locateFile', 'memoryBudget', 'baseUrl']);
  const budget = checkMemoryBudget(fn, memoryBudget === undefined ? DEFAULT_MEMORY_BUDGET : memoryBudget);
  const variant = chooseVariant(simd, fn);
  const own = referentWasmBinary !== undefined || locateFile !== undefined;
  const key = `${variant}:${budget}`;
  let lazy = own ? null : standaloneReferents.get(key);
  if (!lazy) {
    lazy = new LazyModule(`attnlab-referent-${variant}`, { wasmBinary: referentWasmBinary, locateFile }, null,
      (module) => applyBudget(fn, module, budget), { byCaller: true, budgetSetter: `${fn}({ memoryBudget })` });
    if (!own) standaloneReferents.set(key, lazy);
  }
  return openReferentModel(fn, lazy, checkBaseUrl(fn, baseUrl));
}

const DEFAULT_MEMORY_BUDGET = 512 * 2 ** 20;
const MAX_MEMORY_BUDGET = 2 ** 31;  // a wasm32 heap grows to 2 GiB at most

function checkMemoryBudget(fn, bytes) {
  if (typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 1 || bytes > MAX_MEMORY_BUDGET) {
    fail(fn, `memoryBudget must be a whole number of bytes in 1 … ${MAX_MEMORY_BUDGET} (2 GiB), got ${describe(bytes)}`);
  }
  return bytes;
}

// A module's budget is its own (each wasm instance has its own heap and core): every module gets it.
function applyBudget(fn, { raw, call }, bytes) {
  call(fn, () => raw.setMemoryBudget(bytes));
}

class Lab {
  #raw;
  #call;
  #budget = DEFAULT_MEMORY_BUDGET;
  #training;  // LazyModule: TaskModel
  #gpt;       // LazyModule: GPTModel, GPTSession, Tokenizer, sample
  #referent;  // LazyModule: ReferentModel
  #seq2seq;   // LazyModule: Seq2SeqModel
  #Seq2SeqModel = null;  // the class, made once the module has loaded
  #TranslatorTrainer = null;
  #gptClasses = null;

  // sources: { training, gpt, referent, seq2seq }, each { wasmBinary?, locateFile? }: where those modules come from.
  constructor(raw, variant, threaded, sources) {
    this.#raw = raw;
    this.#call = makeCaller(raw);
    // Threads the core uses: the main module's; the GPT module gets the same number when it loads.
    this.threads = raw.numThreads();
    // A module's budget is the lab's current one when it arrives, even if it changed while loading.
    const applyCurrentBudget = (module) => applyBudget('setMemoryBudget', module, this.#budget);
    this.#training = new LazyModule(`attnlab-train-${variant}`, sources.training, this, applyCurrentBudget);
    this.#gpt = new LazyModule(threaded ? 'attnlab-gpt-simd-mt' : `attnlab-gpt-${variant}`, sources.gpt, this, (module) => {
      applyCurrentBudget(module);
      if (threaded) module.raw.setNumThreads(Math.min(this.threads, module.raw.maxThreads()));
      this.#gptClasses = { ...gptClasses(module), ...llamaClasses(module) };
    }, { byCaller: true });
    // byCaller: the referent encoder's messages read as the package's calls (ReferentModel.sentence: …), not as
    // the core's functions (make_referent_sentence).
    this.#referent = new LazyModule(`attnlab-referent-${variant}`, sources.referent, this, applyCurrentBudget, { byCaller: true });
    this.#seq2seq = new LazyModule(`attnlab-seq2seq-${variant}`, sources.seq2seq, this, applyCurrentBudget, { byCaller: true });
    this.simd = variant === 'simd';
    this.version = raw.version();
    this.kernels = raw.kernelVariant();
    const { MultiHeadAttention, TransformerEncoderLayer } = moduleClasses(raw, this.#call);
    // One class for the lab's lifetime (instanceof and destructuring keep working); it reaches the
    // training module only when a model is made.
    this.TaskModel = taskModelClass((fn) => this.#training.require(fn,
      'the training module is not loaded; call await lab.loadTraining() first, or init({ training: true })'));
    this.MultiHeadAttention = MultiHeadAttention;
    this.TransformerEncoderLayer = TransformerEncoderLayer;
  }

  // Loads the training module (the same build, SIMD or scalar, as the main one) with the current
  // memory budget; resolves to this lab. Every call returns the same promise.
  loadTraining(...extra) {
    noMoreArguments('loadTraining', extra);
    return this.#training.load('loadTraining');
  }

  // Loads the GPT module (the calls below do on first use); resolves to this lab.
  loadGPTModule(...extra) {
    noMoreArguments('loadGPTModule', extra);
    return this.#gpt.load('loadGPTModule');
  }

  // The GPT module and its classes, loading it first if needed.
  async #gptModule(fn) {
    await this.#gpt.load(fn);
    return { ...this.#gpt.loaded, classes: this.#gptClasses };
  }

  // A GPT from a .safetensors file (Uint8Array or ArrayBuffer) in Hugging Face GPT-2's layout: F32,
  // F16 or BF16; the sizes from the tensors, the head count from the file's n_head or numHeads (a
  // numHeads that differs from the file's n_head is refused unless overrideNumHeads: true).
  async loadGPT(bytes, options) {
    const fn = 'loadGPT';
    const { numHeads = 0, overrideNumHeads = false } = checkOptions(fn, options, ['numHeads', 'overrideNumHeads']);
    checkSize(fn, 'numHeads', numHeads, { min: 0 });
    checkBoolean(fn, 'overrideNumHeads', overrideNumHeads);
    let file = bytes;
    if (file instanceof ArrayBuffer) file = new Uint8Array(file);
    if (!(file instanceof Uint8Array)) fail(fn, `bytes must be a Uint8Array or ArrayBuffer of a .safetensors file, got ${describe(bytes)}`);
    const { raw, call, classes } = await this.#gptModule(fn);
    return new classes.GPTModel(call(fn, () => raw.GPTHandle.fromSafetensors(file, numHeads, overrideNumHeads)));
  }

  // A checkpoint folder as Hugging Face saves it → { model, tokenizer, family }. files: the FileList of
  // a folder the learner picked (or an array of File), or { name: bytes } / a Map. A Llama-family
  // folder (config.json with model_type llama, qwen2 or mistral; model.safetensors or the shards that
  // model.safetensors.index.json names; tokenizer.json) gives a LlamaModel and an HFTokenizer; a GPT-2
  // one (model_type gpt2, or model.safetensors with vocab.json and merges.txt) a GPTModel and its
  // tokenizer. A Llama's weights stream into the model a piece at a time (the heap holds the weights,
  // not the files as well). options: { onProgress({ file, loaded, total }) } as the weights are read.
  async loadModel(files, options) {
    const fn = 'loadModel';
    const { onProgress } = checkOptions(fn, options, ['onProgress']);
    if (onProgress !== undefined && typeof onProgress !== 'function') fail(fn, `onProgress must be a function, got ${describe(onProgress)}`);
    const folder = new CheckpointFiles(fn, files);
    const { family, config, configText } = await checkpointFamily(fn, folder);
    const loaded = family === 'gpt2'
      ? await this.#gpt2FromFolder(fn, folder, config, onProgress)
      : await this.#llamaFromFolder(fn, folder, configText, onProgress);
    return { ...loaded, family };
  }

  // A GPT-2 folder → { model: GPTModel, tokenizer }: model.safetensors read whole (the GPT loads from bytes),
  // the tokenizer from tokenizer.json, or from vocab.json and merges.txt.
  async #gpt2FromFolder(fn, folder, config, onProgress) {
    if (!folder.has('model.safetensors')) fail(fn, `no model.safetensors among the files (given: ${folder.names})`);
    if (!folder.has('tokenizer.json') && !(folder.has('vocab.json') && folder.has('merges.txt'))) {
      fail(fn, `no tokenizer.json, nor vocab.json with merges.txt, among the files (given: ${folder.names}): the model's tokenizer is needed`);
    }
    const { raw, call, classes } = await this.#gptModule(fn);
    const numHeads = config?.n_head ?? 0;
    const bytes = await folder.bytes('model.safetensors', onProgress);
    const model = new classes.GPTModel(call(fn, () => raw.GPTHandle.fromSafetensors(bytes, numHeads, false)));
    if (folder.has('tokenizer.json')) return { model, tokenizer: await this.#hfTokenizer(fn, folder) };
    const [vocab, merges] = [await folder.text('vocab.json'), await folder.text('merges.txt')];
    return { model, tokenizer: new classes.Tokenizer(call(fn, () => raw.TokenizerHandle.fromGPT2(vocab, merges))) };
  }

  // A Llama-family folder (config.json's text already read) → { model: LlamaModel, tokenizer: HFTokenizer }:
  // the weights streamed into the model.
  async #llamaFromFolder(fn, folder, configText, onProgress) {
    const { raw, call, classes } = await this.#gptModule(fn);
    const tokenizer = await this.#hfTokenizer(fn, folder);
    try {
      const handle = await streamLlamaWeights(fn, folder, { raw, call, configText, onProgress });
      return { model: new classes.LlamaModel(handle), tokenizer };
    } catch (error) {
      tokenizer.dispose();  // a refused or stopped load (onProgress threw) leaves nothing in the heap
      throw error;
    }
  }

  async #hfTokenizer(fn, folder) {
    const { raw, call, classes } = await this.#gptModule(fn);
    const json = wellFormed(await folder.text('tokenizer.json'));
    return new classes.HFTokenizer(call(fn, () => raw.HFTokenizerHandle.fromJson(json)));
  }

  // attnlab's own trained GPT and its tokenizer (the package's models/kjv/, fetched on this call):
  // { model, tokenizer }. options: { baseUrl } — a folder serving the files, if not next to the package.
  async loadBuiltinModel(options) {
    const fn = 'loadBuiltinModel';
    const baseUrl = checkBaseUrl(fn, checkOptions(fn, options, ['baseUrl']).baseUrl);
    const [bytes, vocab, merges, gpt] = await allInOrder([
      readBuiltinFile(fn, 'model', { baseUrl }),
      readBuiltinFile(fn, 'vocab', { baseUrl, as: 'text' }),
      readBuiltinFile(fn, 'merges', { baseUrl, as: 'text' }),
      this.#gptModule(fn),
    ]);
    const { raw, call, classes } = gpt;
    const model = new classes.GPTModel(call(fn, () => raw.GPTHandle.fromSafetensors(bytes, 0, false)));
    // The weights and the tokenizer in two tasks of a page's thread, not one (each is a long call on a phone).
    await new Promise((resolve) => setTimeout(resolve, 0));
    const tokenizer = new classes.Tokenizer(call(fn, () => raw.TokenizerHandle.fromGPT2(vocab, merges)));
    return { model, tokenizer };
  }

  // attnlab-kjv-llama, the Llama-architecture model trained beside attnlab-kjv on the same text (grouped-query
  // attention, RoPE, RMSNorm, SwiGLU; the package's models/kjv-llama/, fetched on this call, read as
  // loadModel reads a Hugging Face folder): { model: LlamaModel, tokenizer: HFTokenizer }. options: { baseUrl }.
  async loadBuiltinLlama(options) {
    const fn = 'loadBuiltinLlama';
    const baseUrl = checkBaseUrl(fn, checkOptions(fn, options, ['baseUrl']).baseUrl);
    const [config, weights, tokenizer] = await allInOrder([
      readBuiltinFile(fn, 'llamaConfig', { baseUrl, as: 'text' }),
      readBuiltinFile(fn, 'llamaModel', { baseUrl }),
      readBuiltinFile(fn, 'llamaTokenizer', { baseUrl }),
    ]);
    const folder = new CheckpointFiles(fn, { 'config.json': config, 'model.safetensors': weights, 'tokenizer.json': tokenizer });
    return this.#llamaFromFolder(fn, folder, config);
  }

  // attnlab-kjv-llama's training log (parseLlamaTrainingLog in lib/builtin-model.js: its steps, its evaluations
  // with held-out loss and head scores, its stops and resumes). options: { baseUrl }.
  async loadBuiltinLlamaTrainingLog(options) {
    const fn = 'loadBuiltinLlamaTrainingLog';
    const baseUrl = checkBaseUrl(fn, checkOptions(fn, options, ['baseUrl']).baseUrl);
    return parseLlamaTrainingLog(await readBuiltinFile(fn, 'llamaLog', { baseUrl, as: 'text' }));
  }

  // The built-in model's tokenizer alone (vocab.json and merges.txt, 106 kB; not the weights): for text
  // split as the trained model splits it. options: { baseUrl }.
  async loadBuiltinTokenizer(options) {
    const fn = 'loadBuiltinTokenizer';
    const baseUrl = checkBaseUrl(fn, checkOptions(fn, options, ['baseUrl']).baseUrl);
    const [vocab, merges, gpt] = await allInOrder([
      readBuiltinFile(fn, 'vocab', { baseUrl, as: 'text' }),
      readBuiltinFile(fn, 'merges', { baseUrl, as: 'text' }),
      this.#gptModule(fn),
    ]);
    return new gpt.classes.Tokenizer(gpt.call(fn, () => gpt.raw.TokenizerHandle.fromGPT2(vocab, merges)));
  }

  // The "it" sentence model attnlab trained (the package's models/referent/, fetched on this call): a
  // ReferentModel (lib/referent.js) with its training log. options: { baseUrl }.
  async loadReferentModel(options) {
    const fn = 'loadReferentModel';
    return openReferentModel(fn, this.#referent, checkBaseUrl(fn, checkOptions(fn, options, ['baseUrl']).baseUrl));
  }

  // The English → French translator attnlab trained (the package's models/translator/, fetched on this
  // call): { model: Seq2SeqModel (lib/seq2seq.js) with translate(), sourceTokenizer, targetTokenizer,
  // heldOut: [{ english, french, alignment }] (sentences the training never saw, each French word's
  // English word index), log: its training log }. options: { baseUrl }.
  async loadBuiltinTranslator(options) {
    const fn = 'loadBuiltinTranslator';
    const baseUrl = checkBaseUrl(fn, checkOptions(fn, options, ['baseUrl']).baseUrl);
    const [bytes, vocabText, heldOutText, logText] = await allInOrder([
      readBuiltinFile(fn, 'translatorModel', { baseUrl }),
      readBuiltinFile(fn, 'translatorVocab', { baseUrl, as: 'text' }),
      readBuiltinFile(fn, 'translatorHeldOut', { baseUrl, as: 'text' }),
      readBuiltinFile(fn, 'translatorLog', { baseUrl, as: 'text' }),
      this.#seq2seq.load(fn),
    ]);
    const vocab = JSON.parse(vocabText);
    const c = vocab.config;
    const model = this.#seq2seqModel(fn, bytes, {
      sourceVocabSize: vocab.source.length, targetVocabSize: vocab.target.length, maxLen: c.max_len, dModel: c.d_model,
      numHeads: c.num_heads, numEncoderLayers: c.num_encoder_layers, numDecoderLayers: c.num_decoder_layers,
      dFf: c.dim_feedforward, normFirst: c.norm_first, bosId: vocab.bos_id, eosId: vocab.eos_id, unkId: vocab.unk_id,
      sourceVocabulary: vocab.source, targetVocabulary: vocab.target,
    }, { grammar: true });
    return { model, sourceTokenizer: model.sourceTokenizer, targetTokenizer: model.targetTokenizer,
      heldOut: JSON.parse(heldOutText), log: parseTrainingLog(logText) };
  }

  // A learner's own encoder–decoder: bytes of a .safetensors file holding the state_dict of PyTorch's
  // translation-tutorial model (src_tok_emb.weight, tgt_tok_emb.weight, transformer.* as nn.Transformer
  // names them, generator.*), and config { sourceVocabSize, targetVocabSize, maxLen, dModel, numHeads,
  // numEncoderLayers, numDecoderLayers, dFf, normFirst?, bosId? (1), eosId? (2), unkId? (3),
  // sourceVocabulary?, targetVocabulary? (word lists: translate() needs both) } → Seq2SeqModel.
  async loadSeq2Seq(bytes, config) {
    const fn = 'loadSeq2Seq';
    if (!(bytes instanceof Uint8Array)) fail(fn, `bytes must be a Uint8Array (the file's contents), got ${describe(bytes)}`);
    const checked = checkSeq2SeqConfig(fn, config);
    await this.#seq2seq.load(fn);
    return this.#seq2seqModel(fn, bytes, checked);
  }

  // A fresh, untrained translator of the built-in one's shape and recipe, trained in the page on the
  // grammar's sentences (TranslatorTrainer, lib/seq2seq.js). options: { seed (0), totalSteps (3000: where
  // the learning rate's cosine ends) }.
  async createTranslatorTrainer(options) {
    const fn = 'createTranslatorTrainer';
    const { seed = 0, totalSteps = 3000 } = checkOptions(fn, options, ['seed', 'totalSteps']);
    checkSeed(fn, seed);
    checkSize(fn, 'totalSteps', totalSteps);
    await this.#seq2seq.load(fn);
    const { raw, call } = this.#seq2seq.loaded;
    this.#TranslatorTrainer ??= translatorTrainerClass(this.#seq2seq.loaded);
    return new this.#TranslatorTrainer(call(fn, () => raw.TranslatorTrainerHandle.create(seed, totalSteps)));
  }

  // extras: { grammar } (the built-in translator: translate() checks its grammar).
  #seq2seqModel(fn, bytes, config, { grammar = false } = {}) {
    const checked = checkSeq2SeqConfig(fn, config);
    const { raw, call } = this.#seq2seq.loaded;
    this.#Seq2SeqModel ??= seq2seqClass(this.#seq2seq.loaded);
    const Seq2SeqModel = this.#Seq2SeqModel;
    const { sourceVocabulary, targetVocabulary, unkId, ...modelConfig } = checked;
    const handle = call(fn, () => raw.Seq2SeqHandle.fromSafetensors(bytes, modelConfig));
    const tokenizers = sourceVocabulary && targetVocabulary ? {
      sourceTokenizer: new WordTokenizer(sourceVocabulary, { unkId }),
      targetTokenizer: new WordTokenizer(targetVocabulary, { unkId }),
    } : {};
    return new Seq2SeqModel(handle, modelConfig, { ...tokenizers, grammar });
  }

  // The built-in model's training log: { setup (config, corpus sizes, n-gram baselines), steps (loss,
  // lr, gradNorm, ms per step), evals (held-out loss and head scores every few hundred steps),
  // summary (the shipped checkpoint's held-out loss, head scores, samples) }. options: { baseUrl }.
  async loadBuiltinTrainingLog(options) {
    const fn = 'loadBuiltinTrainingLog';
    const baseUrl = checkBaseUrl(fn, checkOptions(fn, options, ['baseUrl']).baseUrl);
    return parseTrainingLog(await readBuiltinFile(fn, 'log', { baseUrl, as: 'text' }));
  }

  // A GPT with GPT-2's initialisation from a seed: { vocabSize, contextLength, dModel, numHeads, numLayers, seed }.
  async createGPT(config) {
    const fn = 'createGPT';
    const { vocabSize, contextLength, dModel, numHeads, numLayers, seed = 0 } =
      checkOptions(fn, config, ['vocabSize', 'contextLength', 'dModel', 'numHeads', 'numLayers', 'seed'], 'config');
    const checked = {
      vocabSize: checkSize(fn, 'vocabSize', vocabSize),
      contextLength: checkSize(fn, 'contextLength', contextLength),
      dModel: checkSize(fn, 'dModel', dModel),
      numHeads: checkSize(fn, 'numHeads', numHeads),
      numLayers: checkSize(fn, 'numLayers', numLayers),
    };
    checkSeed(fn, seed);
    const { raw, call, classes } = await this.#gptModule(fn);
    return new classes.GPTModel(call(fn, () => raw.GPTHandle.create(checked, seed)));
  }

  // GPT-2's tokenizer files: vocab.json's text and merges.txt's text.
  async loadTokenizer(vocabJson, mergesText, ...extra) {
    const fn = 'loadTokenizer';
    noMoreArguments(fn, extra, ['vocabJson', 'mergesText']);
    if (typeof vocabJson !== 'string') fail(fn, `vocabJson must be the text of vocab.json, got ${describe(vocabJson)}`);
    if (typeof mergesText !== 'string') fail(fn, `mergesText must be the text of merges.txt, got ${describe(mergesText)}`);
    const { raw, call, classes } = await this.#gptModule(fn);
    return new classes.Tokenizer(call(fn, () => raw.TokenizerHandle.fromGPT2(wellFormed(vocabJson), wellFormed(mergesText))));
  }

  // A byte-level BPE tokenizer learned on `corpus`: { vocabSize = 4096 (bytes + merges + <|endoftext|>), minCount = 2 }.
  async trainTokenizer(corpus, options) {
    const fn = 'trainTokenizer';
    if (typeof corpus !== 'string') fail(fn, `corpus must be a string, got ${describe(corpus)}`);
    const { vocabSize = 4096, minCount = 2 } = checkOptions(fn, options, ['vocabSize', 'minCount']);
    checkSize(fn, 'vocabSize', vocabSize);
    checkSize(fn, 'minCount', minCount);
    const { raw, call, classes } = await this.#gptModule(fn);
    return new classes.Tokenizer(call(fn, () => raw.TokenizerHandle.train(wellFormed(corpus), vocabSize, minCount)));
  }

  // The sequence the induction score uses: `length` random ids uniform in [low, high) from the seed,
  // then the same ids again → Int32Array [2·length]. Needs the GPT module, like sample().
  repeatedRandomTokens(length, options) {
    const fn = 'repeatedRandomTokens';
    const { raw, call } = this.#gpt.require(fn, 'the GPT module is not loaded; call await lab.loadGPTModule() first');
    const { low = 0, high, seed = 0 } = checkOptions(fn, options, ['low', 'high', 'seed']);
    checkSize(fn, 'length', length);
    checkSize(fn, 'low', low, { min: 0 });
    checkSize(fn, 'high', high);
    return call(fn, () => raw.repeatedRandomTokens(length, low, high, checkSeed(fn, seed)));
  }

  // One token drawn from a row of logits (Float32Array or array; −Infinity = a blocked token) →
  // { token, probabilities: Float32Array (the distribution it was drawn from) }; options { temperature,
  // topK, topP, seed, repetitionPenalty, noRepeatNgramSize, presencePenalty, frequencyPenalty, context }:
  // the penalties look at `context`, the token ids so far (prompt and generated). Needs the GPT module
  // (loaded by loadGPT() and the others, or loadGPTModule()).
  sample(logits, options) {
    const fn = 'sample';
    const { raw, call } = this.#gpt.require(fn, 'the GPT module is not loaded; call await lab.loadGPTModule() first');
    const row = toFloat32(fn, 'logits', logits);
    if (row.length === 0) fail(fn, 'logits is empty');
    const sampling = samplingOptions(fn, options, ['context']);
    const ids = checkIds(fn, 'context', options?.context ?? []);
    return call(fn, () => raw.sample(row, { ...sampling, context: ids }));
  }

  // A Matrix owning a copy of `data` (zeros when omitted).
  matrix(rows, cols, data, ...extra) {
    const fn = 'matrix';
    noMoreArguments(fn, extra, ['rows', 'cols', 'data']);
    checkSize(fn, 'rows', rows);
    checkSize(fn, 'cols', cols);
    const bytes = rows * cols * 4;
    if (bytes > this.#budget) {
      fail(fn, `a ${rows}×${cols} matrix needs ${bytes} bytes, over the memory budget of ${this.#budget} bytes (init({ memoryBudget }) sets it)`);
    }
    if (data === undefined) return { rows, cols, data: new Float32Array(rows * cols) };
    const converted = toFloat32(fn, 'data', data);
    const values = converted === data ? data.slice() : converted;  // always a copy, made once
    if (values.length !== rows * cols) fail(fn, `data has ${values.length} values but the matrix is ${rows}×${cols} (${rows * cols} values)`);
    return { rows, cols, data: values };
  }

  // rows×cols standard normals from the seeded generator: the same numbers natively and in wasm.
  // randn(shape, seed) gives a tensor: randn([2, 4, 8], 1) holds randn(8, 8, 1)'s numbers in the
  // same row-major order (the leading dims' rows one after another).
  randn(rows, cols, seed, ...extra) {
    const fn = 'randn';
    // The tensor form takes two arguments: a third (randn([3], 5, 7), or an options object) is refused.
    if (Array.isArray(rows)) {
      noMoreArguments(fn, [seed, ...extra], ['shape', 'seed']);
      return this.#randnTensor(fn, rows, cols);
    }
    noMoreArguments(fn, extra, ['rows', 'cols', 'seed']);
    checkSize(fn, 'rows', rows);
    checkSize(fn, 'cols', cols);
    checkSeed(fn, seed);
    return this.#call(fn, () => this.#raw.randn(rows, cols, seed));
  }

  #randnTensor(fn, shape, seed = 0) {
    const checked = checkShape(fn, 'shape', shape);
    checkSeed(fn, seed);
    const cols = checked[checked.length - 1];
    this.#checkTensorBytes(fn, checked);
    const { data } = this.#call(fn, () => this.#raw.randn(elementCount(checked) / cols, cols, seed));
    return { shape: checked, data };
  }

  // A tensor { shape, data } owning a copy of `data` (zeros when omitted): tensor([2, 4, 8]).
  tensor(shape, data, ...extra) {
    const fn = 'tensor';
    noMoreArguments(fn, extra, ['shape', 'data']);
    const checked = checkShape(fn, 'shape', shape);
    this.#checkTensorBytes(fn, checked);
    const count = elementCount(checked);
    if (data === undefined) return { shape: checked, data: new Float32Array(count) };
    const converted = toFloat32(fn, 'data', data);
    const values = converted === data ? data.slice() : converted;  // always a copy, made once
    if (values.length !== count) fail(fn, `data has ${values.length} values but the tensor is ${shapeText(checked)} (${count} values)`);
    return { shape: checked, data: values };
  }

  #checkTensorBytes(fn, shape) {
    const bytes = elementCount(shape) * 4;
    if (bytes > this.#budget) {
      fail(fn, `a ${shapeText(shape)} tensor needs ${bytes} bytes, over the memory budget of ${this.#budget} bytes (init({ memoryBudget }) sets it)`);
    }
  }

  // torch's x.reshape(shape) (one dim may be −1), x.permute(dims) and x.transpose(dim0, dim1), each
  // returning a new row-major tensor: reshape keeps the numbers in place, permute and transpose move them.
  reshape(t, shape, ...extra) {
    const fn = 'reshape';
    noMoreArguments(fn, extra, ['t', 'shape']);
    const [x] = checkTensors(fn, { t });
    const dims = checkIntegers(fn, 'shape', shape);
    return this.#call(fn, () => this.#raw.reshapeTensor(x, dims));
  }

  permute(t, dims, ...extra) {
    const fn = 'permute';
    noMoreArguments(fn, extra, ['t', 'dims']);
    const [x] = checkTensors(fn, { t });
    const order = checkIntegers(fn, 'dims', dims);
    return this.#call(fn, () => this.#raw.permuteTensor(x, order));
  }

  transpose(t, dim0, dim1, ...extra) {
    const fn = 'transpose';
    noMoreArguments(fn, extra, ['t', 'dim0', 'dim1']);
    const [x] = checkTensors(fn, { t });
    return this.#call(fn, () => this.#raw.transposeTensor(x, checkDim(fn, 'dim0', dim0), checkDim(fn, 'dim1', dim1)));
  }

  softmax(m, ...extra) {
    noMoreArguments('softmax', extra, ['m']);
    const logits = checkMatrix('softmax', 'm', m);
    return this.#call('softmax', () => this.#raw.softmax(logits));
  }

  // → { output, weights, scores, scaledScores, maskedScores }; options.out names Float32Arrays to
  // write any of them into (their data is then those arrays).
  // With tensors (any of q, k, v or the masks { shape, data }): q (…, n_q, d_k), k (…, n_k, d_k),
  // v (…, n_k, d_v), their leading dims broadcasting → { output (…, n_q, d_v), weights (…, n_q, n_k) }.
  scaledDotProductAttention(q, k, v, options) {
    const fn = 'scaledDotProductAttention';
    if (usesTensors([q, k, v], options)) {
      const [qt, kt, vt] = checkTensors(fn, { q, k, v });
      const opts = tensorOptions(fn, options, ['scale', 'dropout', 'weights', 'seed']);
      return this.#call(fn, () => this.#raw.tensorAttention(qt, kt, vt, opts));
    }
    const args = this.#attentionArgs(fn, q, k, v, options, ['weights', 'out']);
    const [qm, km, vm, opts] = args;
    const square = [qm.rows, km.rows];
    const shapes = opts.weights === false ? { output: [qm.rows, vm.cols] }
      : { output: [qm.rows, vm.cols], weights: square, scores: square, scaledScores: square, maskedScores: square };
    addOutArrays(fn, options, opts, shapes);
    return this.#call(fn, () => this.#raw.scaledDotProductAttention(...args));
  }

  // The same computation as named steps: scores, scaled_scores, masked_scores, softmax_exp (exp and
  // row sums), weights, output — for stepping through with a learner who has edited Q, K or V.
  traceAttention(q, k, v, options) {
    const args = this.#attentionArgs('traceAttention', q, k, v, options, []);
    return this.#call('traceAttention', () => this.#raw.traceAttention(...args));
  }

  // scaledDotProductAttention's output the way weights: false computes it (FlashAttention: keys in
  // blocks, an online softmax), with every key block's state kept → { blocks: [{ keyStart, keyCount,
  // scores (n_q×keyCount, scaled, blocked entries −Infinity), max, sum, rescale (Float32Array n_q each),
  // accumulator (n_q×d_v, unnormalised) }], output }. blockSize: keys per block (default 256, the
  // size scaledDotProductAttention's blocks have).
  flashAttentionTrace(q, k, v, options) {
    const fn = 'flashAttentionTrace';
    const [qm, km, vm, opts] = this.#attentionArgs(fn, q, k, v, options, ['blockSize']);
    const blockSize = checkSize(fn, 'blockSize', options?.blockSize ?? 256);  // options were checked above
    return this.#call(fn, () => this.#raw.flashAttentionTrace(qm, km, vm, blockSize, opts));
  }

  // The Matrix form's inputs and options: mask, maskKind, causal, scale and what `more` names.
  #attentionArgs(fn, q, k, v, options, more) {
    const opts = maskOptions(fn, options, ['scale', ...more]);
    const qm = checkMatrix(fn, 'q', q);  // the same object passed twice is checked (and converted) once
    const km = k === q ? qm : checkMatrix(fn, 'k', k);
    return [qm, km, v === k ? km : v === q ? qm : checkMatrix(fn, 'v', v), opts];
  }

  // One row per token; a word's row depends only on the word and the seed (a stand-in for a trained
  // embedding table: editing one word leaves the others' vectors unchanged). positions: 'sinusoidal'
  // adds each row's sinusoidal position encoding.
  embedTokens(tokens, dModel, options) {
    const fn = 'embedTokens';
    if (!Array.isArray(tokens)) fail(fn, `tokens must be an array of strings, got ${describe(tokens)}`);
    if (tokens.length === 0) fail(fn, 'tokens is empty (a sentence needs at least one token)');
    const words = new Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {  // every index: holes of a sparse array too
      if (typeof tokens[i] !== 'string') fail(fn, `tokens must be an array of strings, but tokens[${i}] is ${describe(tokens[i])}`);
      words[i] = wellFormed(tokens[i]);
    }
    checkSize(fn, 'dModel', dModel);
    const { seed = 0, positions = 'none' } = checkOptions(fn, options, ['seed', 'positions']);
    checkSeed(fn, seed);
    checkOneOf(fn, 'positions', positions, ['none', 'sinusoidal']);
    return this.#call(fn, () => this.#raw.embedTokens(words, dModel, seed, positions === 'sinusoidal'));
  }

  // 1 = may attend, 0 = blocked. causalMask(n) is torch.tril(torch.ones(n, n)); causalMask(n_q, n_k)
  // aligns the queries to the last keys (decoding with a cache).
  causalMask(rows, cols = rows, ...extra) {
    noMoreArguments('causalMask', extra, ['rows', 'cols']);
    checkSize('causalMask', 'rows', rows);
    checkSize('causalMask', 'cols', cols);
    return this.#call('causalMask', () => this.#raw.causalMask(rows, cols));
  }

  keyPaddingMask(rows, cols, validLength, ...extra) {
    const fn = 'keyPaddingMask';
    noMoreArguments(fn, extra, ['rows', 'cols', 'validLength']);
    checkSize(fn, 'rows', rows);
    checkSize(fn, 'cols', cols);
    checkSize(fn, 'validLength', validLength, { min: 0 });
    return this.#call(fn, () => this.#raw.keyPaddingMask(rows, cols, validLength));
  }

  combineMasks(a, b, ...extra) {
    noMoreArguments('combineMasks', extra, ['a', 'b']);
    const [am, bm] = [checkMatrix('combineMasks', 'a', a), checkMatrix('combineMasks', 'b', b)];
    return this.#call('combineMasks', () => this.#raw.combineMasks(am, bm));
  }

  // kind 'sinusoidal' (the formula) or 'learned' (a seeded N(0, 1) table, as nn.Embedding starts).
  positionalEncoding(seqLen, dModel, kind = 'sinusoidal', options) {
    const fn = 'positionalEncoding';
    checkSize(fn, 'seqLen', seqLen);
    checkSize(fn, 'dModel', dModel);
    checkOneOf(fn, 'kind', kind, ['sinusoidal', 'learned']);
    const { seed = 0 } = checkOptions(fn, options, ['seed']);
    checkSeed(fn, seed);
    return this.#call(fn, () => this.#raw.positionalEncoding(seqLen, dModel, kind, seed));
  }

  // RoPE: rotates column pairs of x (n×d, d even) by position·frequency; positions start at offset.
  applyRotary(x, positionOffset = 0, ...extra) {
    noMoreArguments('applyRotary', extra, ['x', 'positionOffset']);
    const m = checkMatrix('applyRotary', 'x', x);
    checkSize('applyRotary', 'positionOffset', positionOffset, { min: 0 });
    return this.#call('applyRotary', () => this.#raw.applyRotary(m, positionOffset));
  }

  alibiSlopes(numHeads, ...extra) {
    noMoreArguments('alibiSlopes', extra, ['numHeads']);
    checkSize('alibiSlopes', 'numHeads', numHeads);
    return this.#call('alibiSlopes', () => this.#raw.alibiSlopes(numHeads));
  }

  alibiBias(rows, cols, slope, ...extra) {
    const fn = 'alibiBias';
    noMoreArguments(fn, extra, ['rows', 'cols', 'slope']);
    checkSize(fn, 'rows', rows);
    checkSize(fn, 'cols', cols);
    checkFloat32(fn, 'slope', slope);
    return this.#call(fn, () => this.#raw.alibiBias(rows, cols, slope));
  }

  // Word-level tokens: lower-case words (apostrophes inside words kept), punctuation on its own.
  tokenize(text, ...extra) {
    noMoreArguments('tokenize', extra, ['text']);
    if (typeof text !== 'string') fail('tokenize', `text must be a string, got ${describe(text)}`);
    return this.#call('tokenize', () => this.#raw.tokenize(wellFormed(text)));
  }

  // Wasm heap: its size, the bytes in use by live allocations (for leak checks), and the budget; the
  // training module's heap (a separate one) as `training`, once it is loaded.
  memory(...extra) {
    noMoreArguments('memory', extra);
    const stats = this.#raw.memoryStats();
    if (this.#training.loaded) stats.training = this.#training.loaded.raw.memoryStats();
    if (this.#gpt.loaded) stats.gpt = this.#gpt.loaded.raw.memoryStats();
    return stats;
  }

  // A call whose working memory would exceed `bytes` is refused with an AttnLabError before it
  // allocates (seq 100,000 with weights asks for ~150 GiB). Default 512 MiB; at most 2 GiB. It holds
  // for TaskModel too (the training module, now or when it loads).
  setMemoryBudget(bytes, ...extra) {
    noMoreArguments('setMemoryBudget', extra, ['bytes']);
    const checked = checkMemoryBudget('setMemoryBudget', bytes);
    applyBudget('setMemoryBudget', { raw: this.#raw, call: this.#call }, checked);
    for (const module of [this.#training.loaded, this.#gpt.loaded]) if (module) applyBudget('setMemoryBudget', module, checked);
    this.#budget = checked;
    return this;
  }
}
