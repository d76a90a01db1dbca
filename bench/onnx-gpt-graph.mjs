// ONNX graphs (opset 17) of a GPT-2-architecture model, built by hand from its weights for the browser
// inference benchmark (bench/gpt-inference.mjs), with the protobuf helpers of onnx-graphs.mjs:
//   gptForwardModel(tensors, config, n): ids int64 [n] → logits [n×V] and attention_<l> [H×n×n] per layer
//   gptDecodeModel(tensors, config): one token with a KV cache: id, position (int64 [1]) and
//     past_k_<l>, past_v_<l> [H×past×dh] → logits [1×V] and present_k_<l>, present_v_<l> [H×(past+1)×dh]
// `tensors` maps GPT-2's names (wte.weight, h.0.attn.c_attn.weight, …) to { shape, data } as
// GPTModel.tensor returns them; `config` is GPTModel.config. GPT-2's semantics: x = wte[ids] + wpe[pos];
// per block x += c_proj(attn(ln_1 x)); x += mlp(ln_2 x) with gelu_new; ln_f; logits = x·wteᵀ.
// Conv1D weights are [in×out], so a projection is MatMul(x, W) + b as stored.
import { ATTRIBUTE, FLOAT, INT64, floatTensor, int64Tensor, model, node, valueInfo } from './onnx-graphs.mjs';

export const intAttr = (name, i) => ({ name, type: ATTRIBUTE.INT, i });
export const intsAttr = (name, ints) => ({ name, type: ATTRIBUTE.INTS, ints });
export const floatAttr = (name, f) => ({ name, type: ATTRIBUTE.FLOAT, f });

export const MASKED = -1e9;  // added to future positions' scores: exp underflows to 0 without −inf arithmetic

// Collects nodes and initializers; op() names its outputs unless told, and returns them (also used by
// onnx-llama-graph.mjs).
export class GraphBuilder {
  nodes = [];
  initializer = [];
  #names = new Set();
  #count = 0;

  constructor(tensors, config) {
    this.tensors = tensors;
    this.config = config;
  }

  op(opType, inputs, attributes = [], outputs = 1) {
    const names = typeof outputs === 'number' ? Array.from({ length: outputs }, () => `${opType}_${this.#count++}`) : outputs;
    this.nodes.push(node(opType, inputs, names, attributes));
    return names.length === 1 ? names[0] : names;
  }

