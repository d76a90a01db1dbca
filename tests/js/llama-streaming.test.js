// A Llama checkpoint streamed into the model (lab.loadModel → LlamaLoaderHandle): File objects of a
// picked folder are read a chunk at a time with progress, give the model the same checkpoint gives as
// bytes (itself checked against float64 PyTorch in llama.test.js), and the GPT module's heap grows by
// the weights and one piece — not by the weights and a copy of the file, as it did.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { VARIANTS } from './helpers.js';

const FIXTURES = new URL('../fixtures/llama/', import.meta.url);
const kjvTokenizer = readFileSync(new URL('kjv_vocab_folder/tokenizer.json', FIXTURES));

// A fixture folder as the File objects a folder pick gives (tokenizer.json borrowed from kjv_vocab_folder).
function pickedFolder(name) {
  const dir = new URL(`${name}/`, FIXTURES);
  const files = readdirSync(dir).filter((f) => f !== 'expected.json' && !statSync(new URL(f, dir)).isDirectory()).map((f) => new File([readFileSync(new URL(f, dir))], f));
  return [...files, new File([kjvTokenizer], 'tokenizer.json')];
}

// A random-free checkpoint: config.json and a model.safetensors (F32, or BF16 as most checkpoints are
// saved) whose values are all 0.01 (what is measured is memory, not numbers).
function syntheticFolder(dtype = 'F32') {
  const config = { model_type: 'llama', vocab_size: 16384, hidden_size: 512, intermediate_size: 1408, num_hidden_layers: 4,
    num_attention_heads: 8, num_key_value_heads: 2, tie_word_embeddings: true, rms_norm_eps: 1e-5 };
  const d = 512, m = 1408, kv = 128;
  const shapes = [['model.embed_tokens.weight', [16384, d]], ['model.norm.weight', [d]]];
  for (let l = 0; l < 4; l++) {
    const p = `model.layers.${l}.`;
    shapes.push([`${p}input_layernorm.weight`, [d]], [`${p}post_attention_layernorm.weight`, [d]],
      [`${p}self_attn.q_proj.weight`, [d, d]], [`${p}self_attn.k_proj.weight`, [kv, d]], [`${p}self_attn.v_proj.weight`, [kv, d]],
      [`${p}self_attn.o_proj.weight`, [d, d]], [`${p}mlp.gate_proj.weight`, [m, d]], [`${p}mlp.up_proj.weight`, [m, d]],
      [`${p}mlp.down_proj.weight`, [d, m]]);
  }
  const header = {};
  let offset = 0;
  for (const [name, shape] of shapes) {
    const bytes = (dtype === 'F32' ? 4 : 2) * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const file = new Uint8Array(8 + json.length + offset);
  new DataView(file.buffer).setBigUint64(0, BigInt(json.length), true);
  file.set(new TextEncoder().encode(json), 8);
  if (dtype === 'F32') new Float32Array(file.buffer, 8 + json.length, offset / 4).fill(0.01);
  else new Uint16Array(file.buffer, 8 + json.length, offset / 2).fill(0x3c24);  // 0.01 rounded to bfloat16
  return { files: { 'config.json': JSON.stringify(config), 'model.safetensors': file, 'tokenizer.json': kjvTokenizer }, weightBytes: offset };
}

for (const variant of VARIANTS) {
  test(`a picked folder's File objects stream in with progress and give the bytes' model (${variant.name})`, async () => {
    const l = await init({ simd: variant.simd });
    for (const name of ['llama_gqa', 'llama_mha_sharded', 'kjv_vocab_folder']) {
      const picked = pickedFolder(name);
      const progress = [];
      const { model } = await l.loadModel(picked, { onProgress: (p) => progress.push(p) });
      const bytes = Object.fromEntries(await Promise.all(picked.map(async (f) => [f.name, new Uint8Array(await f.arrayBuffer())])));
      const { model: fromBytes } = await l.loadModel(bytes);
      const ids = [1, 2, 3, 5, 8, 13];
      assert.deepEqual(model.forward(ids).logits.data, fromBytes.forward(ids).logits.data, name);
      // Every weight file reported, ending at its size; nothing else is streamed.
      const weightFiles = picked.filter((f) => f.name.endsWith('.safetensors'));
      for (const file of weightFiles) {
        const last = progress.filter((p) => p.file === file.name).at(-1);
        assert.deepEqual(last, { file: file.name, loaded: file.size, total: file.size }, `${name}: ${file.name}`);
      }
      assert.deepEqual([...new Set(progress.map((p) => p.file))].sort(), weightFiles.map((f) => f.name).sort());
      model.dispose();
      fromBytes.dispose();
    }
  });

  // Bytes already in memory (a built-in model fetched whole) go in a piece per task, as a picked File's stream does:
  // on a page no task holds the whole load. A timer of 0 ms fires between the pieces: every piece is fed in a
  // turn of the event loop of its own, whatever the machine's speed.
  test(`bytes in memory are fed a piece per task of the event loop (${variant.name})`, async () => {
    const l = await init({ simd: variant.simd });
    await l.loadGPTModule();
    const { files } = syntheticFolder('F32');  // 40 MB: ten pieces of 4 MiB
    let turns = 0;
    const timer = setInterval(() => { turns++; }, 0);
    const turnOfPiece = [];
    try {
      const { model, tokenizer } = await l.loadModel(files, { onProgress: () => turnOfPiece.push(turns) });
      model.dispose();
      tokenizer.dispose();
    } finally {
      clearInterval(timer);
    }
    assert.equal(turnOfPiece.length, Math.ceil(files['model.safetensors'].length / (4 << 20)));
    for (let i = 1; i < turnOfPiece.length; i++) assert.ok(turnOfPiece[i] > turnOfPiece[i - 1], `pieces ${i - 1} and ${i} in one task: ${turnOfPiece}`);
  });

  // F32 weights take their file's bytes; BF16 ones stay BF16 (2 bytes each, not 4 as float32).
  for (const dtype of ['F32', 'BF16']) {
    test(`loading grows the heap by the weights, not by the weights and the file: ${dtype} (${variant.name})`, async () => {
      const l = await init({ simd: variant.simd });
      await l.loadGPTModule();
      const before = l.memory().gpt.heapSize;
      const { files, weightBytes } = syntheticFolder(dtype);
      const { model } = await l.loadModel(files);
      const grown = l.memory().gpt.heapSize - before;
      // A copy of the file beside the weights would need 2 × the file (80 MB F32, 40 MB BF16), and BF16
      // widened to float32 as much; the weights, a 4 MiB piece and the heap's growth step fit under 1.5 × the file.
      assert.ok(grown < 1.5 * weightBytes, `the heap grew by ${grown} bytes for ${weightBytes} bytes of weights`);
      assert.ok(l.memory().gpt.inUse >= weightBytes);
      const logits = model.forward([1, 2, 3]).logits;
      assert.equal(logits.cols, 16384);
      assert.ok(logits.data.every(Number.isFinite));
      model.dispose();
    });
  }
}
