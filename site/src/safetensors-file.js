// The file a lesson's PyTorch snippet reads, written in the browser (offline) from the page's own
// tensors, DOM-free so the snippets' test writes the same bytes. The .safetensors layout, as Hugging
// Face's safetensors package writes it: 8 bytes of little-endian header length, a JSON header
// ({ name: { dtype, shape, data_offsets } }, padded with spaces to a multiple of 8), then the raw
// little-endian data, tensor after tensor.

// tensors: { name: Matrix | Tensor | Float32Array } → the file's bytes (F32).
export function safetensorsBytes(tensors) {
  const header = {};
  const parts = [];
  let offset = 0;
  for (const [name, value] of Object.entries(tensors)) {
    const { shape, data } = asTensor(name, value);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + 4 * data.length] };
    parts.push(data);
    offset += 4 * data.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (new TextEncoder().encode(json).length % 8)) % 8);
  const head = new TextEncoder().encode(json);
  const bytes = new Uint8Array(8 + head.length + offset);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, BigInt(head.length), true);
  bytes.set(head, 8);
  let at = 8 + head.length;
  for (const data of parts) {
    for (let i = 0; i < data.length; i++) view.setFloat32(at + 4 * i, data[i], true);
    at += 4 * data.length;
  }
  return bytes;
}

function asTensor(name, value) {
  if (value instanceof Float32Array) return { shape: [value.length], data: value };
  if (Array.isArray(value?.shape)) return { shape: value.shape, data: Float32Array.from(value.data) };
  if (Number.isInteger(value?.rows)) return { shape: [value.rows, value.cols], data: Float32Array.from(value.data) };
  throw new TypeError(`safetensorsBytes: "${name}" is not a Matrix, a tensor or a Float32Array`);
}

// A MultiHeadAttention's weights() under nn.MultiheadAttention's state_dict names, `prefix` before each
// ("self_attn." inside an encoder layer).
export function multiheadStateDict(weights, prefix = '') {
  return {
    [`${prefix}in_proj_weight`]: weights.inProjWeight,
    ...(weights.inProjBias ? { [`${prefix}in_proj_bias`]: weights.inProjBias } : {}),
    [`${prefix}out_proj.weight`]: weights.outProjWeight,
    ...(weights.outProjBias ? { [`${prefix}out_proj.bias`]: weights.outProjBias } : {}),
  };
}
