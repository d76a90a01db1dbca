// An ONNX graph (opset 17) of a Llama-family decoder (Llama, SmolLM2) with a KV cache, built by hand from
// its weights for bench/llama-inference.mjs, with the protobuf helpers of onnx-graphs.mjs and
// onnx-gpt-graph.mjs's GraphBuilder:
//   llamaStepModel(tensors, config): n new tokens after `past` cached ones, n ≥ 1 and past ≥ 0 both dynamic:
//     ids int64 [n], position int64 [1] (= past: the first new token's position), and per layer l
//     past_k_<l>, past_v_<l> [Hkv×past×hd]  →  logits [n×V] and present_k_<l>, present_v_<l> [Hkv×(past+n)×hd]
//   A prefill is a step with past 0 (n = 32 in the benchmark), a decode step one with n = 1: one graph,
//   so one session holds the weights once, as attnlab's LlamaModel does for its forward and its sessions.
// `tensors` maps Hugging Face's names (model.embed_tokens.weight, model.layers.0.self_attn.q_proj.weight,
// …) to { shape, data } as LlamaModel.tensor returns them (F32, decoded from the checkpoint's BF16);
// `config` is LlamaModel.config. The forward as Hugging Face's LlamaForCausalLM computes it
// (cpp/include/attnlab/llama/llama.hpp):
//   x = embed_tokens[ids]                                               [n×d]
//   per layer: h = RMSNorm(x)·w, RMSNorm(x) = x / √(mean(x²) + eps)     Pow→ReduceMean→Add→Sqrt→Div→Mul (the
//                                                                       pattern ORT fuses to SimplifiedLayerNormalization)
//     q, k, v = h·Wqᵀ, h·Wkᵀ, h·Wvᵀ                                     [n×H·hd], [n×Hkv·hd] ×2
//     q, k turned by RoPE at positions position … position+n−1          HF's rotate_half: dim i with i + hd/2,
//                                                                       angle p·θ^(−2i/hd); cos/sin tables
//                                                                       [P×hd] as initializers, Gathered by position
//     keys, values = past ++ k, past ++ v                               [Hkv×T×hd], T = past + n (present_*)
//     grouped-query attention by reshaping q: [H×n×hd] = [Hkv×group×n×hd] → [Hkv×(group·n)×hd], so query head
//       h meets key/value head h // group in one batched MatMul with no copy of the keys (no Expand/Tile of
//       K and V); the causal mask [n×T] (key j allowed iff j ≤ position + i) is tiled to [(group·n)×T] once
//     x += o_proj(softmax(q·keysᵀ/√hd + mask)·values)
//     x += down_proj(silu(gate_proj(h2)) ⊙ up_proj(h2)),  h2 = RMSNorm(x)·w', silu(g) = g·sigmoid(g)
//   logits = RMSNorm(x)·w_f · embed_tokensᵀ                               tied: the same initializer as the Gather
// Every projection is Gemm(x, W, transB = 1) on nn.Linear's [out×in] weight as stored (no transposed copy;
// as fast as MatMul on a transposed copy in onnxruntime-web 1.30 here, 576→1536 and 576→49,152, n 1 and 32).
import { FLOAT, INT64, model, valueInfo } from './onnx-graphs.mjs';
import { GraphBuilder, intAttr, intsAttr, MASKED } from './onnx-gpt-graph.mjs';

// A scalar int64 initializer (dims []): Range's start, limit and delta are scalars.
function int64Scalar(g, name, value) {
  if (!g.initializer.some((t) => t.name === name)) {
    g.initializer.push({ name, dims: [], dataType: INT64, rawData: new Uint8Array(BigInt64Array.of(BigInt(value)).buffer) });
  }
  return name;
}

// x [rows×d] → x / √(mean(x²) + eps) · w.
function rmsNorm(g, x, weightName) {
  const meanSquare = g.op('ReduceMean', [g.op('Pow', [x, g.scalar('two', 2)])], [intsAttr('axes', [-1]), intAttr('keepdims', 1)]);
  const scale = g.op('Sqrt', [g.op('Add', [meanSquare, g.scalar('rms_eps', g.config.rmsNormEps)])]);
  return g.op('Mul', [g.op('Div', [x, scale]), g.weight(weightName)]);
}

