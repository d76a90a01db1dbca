// ONNX graphs for the peers, written by the benchmark itself (no Python ONNX here): the few ONNX
// protobuf messages we need, declared for protobufjs with onnx.proto's field numbers. The helpers are
// exported for the GPT graphs (onnx-gpt-graph.mjs).
import protobuf from 'protobufjs';

export const FLOAT = 1;
export const INT64 = 7;

const root = protobuf.Root.fromJSON({
  nested: {
    onnx: {
      nested: {
        ModelProto: { fields: {
          irVersion: { type: 'int64', id: 1 }, producerName: { type: 'string', id: 2 },
          graph: { type: 'GraphProto', id: 7 }, opsetImport: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 } } },
        OperatorSetIdProto: { fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } } },
        GraphProto: { fields: {
          node: { rule: 'repeated', type: 'NodeProto', id: 1 }, name: { type: 'string', id: 2 },
          initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
          input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 }, output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 } } },
        NodeProto: { fields: {
          input: { rule: 'repeated', type: 'string', id: 1 }, output: { rule: 'repeated', type: 'string', id: 2 },
          name: { type: 'string', id: 3 }, opType: { type: 'string', id: 4 }, attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 } } },
        AttributeProto: { fields: {
          name: { type: 'string', id: 1 }, f: { type: 'float', id: 2 }, i: { type: 'int64', id: 3 },
          ints: { rule: 'repeated', type: 'int64', id: 8 }, type: { type: 'int32', id: 20 } } },
        TensorProto: { fields: {
          dims: { rule: 'repeated', type: 'int64', id: 1 }, dataType: { type: 'int32', id: 2 },
          name: { type: 'string', id: 8 }, rawData: { type: 'bytes', id: 9 } } },
        ValueInfoProto: { fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } } },
        TypeProto: { fields: { tensorType: { type: 'TensorTypeProto', id: 1 } } },
        TensorTypeProto: { fields: { elemType: { type: 'int32', id: 1 }, shape: { type: 'TensorShapeProto', id: 2 } } },
        TensorShapeProto: { fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } } },
        Dimension: { fields: { dimValue: { type: 'int64', id: 1 }, dimParam: { type: 'string', id: 2 } } },
      },
    },
  },
});
const ModelProto = root.lookupType('onnx.ModelProto');
export const ATTRIBUTE = { FLOAT: 1, INT: 2, INTS: 7 };

// dims: numbers, or strings for named dynamic dimensions ('past').
const dimension = (d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d });
export const valueInfo = (name, dims, elemType = FLOAT) => ({ name, type: { tensorType: { elemType, shape: { dim: dims.map(dimension) } } } });
export const node = (opType, input, output, attribute = []) => ({ opType, input, output, name: `${opType}_${output[0]}`, attribute });
export const floatTensor = (name, dims, data) => ({ name, dims, dataType: FLOAT, rawData: new Uint8Array(Float32Array.from(data).buffer) });
export const int64Tensor = (name, values) => ({ name, dims: [values.length], dataType: INT64, rawData: new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer) });

export function model(graph) {
  const message = ModelProto.fromObject({ irVersion: 8, producerName: 'attnlab-bench', graph, opsetImport: [{ domain: '', version: 17 }] });
  return ModelProto.encode(message).finish();
}

// softmax(Q·Kᵀ·scale)·V with Q, K, V [n×d] as inputs.
export function attentionCoreModel(n, d) {
  return model({
    name: 'attention_core',
    input: [valueInfo('q', [n, d]), valueInfo('k', [n, d]), valueInfo('v', [n, d])],
    output: [valueInfo('out', [n, d])],
    initializer: [floatTensor('scale', [], [1 / Math.sqrt(d)])],
    node: [
      node('Transpose', ['k'], ['kt'], [{ name: 'perm', type: ATTRIBUTE.INTS, ints: [1, 0] }]),
      node('MatMul', ['q', 'kt'], ['scores']),
      node('Mul', ['scores', 'scale'], ['scaled']),
      node('Softmax', ['scaled'], ['weights'], [{ name: 'axis', type: ATTRIBUTE.INT, i: -1 }]),
      node('MatMul', ['weights', 'v'], ['out']),
    ],
  });
}

// nn.MultiheadAttention self-attention on x [n×d_model] with PyTorch-layout weights
// (inProjWeight [3d×d], inProjBias [3d], outProjWeight [d×d], outProjBias [d]); with `batch`, on
// x (batch, n, d_model), the tutorials' layout: every Reshape and Transpose gains the leading batch dim.
export function multiHeadModel(n, dModel, heads, w, batch = 0) {
  const dK = dModel / heads;
  const lead = batch ? [batch] : [];
  const shift = (dims) => (batch ? [0, ...dims.map((d) => d + 1)] : dims);  // a perm over the dims after batch
  const transposedRows = (m, start, count) => {  // rows start… of m [·×dModel], transposed to [dModel×count]
    const out = new Float32Array(dModel * count);
    for (let r = 0; r < count; r++) for (let c = 0; c < dModel; c++) out[c * count + r] = m.data[(start + r) * dModel + c];
    return out;
  };
  const proj = ['q', 'k', 'v'].flatMap((name) => [
    node('MatMul', ['x', `w_${name}`], [`${name}_lin`]), node('Add', [`${name}_lin`, `b_${name}`], [name]),
    node('Reshape', [name, 'heads_shape'], [`${name}_split`]),
    node('Transpose', [`${name}_split`], [`${name}_h`], [{ name: 'perm', type: ATTRIBUTE.INTS, ints: shift(name === 'k' ? [1, 2, 0] : [1, 0, 2]) }]),
  ]);
  return model({
    name: 'multi_head_attention',
    input: [valueInfo('x', [...lead, n, dModel])],
    output: [valueInfo('out', [...lead, n, dModel])],
    initializer: [
      ...['q', 'k', 'v'].map((name, i) => floatTensor(`w_${name}`, [dModel, dModel], transposedRows(w.inProjWeight, i * dModel, dModel))),
      ...['q', 'k', 'v'].map((name, i) => floatTensor(`b_${name}`, [dModel], w.inProjBias.slice(i * dModel, (i + 1) * dModel))),
      floatTensor('w_o', [dModel, dModel], transposedRows(w.outProjWeight, 0, dModel)),
      floatTensor('b_o', [dModel], w.outProjBias),
      floatTensor('scale', [], [1 / Math.sqrt(dK)]),
      int64Tensor('heads_shape', [...lead, n, heads, dK]),
      int64Tensor('concat_shape', [...lead, n, dModel]),
    ],
    node: [
      ...proj,
      node('MatMul', ['q_h', 'k_h'], ['scores']),  // [(batch,) h, n, dK]·[(batch,) h, dK, n]
      node('Mul', ['scores', 'scale'], ['scaled']),
      node('Softmax', ['scaled'], ['weights'], [{ name: 'axis', type: ATTRIBUTE.INT, i: -1 }]),
      node('MatMul', ['weights', 'v_h'], ['heads']),  // [(batch,) h, n, dK]
      node('Transpose', ['heads'], ['heads_t'], [{ name: 'perm', type: ATTRIBUTE.INTS, ints: shift([1, 0, 2]) }]),
      node('Reshape', ['heads_t', 'concat_shape'], ['concat']),
      node('MatMul', ['concat', 'w_o'], ['out_lin']),
      node('Add', ['out_lin', 'b_o'], ['out']),
    ],
  });
}
