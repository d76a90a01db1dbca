// The stateful modules: MultiHeadAttention and TransformerEncoderLayer. Each wraps a handle to a
// C++ object in the wasm heap; dispose() frees it at once, and a FinalizationRegistry frees it if the
// JS object is garbage-collected first.
import {
  checkBoolean, checkMatrix, checkNumber, checkOneOf, checkOptions, checkSeed, checkSize, checkVector, fail, maskOptions,
} from './checks.js';

const finalizer = new FinalizationRegistry((handle) => handle.delete());

// Shared by both modules: a live wasm handle, its disposal and error conversion.
class WasmModule {
  #handle;
  #name;

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

  parameterCount() {
    return this.handle('parameterCount').parameterCount();
  }

  // Training mode turns dropout on (seeded); modules start in evaluation mode.
  train(on = true) {
    this.handle('train').setTraining(checkBoolean(`${this.#name}.train`, 'on', on));
    return this;
  }

  dispose() {
    if (!this.#handle) return;
    finalizer.unregister(this);
    this.#handle.delete();
    this.#handle = null;
  }
}

function attentionWeights(fn, w, prefix = '') {
  if (w === null || typeof w !== 'object') fail(fn, `${prefix || 'weights'} must be an object, got ${typeof w}`);
  const optional = (name) => (w[name] === undefined || w[name] === null ? undefined : checkVector(fn, prefix + name, w[name]));
  return {
    inProjWeight: checkMatrix(fn, `${prefix}inProjWeight`, w.inProjWeight),
    inProjBias: optional('inProjBias'),
    outProjWeight: checkMatrix(fn, `${prefix}outProjWeight`, w.outProjWeight),
    outProjBias: optional('outProjBias'),
  };
}

export function moduleClasses(raw, call) {
  class MultiHeadAttention extends WasmModule {
    constructor({ dModel, numHeads, bias = true, seed = 0, dropout = 0, positions = 'none' } = {}) {
      const fn = 'MultiHeadAttention';
      const config = {
        dModel: checkSize(fn, 'dModel', dModel),
        numHeads: checkSize(fn, 'numHeads', numHeads),
        bias: checkBoolean(fn, 'bias', bias),
        seed: checkSeed(fn, seed),
        dropout: checkNumber(fn, 'dropout', dropout),
        positions: checkOneOf(fn, 'positions', positions, ['none', 'rotary', 'alibi']),
      };
      super(fn, call(fn, () => raw.MultiHeadAttentionHandle.create(config)), call);
    }

    loadWeights(weights) {
      const fn = 'MultiHeadAttention.loadWeights';
      const w = attentionWeights(fn, weights);
      this.call(fn, () => this.handle('loadWeights').loadWeights(w));
      return this;
    }

    weights() {
      return this.call('MultiHeadAttention.weights', () => this.handle('weights').weights());
    }

    forward(query, key = query, value = key, options) {
      const fn = 'MultiHeadAttention.forward';
      const [q, k, v, opts] = this.#inputs(fn, query, key, value, options);
      return this.call(fn, () => this.handle('forward').forward(q, k, v, opts));
    }

    trace(query, key = query, value = key, options) {
      const fn = 'MultiHeadAttention.trace';
      const [q, k, v, opts] = this.#inputs(fn, query, key, value, options);
      return this.call(fn, () => this.handle('trace').trace(q, k, v, opts));
    }

    // Self-attention passes key and value as undefined so the trace shows one input X.
    #inputs(fn, query, key, value, options) {
      const opts = maskOptions(fn, options);
      const q = checkMatrix(fn, 'query', query);
      if (key === query && value === query) return [q, undefined, undefined, opts];
      return [q, checkMatrix(fn, 'key', key), checkMatrix(fn, 'value', value), opts];
    }
  }

  class TransformerEncoderLayer extends WasmModule {
    constructor({
      dModel, numHeads, dFF = 2048, normFirst = false, norm = 'layernorm', activation = 'gelu', seed = 0,
      dropout = 0.1, normEps = 1e-5, bias = true, positions = 'none',
    } = {}) {
      const fn = 'TransformerEncoderLayer';
      const config = {
        dModel: checkSize(fn, 'dModel', dModel),
        numHeads: checkSize(fn, 'numHeads', numHeads),
        dFF: checkSize(fn, 'dFF', dFF),
        normFirst: checkBoolean(fn, 'normFirst', normFirst),
        norm: checkOneOf(fn, 'norm', norm, ['layernorm', 'rmsnorm']),
        activation: checkOneOf(fn, 'activation', activation, ['gelu', 'gelu_tanh', 'relu']),
        seed: checkSeed(fn, seed),
        dropout: checkNumber(fn, 'dropout', dropout),
        normEps: checkNumber(fn, 'normEps', normEps),
        bias: checkBoolean(fn, 'bias', bias),
        positions: checkOneOf(fn, 'positions', positions, ['none', 'rotary', 'alibi']),
      };
      super(fn, call(fn, () => raw.TransformerEncoderLayerHandle.create(config)), call);
    }

    // { selfAttn, feedForward, norms, total }
    parameterCounts() {
      return this.handle('parameterCounts').parameterCounts();
    }

    loadWeights(weights) {
      const fn = 'TransformerEncoderLayer.loadWeights';
      const w = checkOptions(fn, weights);
      const part = (name) => {
        if (w[name] === null || typeof w[name] !== 'object') fail(fn, `${name} is missing`);
        return w[name];
      };
      const linear = (name) => ({
        weight: checkMatrix(fn, `${name}.weight`, part(name).weight),
        bias: part(name).bias === undefined ? undefined : checkVector(fn, `${name}.bias`, part(name).bias),
      });
      const norm = (name) => ({
        weight: checkVector(fn, `${name}.weight`, part(name).weight),
        bias: part(name).bias === undefined ? undefined : checkVector(fn, `${name}.bias`, part(name).bias),
      });
      const converted = {
        selfAttn: attentionWeights(fn, part('selfAttn'), 'selfAttn.'),
        linear1: linear('linear1'),
        linear2: linear('linear2'),
        norm1: norm('norm1'),
        norm2: norm('norm2'),
      };
      this.call(fn, () => this.handle('loadWeights').loadWeights(converted));
      return this;
    }

    forward(x, options) {
      const fn = 'TransformerEncoderLayer.forward';
      const input = checkMatrix(fn, 'x', x);
      const opts = maskOptions(fn, options);
      return this.call(fn, () => this.handle('forward').forward(input, opts));
    }

    trace(x, options) {
      const fn = 'TransformerEncoderLayer.trace';
      const input = checkMatrix(fn, 'x', x);
      const opts = maskOptions(fn, options);
      return this.call(fn, () => this.handle('trace').trace(input, opts));
    }
  }

  return { MultiHeadAttention, TransformerEncoderLayer };
}
