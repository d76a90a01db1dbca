// GPTModel, GPTSession and Tokenizer: a GPT-2-architecture model, its KV-cache decoder and the byte-level
// BPE tokenizer, in the GPT module (attnlab-gpt-*.wasm), which the lab loads on first use:
//   const model = await lab.loadGPT(bytes);                     // a .safetensors file (GPT-2's names)
//   const tokenizer = await lab.loadTokenizer(vocabJson, mergesText);
//   const { logits, attention } = model.forward(tokenizer.encode('The cat'), { attention: true });
//   const next = lab.sample(logits.data.subarray(-model.config.vocabSize), { temperature: 0.8, seed: 1 });
import {
  checkBoolean, checkFields, checkFloat32, checkOneOf, checkOptions, checkSeed, checkSize, describe, fail, noMoreArguments,
  wellFormed,
} from './checks.js';
import * as interp from './interp.js';
import { WasmModule } from './modules.js';

const utf8 = new TextDecoder('utf-8');  // broken sequences (a character split between tokens) become U+FFFD

// Token ids: an array or Int32Array of integers ≥ 0, as an Int32Array (values beyond the vocabulary
// are the core's to refuse, with the position).
export function checkIds(fn, name, ids, { allowIgnore = false } = {}) {
  if (!Array.isArray(ids) && !(ids instanceof Int32Array) && !(ids instanceof Uint32Array) && !(ids instanceof Uint16Array)) {
    fail(fn, `${name} must be an array of token ids (or an Int32Array), got ${describe(ids)}`);
  }
  const out = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const low = allowIgnore ? -1 : 0;
    if (typeof id !== 'number' || !Number.isInteger(id) || id < low || id > 0x7fffffff) {
      fail(fn, `${name}[${i}] must be an integer ≥ ${low}, got ${describe(id)}`);
    }
    out[i] = id;
  }
  return out;
}

// { attention, trace, ablate, ablation } and what `more` names (forward's logits).
function forwardOptions(fn, options, more = []) {
  const { attention = false, trace = false, ablate, ablation = 'zero' } =
    checkOptions(fn, options, ['attention', 'trace', 'ablate', 'ablation', ...more]);
  return {
    attention: checkBoolean(fn, 'attention', attention),
    trace: checkBoolean(fn, 'trace', trace),
    ablate: checkAblate(fn, ablate),
    ablation: checkOneOf(fn, 'ablation', ablation, ['zero', 'mean']),
  };
}

const SAMPLING_OPTIONS = ['temperature', 'topK', 'topP', 'seed', 'repetitionPenalty', 'noRepeatNgramSize', 'presencePenalty',
  'frequencyPenalty'];

// { temperature, topK, topP, seed, repetitionPenalty, noRepeatNgramSize, presencePenalty, frequencyPenalty }
// with the core's defaults (1, 0 = all, 1, 0, 1 = off, 0 = off, 0, 0); the call may take what `more` names.
export function samplingOptions(fn, options, more = []) {
  const {
    temperature = 1, topK = 0, topP = 1, seed = 0,
    repetitionPenalty = 1, noRepeatNgramSize = 0, presencePenalty = 0, frequencyPenalty = 0,
  } = checkOptions(fn, options, [...SAMPLING_OPTIONS, ...more]);
  checkFloat32(fn, 'temperature', temperature);
  if (temperature < 0) fail(fn, `temperature must be ≥ 0 (0 = greedy), got ${temperature}`);
  checkSize(fn, 'topK', topK, { min: 0 });
  checkFloat32(fn, 'topP', topP);
  if (!(topP > 0 && topP <= 1)) fail(fn, `topP must be in (0, 1], got ${topP}`);
  checkFloat32(fn, 'repetitionPenalty', repetitionPenalty);
  if (!(repetitionPenalty > 0)) fail(fn, `repetitionPenalty must be > 0 (1 = off; 1.2 discourages repeats), got ${repetitionPenalty}`);
  checkSize(fn, 'noRepeatNgramSize', noRepeatNgramSize, { min: 0 });
  checkFloat32(fn, 'presencePenalty', presencePenalty);
  checkFloat32(fn, 'frequencyPenalty', frequencyPenalty);
  return {
    temperature, topK, topP, seed: checkSeed(fn, seed),
    repetitionPenalty, noRepeatNgramSize, presencePenalty, frequencyPenalty,
  };
}

