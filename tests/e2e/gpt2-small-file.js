// A checkpoint with GPT-2 small's shapes (124,439,808 parameters), for the browser tests that load one:
// the tensors as Hugging Face's GPT2Model names them and the .safetensors header for them in F32 (the
// values are the test's: only the shapes and the size matter). Plain data, so a test can hand it to
// page.evaluate and build the file in the page, or write it from Node.
export const GPT2_SMALL = { vocabSize: 50257, contextLength: 1024, dModel: 768, numLayers: 12, numHeads: 12 };

// → [[name, shape]] in the order Hugging Face writes them.
export function gpt2SmallShapes({ vocabSize: V, contextLength: C, dModel: d, numLayers: L } = GPT2_SMALL) {
  const shapes = [['wte.weight', [V, d]], ['wpe.weight', [C, d]]];
  for (let i = 0; i < L; i++) {
    for (const [name, shape] of [['ln_1.weight', [d]], ['ln_1.bias', [d]], ['attn.c_attn.weight', [d, 3 * d]], ['attn.c_attn.bias', [3 * d]],
      ['attn.c_proj.weight', [d, d]], ['attn.c_proj.bias', [d]], ['ln_2.weight', [d]], ['ln_2.bias', [d]],
      ['mlp.c_fc.weight', [d, 4 * d]], ['mlp.c_fc.bias', [4 * d]], ['mlp.c_proj.weight', [4 * d, d]], ['mlp.c_proj.bias', [d]]]) {
      shapes.push([`h.${i}.${name}`, shape]);
    }
  }
  shapes.push(['ln_f.weight', [d]], ['ln_f.bias', [d]]);
  return shapes;
}

// → { header: the JSON text, padded with spaces to a multiple of 8, dataBytes }: the file is 8 bytes of
// little-endian header length, the header, then dataBytes of F32 values, tensor after tensor.
export function gpt2SmallHeader() {
  const header = { __metadata__: { n_head: String(GPT2_SMALL.numHeads), format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of gpt2SmallShapes()) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  return { header: text, dataBytes: offset };
}