// x [rows×in] → x·Wᵀ [rows×out] with W nn.Linear's [out×in].
function linear(g, x, weightName) {
  return g.op('Gemm', [x, g.weight(weightName)], [intAttr('transB', 1)]);
}

// [n×heads·hd] → [heads×n×hd].
function splitHeads(g, x, heads) {
  const split = g.op('Reshape', [x, g.int64s(`split_${heads}_heads`, [-1, heads, g.config.headDim])]);
  return g.op('Transpose', [split], [intsAttr('perm', [1, 0, 2])]);
}

// x [heads×n×hd] turned by RoPE: x·cos + rotate_half(x)·sin, rotate_half(x) = [−x₂, x₁] (the two halves);
// cos and sin [n×hd] broadcast over the heads.
function rope(g, x, { cos, sin }) {
  const half = g.config.headDim / 2;
  const [x1, x2] = g.op('Split', [x, g.int64s('rope_halves', [half, half])], [intAttr('axis', -1)], 2);
  const rotated = g.op('Concat', [g.op('Neg', [x2]), x1], [intAttr('axis', -1)]);
  return g.op('Add', [g.op('Mul', [x, cos]), g.op('Mul', [rotated, sin])]);
}

// The cos and sin of every position's angles, [positions×hd] each, angle p·θ^(−2i/hd) for dims i and
// i + hd/2, computed in float64 as attnlab's rotary_table does, stored float32.
function ropeTables(g, positions) {
  const { headDim: hd, ropeTheta } = g.config;
  const cos = new Float32Array(positions * hd);
  const sin = new Float32Array(positions * hd);
  for (let p = 0; p < positions; p++) {
    for (let i = 0; i < hd / 2; i++) {
      const angle = p * (1 / ropeTheta ** ((2 * i) / hd));
      cos[p * hd + i] = cos[p * hd + i + hd / 2] = Math.cos(angle);
      sin[p * hd + i] = sin[p * hd + i + hd / 2] = Math.sin(angle);
    }
  }
  return { cosTable: g.floats('rope_cos', [positions, hd], cos), sinTable: g.floats('rope_sin', [positions, hd], sin) };
}

// What every layer shares, computed once from ids [n] and position [1]: the new tokens' positions, their
// cos/sin rows, and the causal mask over the T = position + n keys, tiled for the reshaped queries.
function stepInputs(g, positions) {
  const { numHeads, numKeyValueHeads } = g.config;
  const start = g.op('Squeeze', ['position']);                              // scalar
  const end = g.op('Add', [start, g.op('Squeeze', [g.op('Shape', ['ids'])])]);  // position + n
  const one = int64Scalar(g, 'int_one', 1);
  const queryPositions = g.op('Range', [start, end, one]);                 // [n]
  const keyPositions = g.op('Range', [int64Scalar(g, 'int_zero', 0), end, one]);  // [T]
  const allowed = g.op('LessOrEqual', [
    g.op('Unsqueeze', [keyPositions, g.int64s('axis_0', [0])]),             // [1×T]
    g.op('Unsqueeze', [queryPositions, g.int64s('axis_1', [1])]),           // [n×1]
  ]);                                                                       // [n×T]
  const mask = g.op('Where', [allowed, g.scalar('zero', 0), g.scalar('masked', MASKED)]);
  const group = numHeads / numKeyValueHeads;
  const { cosTable, sinTable } = ropeTables(g, positions);
  return {
    mask: g.op('Tile', [mask, g.int64s('mask_repeats', [group, 1])]),      // [(group·n)×T]: row g·n + i is query i
    cos: g.op('Gather', [cosTable, queryPositions]),                        // [n×hd]
    sin: g.op('Gather', [sinTable, queryPositions]),
  };
}