// generate()'s options: the sampling options and { maxTokens = 32, stopToken = -1, stopTokens = [] };
// the call may take what `more` names too.
export function generateOptions(fn, options, more = []) {
  const generateOnly = ['maxTokens', 'stopToken', 'stopTokens', ...more];
  const { maxTokens = 32, stopToken = -1, stopTokens = [] } = checkOptions(fn, options, [...SAMPLING_OPTIONS, ...generateOnly]);
  checkSize(fn, 'maxTokens', maxTokens, { min: 0 });
  if (!Number.isInteger(stopToken) || stopToken < -1) fail(fn, `stopToken must be a token id or -1, got ${describe(stopToken)}`);
  const stops = checkIds(fn, 'stopTokens', stopTokens);
  return { ...samplingOptions(fn, options, generateOnly), maxTokens, stopToken, stopTokens: stops };
}

// ablate: [{ layer, head }] (their range is the core's to check), or undefined.
export function checkAblate(fn, ablate) {
  if (ablate === undefined) return undefined;
  if (!Array.isArray(ablate)) fail(fn, `ablate must be an array of { layer, head }, got ${describe(ablate)}`);
  return ablate.map((entry, i) => {
    const { layer, head } = checkFields(fn, `ablate[${i}]`, entry, ['layer', 'head']);
    return { layer: checkSize(fn, `ablate[${i}].layer`, layer, { min: 0 }), head: checkSize(fn, `ablate[${i}].head`, head, { min: 0 }) };
  });
}

// What every model in the GPT module offers (GPTModel, LlamaModel): save({ dtype }) as a .safetensors
// file, tensorNames(), tensor(name) → { shape, data: Float32Array } by the checkpoint's name, and the
// interpretability calls of interp.js on its weights (TransformerLens's hook points, the logit lens,
// attribution, activation and path patching, a head's circuits).
export class ModelWeights extends WasmModule {
  #name;
  #module;

  constructor(name, handle, module) {
    super(name, handle, module.call);
    this.#name = name;
    this.#module = module;
  }

  // 'GPTModel' | 'LlamaModel': the name error messages give.
  get className() {
    return this.#name;
  }