  // Initializers, added once per name: a float constant, an int64 vector, or one of the model's tensors.
  floats(name, dims, data) {
    if (!this.#names.has(name)) this.initializer.push(floatTensor(name, dims, data));
    this.#names.add(name);
    return name;
  }

  int64s(name, values) {
    if (!this.#names.has(name)) this.initializer.push(int64Tensor(name, values));
    this.#names.add(name);
    return name;
  }

  weight(name) {
    const tensor = this.tensors[name];
    if (!tensor) throw new Error(`onnx-gpt-graph: the model has no tensor ${name}`);
    return this.floats(name, tensor.shape, tensor.data);
  }

  scalar(name, value) {
    return this.floats(name, [], [value]);
  }
}

function layerNorm(g, x, prefix) {
  return g.op('LayerNormalization', [x, g.weight(`${prefix}.weight`), g.weight(`${prefix}.bias`)],
    [intAttr('axis', -1), floatAttr('epsilon', 1e-5)]);
}

function conv1d(g, x, prefix) {
  return g.op('Add', [g.op('MatMul', [x, g.weight(`${prefix}.weight`)]), g.weight(`${prefix}.bias`)]);
}

// GPT-2's gelu_new: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
function geluTanh(g, x) {
  const cube = g.op('Pow', [x, g.scalar('three', 3)]);
  const inner = g.op('Add', [x, g.op('Mul', [cube, g.scalar('gelu_c', 0.044715)])]);
  const tanh = g.op('Tanh', [g.op('Mul', [inner, g.scalar('sqrt_2_over_pi', Math.sqrt(2 / Math.PI))])]);
  return g.op('Mul', [g.op('Mul', [x, g.op('Add', [tanh, g.scalar('one', 1)])]), g.scalar('half', 0.5)]);
}

// [rows×d] → [H×rows×dh]: head h takes columns h·dh … (h+1)·dh.
function splitHeads(g, x) {
  const { numHeads, dModel } = g.config;
  const split = g.op('Reshape', [x, g.int64s('heads_shape', [-1, numHeads, dModel / numHeads])]);
  return g.op('Transpose', [split], [intsAttr('perm', [1, 0, 2])]);
}

// One block on x [rows×d]. Its attention weights are named attention_<l>; with `cache` the keys and
// values are appended to past_k_<l> / past_v_<l> as present_k_<l> / present_v_<l>; with `mask` the
// causal mask initializer is added to the scores.
function block(g, l, x, { cache = false, mask = false }) {
  const { dModel, numHeads } = g.config;
  const p = `h.${l}`;
  const qkv = conv1d(g, layerNorm(g, x, `${p}.ln_1`), `${p}.attn.c_attn`);
  const [q, k, v] = g.op('Split', [qkv, g.int64s('qkv_split', [dModel, dModel, dModel])], [intAttr('axis', 1)], 3)
    .map((t) => splitHeads(g, t));
  const keys = cache ? g.op('Concat', [`past_k_${l}`, k], [intAttr('axis', 1)], [`present_k_${l}`]) : k;
  const values = cache ? g.op('Concat', [`past_v_${l}`, v], [intAttr('axis', 1)], [`present_v_${l}`]) : v;
  const keysT = g.op('Transpose', [keys], [intsAttr('perm', [0, 2, 1])]);
  const scores = g.op('Mul', [g.op('MatMul', [q, keysT]), g.scalar('scale', 1 / Math.sqrt(dModel / numHeads))]);
  const masked = mask ? g.op('Add', [scores, 'mask']) : scores;
  const weights = g.op('Softmax', [masked], [intAttr('axis', -1)], [`attention_${l}`]);
  const heads = g.op('Transpose', [g.op('MatMul', [weights, values])], [intsAttr('perm', [1, 0, 2])]);
  const merged = g.op('Reshape', [heads, g.int64s('merged_shape', [-1, dModel])]);
  const afterAttention = g.op('Add', [x, conv1d(g, merged, `${p}.attn.c_proj`)]);
  const hidden = geluTanh(g, conv1d(g, layerNorm(g, afterAttention, `${p}.ln_2`), `${p}.mlp.c_fc`));
  return g.op('Add', [afterAttention, conv1d(g, hidden, `${p}.mlp.c_proj`)]);
}

// wteᵀ [d×V] for the tied output projection, so the logits are a plain MatMul like every other layer.
function transposedEmbedding(g) {
  const { shape: [V, d], data } = g.tensors['wte.weight'];
  const out = new Float32Array(V * d);
  for (let r = 0; r < V; r++) for (let c = 0; c < d; c++) out[c * V + r] = data[r * d + c];
  return g.floats('wte_t', [d, V], out);
}

// Embeddings, every block, ln_f and the logits; `ids` and `positions` name int64 [rows] values.
function decoder(g, ids, positions, blockOptions) {
  let x = g.op('Add', [g.op('Gather', [g.weight('wte.weight'), ids]), g.op('Gather', [g.weight('wpe.weight'), positions])]);
  for (let l = 0; l < g.config.numLayers; l++) x = block(g, l, x, blockOptions);
  return g.op('MatMul', [layerNorm(g, x, 'ln_f'), transposedEmbedding(g)], [], ['logits']);
}

export function gptForwardModel(tensors, config, n) {
  const { vocabSize, numHeads, numLayers } = config;
  const g = new GraphBuilder(tensors, config);
  const causal = new Float32Array(n * n);
  for (let i = 0; i < n; i++) causal.fill(MASKED, i * n + i + 1, (i + 1) * n);
  g.floats('mask', [n, n], causal);
  decoder(g, 'ids', g.int64s('positions', Array.from({ length: n }, (_, i) => i)), { mask: true });
  const layers = Array.from({ length: numLayers }, (_, l) => l);
  return model({
    name: 'gpt_forward',
    input: [valueInfo('ids', [n], INT64)],
    output: [valueInfo('logits', [n, vocabSize]), ...layers.map((l) => valueInfo(`attention_${l}`, [numHeads, n, n]))],
    initializer: g.initializer,
    node: g.nodes,
  });
}

export function gptDecodeModel(tensors, config) {
  const { vocabSize, numHeads, numLayers, dModel } = config;
  const g = new GraphBuilder(tensors, config);
  decoder(g, 'id', 'position', { cache: true });
  const cacheInfo = (prefix, length) => Array.from({ length: numLayers }, (_, l) => [
    valueInfo(`${prefix}_k_${l}`, [numHeads, length, dModel / numHeads], FLOAT),
    valueInfo(`${prefix}_v_${l}`, [numHeads, length, dModel / numHeads], FLOAT),
  ]).flat();
  return model({
    name: 'gpt_decode_step',
    input: [valueInfo('id', [1], INT64), valueInfo('position', [1], INT64), ...cacheInfo('past', 'past')],
    output: [valueInfo('logits', [1, vocabSize]), ...cacheInfo('present', 'present')],
    initializer: g.initializer,
    node: g.nodes,
  });
}
