// The stateful modules: MultiHeadAttention and TransformerEncoderLayer. Each wraps a handle to a
// C++ object in the wasm heap; dispose() frees it at once, and a FinalizationRegistry frees it if the
// JS object is garbage-collected first.
import {
  addOutArrays, checkBoolean, checkFields, checkFloat32, checkMatrix, checkOneOf, checkOptions, checkSeed, checkSize,
  checkVector, fail, maskOptions, noMoreArguments,
} from './checks.js';
import { checkTensors, tensorOptions, usesTensors } from './tensor.js';

const finalizer = new FinalizationRegistry((handle) => handle.delete());

// Shared by both modules: a live wasm handle, its disposal and error conversion.
export class WasmModule {
  #handle;
  #name;
  #holds = 0;       // calls under way that read the handle across turns (an async patching sweep)
  #released = null; // the handle dispose() gave up while held: freed when the last hold ends

  constructor(name, handle, call) {
    this.#name = name;
    this.#handle = handle;
    this.call = call;
    finalizer.register(this, handle, this);
  }

  handle(method) {
    if (!this.#handle) fail(`${this.#name}.${method}`, 'called on a disposed object');
    return this.#handle;
  }

  parameterCount(...extra) {
    noMoreArguments(`${this.#name}.parameterCount`, extra);
    return this.handle('parameterCount').parameterCount();
  }

  // Training mode turns dropout on (seeded); modules start in evaluation mode.
  train(on = true, ...extra) {
    noMoreArguments(`${this.#name}.train`, extra, ['on']);
    this.handle('train').setTraining(checkBoolean(`${this.#name}.train`, 'on', on));
    return this;
  }

  // Keeps the wasm object alive for a call that spans several turns: dispose() meanwhile makes the object
  // refuse new calls at once but frees it only when every hold is released. → release() (idempotent).
  hold(method) {
    this.handle(method);
    this.#holds++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.#holds === 0 && this.#released) {
        this.#released.delete();
        this.#released = null;
      }
    };
  }

  dispose(...extra) {
    noMoreArguments(`${this.#name}.dispose`, extra);
    if (!this.#handle) return;
    finalizer.unregister(this);
    if (this.#holds > 0) this.#released = this.#handle;
    else this.#handle.delete();
    this.#handle = null;
  }
}

// A bias (or other optional vector) that is undefined or null is absent.
function optionalVector(fn, name, value) {
  return value === undefined || value === null ? undefined : checkVector(fn, name, value);
}

// nn.MultiheadAttention's weights (prefix 'selfAttn.': a layer's). A misspelt name (inProjBais) is refused:
// the optional bias it meant would otherwise be left out without a word.
const ATTENTION_WEIGHTS = ['inProjWeight', 'inProjBias', 'outProjWeight', 'outProjBias'];
function attentionWeights(fn, w, prefix = '') {
  checkFields(fn, prefix ? prefix.slice(0, -1) : 'weights', w, ATTENTION_WEIGHTS);
  return {
    inProjWeight: checkMatrix(fn, `${prefix}inProjWeight`, w.inProjWeight),
    inProjBias: optionalVector(fn, `${prefix}inProjBias`, w.inProjBias),
    outProjWeight: checkMatrix(fn, `${prefix}outProjWeight`, w.outProjWeight),
    outProjBias: optionalVector(fn, `${prefix}outProjBias`, w.outProjBias),
  };
}

// A float the core must keep positive: a tiny value that float32 rounds to 0 would be refused as 0.
function checkPositiveFloat32(fn, name, value) {
  checkFloat32(fn, name, value);
  if (value > 0 && Math.fround(value) === 0) fail(fn, `${name} = ${value} is below float32's smallest positive value (1.4e-45)`);
  return value;
}

export function moduleClasses(raw, call) {
  class MultiHeadAttention extends WasmModule {
    constructor(options) {
      const fn = 'MultiHeadAttention';
      const { dModel, numHeads, bias = true, seed = 0, dropout = 0, positions = 'none' } =
        checkOptions(fn, options, ['dModel', 'numHeads', 'bias', 'seed', 'dropout', 'positions']);
      const config = {
        dModel: checkSize(fn, 'dModel', dModel),
        numHeads: checkSize(fn, 'numHeads', numHeads),
        bias: checkBoolean(fn, 'bias', bias),
        seed: checkSeed(fn, seed),
        dropout: checkFloat32(fn, 'dropout', dropout),
        positions: checkOneOf(fn, 'positions', positions, ['none', 'rotary', 'alibi']),
      };
      super(fn, call(fn, () => raw.MultiHeadAttentionHandle.create(config)), call);
      this.#dModel = config.dModel;
    }

    #dModel;

    loadWeights(weights) {
      const fn = 'MultiHeadAttention.loadWeights';
      const w = attentionWeights(fn, weights);
      this.call(fn, () => this.handle('loadWeights').loadWeights(w));
      return this;
    }

    weights(...extra) {
      noMoreArguments('MultiHeadAttention.weights', extra);
      return this.call('MultiHeadAttention.weights', () => this.handle('weights').weights());
    }

    // options.out: Float32Arrays for output (n_q×d_model) and averageWeights (n_q×n_k) to be written into.
    // With tensors: x (batch, seq, d_model) → { output (batch, seq, d_model), weights (batch, heads,
    // n_q, n_k), averageWeights (batch, n_q, n_k) when asked }; options { causal, mask, maskKind,
    // keyPaddingMask (batch, n_k), 1 = PAD, averageWeights, seed (the dropout draws while training) }.
    forward(query, key = query, value = key, options) {
      const fn = 'MultiHeadAttention.forward';
      if (usesTensors([query, key, value], options)) {
        const opts = tensorOptions(fn, options, ['averageWeights', 'weights', 'seed']);
        const self = key === query && value === query;
        const [q, k, v] = checkTensors(fn, { query, key, value });
        return this.call(fn, () => this.handle('forward').forwardTensor(q, self ? undefined : k, self ? undefined : v, opts));
      }
      const [q, k, v, opts] = this.#inputs(fn, query, key, value, options, ['weights', 'out']);
      const output = [q.rows, this.#dModel];
      const shapes = opts.weights === false ? { output } : { output, averageWeights: [q.rows, (k ?? q).rows] };
      addOutArrays(fn, options, opts, shapes);
      return this.call(fn, () => this.handle('forward').forward(q, k, v, opts));
    }

    // With tensors: the tutorials' steps with their shapes — x, qkv (batch, seq, 3·d_model), its
    // reshape (batch, seq, 3, heads, d_k) and permute (3, batch, heads, seq, d_k), q_k_v, scores,
    // weights, heads, transpose, concat, output — each step's tensors { shape, data }.
    trace(query, key = query, value = key, options) {
      const fn = 'MultiHeadAttention.trace';
      if (usesTensors([query, key, value], options)) {
        const opts = { ...tensorOptions(fn, options, ['weights']), trace: true };
        const self = key === query && value === query;
        const [q, k, v] = checkTensors(fn, { query, key, value });
        return this.call(fn, () => this.handle('trace').forwardTensor(q, self ? undefined : k, self ? undefined : v, opts).trace);
      }
      const [q, k, v, opts] = this.#inputs(fn, query, key, value, options, ['weights']);
      return this.call(fn, () => this.handle('trace').trace(q, k, v, opts));
    }

    // Self-attention passes key and value as undefined so the trace shows one input X. An argument
    // that is the same object as an earlier one is checked (and converted) once.
    #inputs(fn, query, key, value, options, more) {
      const opts = maskOptions(fn, options, more);
      const q = checkMatrix(fn, 'query', query);
      if (key === query && value === query) return [q, undefined, undefined, opts];
      const k = key === query ? q : checkMatrix(fn, 'key', key);
      const v = value === key ? k : value === query ? q : checkMatrix(fn, 'value', value);
      return [q, k, v, opts];
    }
  }

  class TransformerEncoderLayer extends WasmModule {
    constructor(options) {
      const fn = 'TransformerEncoderLayer';
      const {
        dModel, numHeads, dFF = 2048, normFirst = false, norm = 'layernorm', activation = 'gelu', seed = 0,
        dropout = 0.1, normEps = 1e-5, bias = true, positions = 'none',
      } = checkOptions(fn, options, ['dModel', 'numHeads', 'dFF', 'normFirst', 'norm', 'activation', 'seed', 'dropout', 'normEps',
        'bias', 'positions']);
      const config = {
        dModel: checkSize(fn, 'dModel', dModel),
        numHeads: checkSize(fn, 'numHeads', numHeads),
        dFF: checkSize(fn, 'dFF', dFF),
        normFirst: checkBoolean(fn, 'normFirst', normFirst),
        norm: checkOneOf(fn, 'norm', norm, ['layernorm', 'rmsnorm']),
        activation: checkOneOf(fn, 'activation', activation, ['gelu', 'gelu_tanh', 'relu']),
        seed: checkSeed(fn, seed),
        dropout: checkFloat32(fn, 'dropout', dropout),
        normEps: checkPositiveFloat32(fn, 'normEps', normEps),
        bias: checkBoolean(fn, 'bias', bias),
        positions: checkOneOf(fn, 'positions', positions, ['none', 'rotary', 'alibi']),
      };
      super(fn, call(fn, () => raw.TransformerEncoderLayerHandle.create(config)), call);
    }

    // { selfAttn, feedForward, norms, total }
    parameterCounts(...extra) {
      noMoreArguments('TransformerEncoderLayer.parameterCounts', extra);
      return this.handle('parameterCounts').parameterCounts();
    }

    loadWeights(weights) {
      const fn = 'TransformerEncoderLayer.loadWeights';
      checkFields(fn, 'weights', weights, ['selfAttn', 'linear1', 'linear2', 'norm1', 'norm2']);
      const part = (name) => {
        const value = weights[name];
        if (value === undefined || value === null) fail(fn, `${name} is missing`);
        return checkFields(fn, name, value, ['weight', 'bias']);
      };
      const linear = (name) => {
        const { weight, bias } = part(name);
        return { weight: checkMatrix(fn, `${name}.weight`, weight), bias: optionalVector(fn, `${name}.bias`, bias) };
      };
      const norm = (name) => {
        const { weight, bias } = part(name);
        return { weight: checkVector(fn, `${name}.weight`, weight), bias: optionalVector(fn, `${name}.bias`, bias) };
      };
      const converted = {
        selfAttn: attentionWeights(fn, weights.selfAttn ?? fail(fn, 'selfAttn is missing'), 'selfAttn.'),
        linear1: linear('linear1'),
        linear2: linear('linear2'),
        norm1: norm('norm1'),
        norm2: norm('norm2'),
      };
      this.call(fn, () => this.handle('loadWeights').loadWeights(converted));
      return this;
    }

    // With a tensor: x (batch, seq, d_model) → (batch, seq, d_model), each sequence the Matrix call's;
    // options { mask ((seq, seq) or (batch, seq, seq), 1 = may attend), causal, keyPaddingMask (batch, seq), 1 = PAD }.
    forward(x, options) {
      const fn = 'TransformerEncoderLayer.forward';
      if (usesTensors([x], options)) {
        const opts = tensorOptions(fn, options, []);
        const [input] = checkTensors(fn, { x });
        return this.call(fn, () => this.handle('forward').forwardTensor(input, opts));
      }
      const input = checkMatrix(fn, 'x', x);
      const opts = maskOptions(fn, options, ['weights']);
      return this.call(fn, () => this.handle('forward').forward(input, opts));
    }

    trace(x, options) {
      const fn = 'TransformerEncoderLayer.trace';
      const input = checkMatrix(fn, 'x', x);
      const opts = maskOptions(fn, options, ['weights']);
      return this.call(fn, () => this.handle('trace').trace(input, opts));
    }
  }

  return { MultiHeadAttention, TransformerEncoderLayer };
}