  runWithCache(ids, options) {
    return interp.runWithCache(this, this.#module, ids, options);
  }

  runWithHooks(ids, options) {
    return interp.runWithHooks(this, this.#module, ids, options);
  }

  logitLens(ids, options) {
    return interp.logitLens(this, this.#module, ids, options);
  }

  directLogitAttribution(ids, options) {
    return interp.directLogitAttribution(this, this.#module, ids, options);
  }

  activationPatching(clean, corrupted, options) {
    return interp.activationPatching(this, this.#module, clean, corrupted, options);
  }
  pathPatching(clean, corrupted, options) {
    return interp.pathPatching(this, this.#module, clean, corrupted, options);
  }

  headCircuit(layer, head, options) {
    return interp.headCircuit(this, this.#module, layer, head, options);
  }

  copyingScores(options, ...extra) {
    return interp.copyingScores(this, this.#module, options, extra);
  }

  compositionScores(options) {
    return interp.compositionScores(this, this.#module, options);
  }

  save(options) {
    const fn = `${this.#name}.save`;
    const { dtype = 'F32' } = checkOptions(fn, options, ['dtype']);
    checkOneOf(fn, 'dtype', dtype, ['F32', 'F16', 'BF16']);
    return this.call(fn, () => this.handle('save').save(dtype));
  }

  tensorNames(...extra) {
    noMoreArguments(`${this.#name}.tensorNames`, extra);
    return this.handle('tensorNames').tensorNames();
  }

  tensor(name, ...extra) {
    const fn = `${this.#name}.tensor`;
    noMoreArguments(fn, extra, ['name']);
    if (typeof name !== 'string') fail(fn, `name must be a string, got ${describe(name)}`);
    return this.call(fn, () => this.handle('tensor').tensor(name));
  }
}

// A KV-cache decoder over a model (GPTSession, LlamaSession): the model is kept alive while the session
// is, and a disposed model cannot be read through it.
export class CacheSession extends WasmModule {
  #model;
  #name;

  constructor(name, handle, call, model) {
    super(name, handle, call);
    this.#name = name;
    this.#model = model;
  }

  checkModel(method) {
    this.#model.handle(method);
  }

  get length() {  // tokens read
    return this.handle('length').length();
  }

  // { keys, values }: layer `layer`'s cache.
  cache(layer, ...extra) {
    const fn = `${this.#name}.cache`;
    noMoreArguments(fn, extra, ['layer']);
    checkSize(fn, 'layer', layer, { min: 0 });
    return this.call(fn, () => this.handle('cache').cache(layer));
  }

  reset(...extra) {
    noMoreArguments(`${this.#name}.reset`, extra);
    this.handle('reset').reset();
    return this;
  }
}

// The classes over one loaded GPT module ({ raw, call }).
export function gptClasses(module) {
  class GPTModel extends ModelWeights {
    #config;
    #parameterCount;

    constructor(handle) {
      super('GPTModel', handle, module);
      const { parameterCount, ...config } = this.handle('config').config();
      this.#config = Object.freeze(config);
      this.#parameterCount = parameterCount;
    }

    // { vocabSize, contextLength, dModel, numHeads, numLayers }
    get config() {
      return this.#config;
    }

    parameterCount(...extra) {
      noMoreArguments('GPTModel.parameterCount', extra);
      return this.#parameterCount;
    }

    // The GPT's backward pass makes attribution patching possible here; a Llama's core has no backward.
    attributionPatching(clean, corrupted, options) {
      return interp.attributionPatching(this, module, clean, corrupted, options);
    }

    // ARENA's top-1 check of each head's full OV circuit (V×V products: seconds on a large vocabulary).
    copyingTop1(options, ...extra) {
      return interp.copyingTop1(this, module, options, extra);
    }

    // ids [n] → { logits: Matrix n×vocabSize, attention?: Matrix[layer][head] (n×n), trace? }.
    // ablate: [{ layer, head }] knocks heads out: their output set to 0 (ablation 'zero') or to its
    // mean over the positions ('mean').
    // logits: 'all' (n×V), 'last' (1×V: the token after the last position) or 'none' (0×V, for attention alone).
    // A batch: ids { shape: [batch, seq], data } (sequences of one length; pad at the end — causal
    // attention never reads a later position, so a shorter sequence's own tokens get its values, up to
    // float rounding) →
    // { logits: Tensor (batch, seq, V) ((batch, 1, V) with 'last', null with 'none'), attention?:
    // Tensor[layer] (batch, heads, seq, seq) }: each sequence the one-sequence call's, bit for bit.
    forward(ids, options) {
      const fn = 'GPTModel.forward';
      const opts = forwardOptions(fn, options, ['logits']);
      opts.logits = checkOneOf(fn, 'logits', options?.logits ?? 'all', ['all', 'last', 'none']);
      if (ids !== null && typeof ids === 'object' && 'shape' in ids) return this.#forwardBatch(fn, ids, opts);
      const tokens = checkIds(fn, 'ids', ids);
      return this.call(fn, () => this.handle('forward').forward(tokens, opts));
    }

    #forwardBatch(fn, ids, opts) {
      const { shape, data } = ids;
      if (!Array.isArray(shape) || shape.length !== 2) {
        fail(fn, `ids must be token ids [n] or a batch { shape: [batch, seq], data }, got shape ${Array.isArray(shape) ? `(${shape.join(', ')})` : describe(shape)}`);
      }
      const [batch, seq] = [checkSize(fn, 'ids.shape[0]', shape[0]), checkSize(fn, 'ids.shape[1]', shape[1])];
      const tokens = checkIds(fn, 'ids.data', data);
      if (tokens.length !== batch * seq) fail(fn, `ids.data has ${tokens.length} ids but ids is (${batch}, ${seq}) (${batch * seq} ids)`);
      if (opts.trace) fail(fn, 'trace is for one sequence: pass its ids [n] (a batch would trace each sequence the same way)');
      const results = Array.from({ length: batch }, (_, b) =>
        this.call(fn, () => this.handle('forward').forward(tokens.subarray(b * seq, (b + 1) * seq), opts)));
      const stack = (parts, shapeOf) => {
        const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
        parts.reduce((at, p) => { out.set(p, at); return at + p.length; }, 0);
        return { shape: shapeOf, data: out };
      };
      const { vocabSize, numHeads } = this.#config;
      const rows = opts.logits === 'last' ? 1 : seq;
      const out = { logits: opts.logits === 'none' ? null : stack(results.map((r) => r.logits.data), [batch, rows, vocabSize]) };
      if (opts.attention) {
        out.attention = results[0].attention.map((_, l) => stack(results.flatMap((r) => r.attention[l].map((m) => m.data)), [batch, numHeads, seq, seq]));
      }
      return out;
    }

    // Per position t, −log p(ids[t + 1]) under the forward with `options` (ablations): Float32Array [n − 1].
    tokenLosses(ids, options) {
      const fn = 'GPTModel.tokenLosses';
      const tokens = checkIds(fn, 'ids', ids);
      const opts = forwardOptions(fn, options);
      return this.call(fn, () => this.handle('tokenLosses').tokenLosses(tokens, opts));
    }

    // Per layer and head ([numLayers×numHeads] Matrices): previousToken and firstToken on `text` (ids
    // of ordinary text), induction and duplicateToken on seeded random tokens repeated twice.
    headScores(text, options) {
      const fn = 'GPTModel.headScores';
      const tokens = checkIds(fn, 'text', text);
      const { repeatLength = 0, samples = 4, seed = 0, tokenLow = 0, tokenHigh = 0 } =
        checkOptions(fn, options, ['repeatLength', 'samples', 'seed', 'tokenLow', 'tokenHigh']);
      const opts = {
        repeatLength: checkSize(fn, 'repeatLength', repeatLength, { min: 0 }),
        samples: checkSize(fn, 'samples', samples),
        seed: checkSeed(fn, seed),
        tokenLow: checkSize(fn, 'tokenLow', tokenLow, { min: 0 }),
        tokenHigh: checkSize(fn, 'tokenHigh', tokenHigh, { min: 0 }),
      };
      return this.call(fn, () => this.handle('headScores').headScores(tokens, opts));
    }

    // The prompt, then up to maxTokens draws fed back through a KV cache → { tokens: Int32Array,
    // probabilities: Float32Array (each token's probability when drawn), stopped: 'maxTokens' |
    // 'stopToken' | 'context' (the context filled before maxTokens) }. The penalties see the prompt and
    // the tokens generated so far.
    generate(ids, options) {
      const fn = 'GPTModel.generate';
      const tokens = checkIds(fn, 'ids', ids);
      const opts = generateOptions(fn, options);
      return this.call(fn, () => this.handle('generate').generate(tokens, opts));
    }

    // A KV-cache decoder over this model (dispose it, or it is freed with the model's last reference).
    session(...extra) {
      const fn = 'GPTModel.session';
      noMoreArguments(fn, extra);
      const handle = this.call(fn, () => module.raw.GPTSessionHandle.create(this.handle('session')));
      return new GPTSession(handle, this);
    }

    // Multiply-adds for the next token's logits after n tokens, with the cache or by a full forward.
    multiplyAdds(n, options) {
      const fn = 'GPTModel.multiplyAdds';
      const { cache = true } = checkOptions(fn, options, ['cache']);
      checkSize(fn, 'n', n);
      return this.handle('multiplyAdds').multiplyAdds(n, checkBoolean(fn, 'cache', cache));
    }

    // (save({ dtype }): a .safetensors file with Hugging Face GPT-2's names and n_head in the metadata;
    // tensorNames(), tensor(name): ModelWeights.)

    // AdamW training: startTraining(options) once, then trainStep(ids, targets, batch) with batch
    // sequences of equal length laid end to end (targets −1 = no loss) → { loss, gradNorm, lr, step }.
    startTraining(options) {
      const fn = 'GPTModel.startTraining';
      const {
        maxLr = 3e-3, minLr = 3e-4, warmupSteps = 0, totalSteps = 1000, weightDecay = 0.1, clipNorm = 1, beta1 = 0.9,
        beta2 = 0.95,
      } = checkOptions(fn, options, ['maxLr', 'minLr', 'warmupSteps', 'totalSteps', 'weightDecay', 'clipNorm', 'beta1', 'beta2']);
      const config = { maxLr, minLr, weightDecay, clipNorm, beta1, beta2 };
      for (const [name, value] of Object.entries(config)) checkFloat32(fn, name, value);
      config.warmupSteps = checkSize(fn, 'warmupSteps', warmupSteps, { min: 0 });
      config.totalSteps = checkSize(fn, 'totalSteps', totalSteps);
      this.call(fn, () => this.handle('startTraining').startTraining(config));
      return this;
    }

    trainStep(ids, targets, batch = 1, ...extra) {
      const fn = 'GPTModel.trainStep';
      noMoreArguments(fn, extra, ['ids', 'targets', 'batch']);
      const [x, y] = [checkIds(fn, 'ids', ids), checkIds(fn, 'targets', targets, { allowIgnore: true })];
      checkSize(fn, 'batch', batch);
      return this.call(fn, () => this.handle('trainStep').trainStep(x, y, batch));
    }

    loss(ids, targets, batch = 1, ...extra) {
      const fn = 'GPTModel.loss';
      noMoreArguments(fn, extra, ['ids', 'targets', 'batch']);
      const [x, y] = [checkIds(fn, 'ids', ids), checkIds(fn, 'targets', targets, { allowIgnore: true })];
      checkSize(fn, 'batch', batch);
      return this.call(fn, () => this.handle('loss').loss(x, y, batch));
    }
  }

  class GPTSession extends CacheSession {
    constructor(handle, model) {
      super('GPTSession', handle, module.call, model);
    }

    // Feeds one token → { logits: Float32Array [vocabSize], attention: Matrix[layer][head] (1×length) }.
    // (cache(layer): { keys, values }, each a Matrix length×dModel, head h in columns h·dHead ….)
    append(id, ...extra) {
      const fn = 'GPTSession.append';
      noMoreArguments(fn, extra, ['id']);
      checkSize(fn, 'id', id, { min: 0 });
      this.checkModel('append');
      return this.call(fn, () => this.handle('append').append(id));
    }
  }

  class Tokenizer extends WasmModule {
    constructor(handle) {
      super('Tokenizer', handle, module.call);
      this.vocabSize = this.handle('vocabSize').vocabSize();
      const eot = this.handle('endOfText').endOfText();
      this.endOfText = eot >= 0 ? eot : null;
    }

    // text → Int32Array of ids (GPT-2's pre-tokenisation, then the merges).
    encode(text, ...extra) {
      const fn = 'Tokenizer.encode';
      noMoreArguments(fn, extra, ['text']);
      if (typeof text !== 'string') fail(fn, `text must be a string, got ${describe(text)}`);
      return this.call(fn, () => this.handle('encode').encode(wellFormed(text)));
    }

    // How each pre-tokenised piece became tokens: [{ text, start (one id per byte), steps: [{ rank,
    // left, right, merged, tokens }], ids }].
    encodeWithSteps(text, ...extra) {
      const fn = 'Tokenizer.encodeWithSteps';
      noMoreArguments(fn, extra, ['text']);
      if (typeof text !== 'string') fail(fn, `text must be a string, got ${describe(text)}`);
      const pieces = this.call(fn, () => this.handle('encodeWithSteps').encodeWithSteps(wellFormed(text)));
      return pieces.map(({ bytes, ...piece }) => ({ text: utf8.decode(bytes), ...piece }));
    }

    // ids → string (a character split across the ids' ends shows as U+FFFD).
    decode(ids, ...extra) {
      noMoreArguments('Tokenizer.decode', extra, ['ids']);
      return utf8.decode(this.decodeBytes(ids));
    }

    decodeBytes(ids, ...extra) {
      noMoreArguments('Tokenizer.decodeBytes', extra, ['ids']);
      const fn = 'Tokenizer.decode';  // decode's errors too
      const tokens = checkIds(fn, 'ids', ids);
      return this.call(fn, () => this.handle('decode').decode(tokens));
    }

    // One token: its text (its bytes decoded; U+FFFD where it holds part of a character) and GPT-2's
    // spelling of it ('Ġcat' for ' cat').
    tokenString(id, ...extra) {
      noMoreArguments('Tokenizer.tokenString', extra, ['id']);
      return utf8.decode(this.tokenBytes(id));
    }

    tokenBytes(id, ...extra) {
      const fn = 'Tokenizer.tokenBytes';
      noMoreArguments(fn, extra, ['id']);
      checkSize(fn, 'id', id, { min: 0 });
      return this.call(fn, () => this.handle('tokenBytes').tokenBytes(id));
    }

    tokenText(id, ...extra) {
      const fn = 'Tokenizer.tokenText';
      noMoreArguments(fn, extra, ['id']);
      checkSize(fn, 'id', id, { min: 0 });
      return this.call(fn, () => this.handle('tokenText').tokenText(id));
    }

    // GPT-2's two files for this tokenizer: { vocabJson, mergesText }.
    toGPT2Files(...extra) {
      noMoreArguments('Tokenizer.toGPT2Files', extra);
      return { vocabJson: this.handle('toGPT2Files').vocabJson(), mergesText: this.handle('toGPT2Files').mergesText() };
    }
  }

  return { GPTModel, GPTSession, Tokenizer };
}