// One decoder layer on x [n×d]; its keys and values join past_k_<l>, past_v_<l> as present_k_<l>, present_v_<l>.
function block(g, l, x, shared) {
  const { numHeads: H, numKeyValueHeads: Hkv, headDim: hd } = g.config;
  const p = `model.layers.${l}`;
  const h = rmsNorm(g, x, `${p}.input_layernorm.weight`);
  const q = rope(g, splitHeads(g, linear(g, h, `${p}.self_attn.q_proj.weight`), H), shared);   // [H×n×hd]
  const k = rope(g, splitHeads(g, linear(g, h, `${p}.self_attn.k_proj.weight`), Hkv), shared); // [Hkv×n×hd]
  const v = splitHeads(g, linear(g, h, `${p}.self_attn.v_proj.weight`), Hkv);
  const keys = g.op('Concat', [`past_k_${l}`, k], [intAttr('axis', 1)], [`present_k_${l}`]);   // [Hkv×T×hd]
  const values = g.op('Concat', [`past_v_${l}`, v], [intAttr('axis', 1)], [`present_v_${l}`]);
  const grouped = g.op('Reshape', [q, g.int64s('grouped_shape', [Hkv, -1, hd])]);              // [Hkv×(group·n)×hd]
  const keysT = g.op('Transpose', [keys], [intsAttr('perm', [0, 2, 1])]);                     // [Hkv×hd×T]
  const scores = g.op('Mul', [g.op('MatMul', [grouped, keysT]), g.scalar('scale', 1 / Math.sqrt(hd))]);
  const weights = g.op('Softmax', [g.op('Add', [scores, shared.mask])], [intAttr('axis', -1)]);  // [Hkv×(group·n)×T]
  const heads = g.op('Reshape', [g.op('MatMul', [weights, values]), g.int64s('heads_shape', [H, -1, hd])]);  // [H×n×hd]
  const merged = g.op('Reshape', [g.op('Transpose', [heads], [intsAttr('perm', [1, 0, 2])]), g.int64s('merged_shape', [-1, H * hd])]);
  const afterAttention = g.op('Add', [x, linear(g, merged, `${p}.self_attn.o_proj.weight`)]);
  const h2 = rmsNorm(g, afterAttention, `${p}.post_attention_layernorm.weight`);
  const gate = linear(g, h2, `${p}.mlp.gate_proj.weight`);                                      // [n×m]
  const act = g.op('Mul', [g.op('Mul', [gate, g.op('Sigmoid', [gate])]), linear(g, h2, `${p}.mlp.up_proj.weight`)]);
  return g.op('Add', [afterAttention, linear(g, act, `${p}.mlp.down_proj.weight`)]);
}

// options.positions: rows of the RoPE tables, the largest position + 1 the graph can take.
export function llamaStepModel(tensors, config, { positions = 2048 } = {}) {
  const { vocabSize, numLayers, numKeyValueHeads, headDim, ropeScaling, slidingWindow, tieWordEmbeddings } = config;
  if (ropeScaling || slidingWindow) throw new Error('onnx-llama-graph: rope_scaling and sliding windows are not built here');
  if (Object.keys(tensors).some((name) => name.endsWith('.bias'))) throw new Error('onnx-llama-graph: biases are not built here');
  const g = new GraphBuilder(tensors, config);
  const shared = stepInputs(g, positions);
  let x = g.op('Gather', [g.weight('model.embed_tokens.weight'), 'ids']);   // [n×d]
  for (let l = 0; l < numLayers; l++) x = block(g, l, x, shared);
  const unembed = g.weight(tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
  g.op('Gemm', [rmsNorm(g, x, 'model.norm.weight'), unembed], [intAttr('transB', 1)], ['logits']);
  const cacheInfo = (prefix, length) => Array.from({ length: numLayers }, (_, l) => [
    valueInfo(`${prefix}_k_${l}`, [numKeyValueHeads, length, headDim], FLOAT),
    valueInfo(`${prefix}_v_${l}`, [numKeyValueHeads, length, headDim], FLOAT),
  ]).flat();
  return model({
    name: 'llama_step',
    input: [valueInfo('ids', ['n'], INT64), valueInfo('position', [1], INT64), ...cacheInfo('past', 'past')],
    output: [valueInfo('logits', ['n', vocabSize]), ...cacheInfo('present', 'total')],
    initializer: g.initializer,
    node: g.nodes,
  });
}
