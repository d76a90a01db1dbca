// Shared keys and values, DOM-free (the page, its browser test and the program's test case use it): which
// key/value head a query head reads, the KV cache's bytes per token of real configs and of the learner's
// numbers, and attnlab-kjv with its key/value heads mean-pooled into fewer groups (its weights edited in a
// .safetensors file the package wrote and read back).

// Published configs, as each model's config.json on Hugging Face gives them (head dimension: head_dim, or
// hidden_size / num_attention_heads where the file has none; context: max_position_embeddings).
export const CONFIGS = [
  { name: 'Llama 3 8B', href: 'https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json',
    layers: 32, heads: 32, kvHeads: 8, headDim: 128, context: 8192 },
  { name: 'Llama 2 70B', href: 'https://huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json',
    layers: 80, heads: 64, kvHeads: 8, headDim: 128, context: 4096 },
  { name: 'Qwen2.5-7B', href: 'https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json',
    layers: 28, heads: 28, kvHeads: 4, headDim: 128, context: 131072 },
  { name: 'SmolLM2-135M', href: 'https://huggingface.co/HuggingFaceTB/SmolLM2-135M/blob/main/config.json',
    layers: 30, heads: 9, kvHeads: 3, headDim: 64, context: 8192 },
];

// bf16 (and fp16): the dtype these models are published and usually served in.
export const BF16_BYTES = 2;
export const DTYPES = [['4', 'float32 (four bytes)'], ['2', 'bf16 or fp16 (two bytes)'], ['1', 'int8 or fp8 (one byte)']];

// 2 (a key and a value) × layers × key/value heads × head dimension × bytes per number.
export const kvBytesPerToken = ({ layers, kvHeads, headDim }, bytes = BF16_BYTES) => 2 * layers * kvHeads * headDim * bytes;

// The query heads that share one key/value head are neighbours: head h reads key/value head h // (H / Hkv),
// as Hugging Face's repeat_kv and the package lay them out.
export const kvHeadOf = (head, heads, kvHeads) => Math.floor(head / (heads / kvHeads));

// Bytes for a reader: "131,072 bytes (128 KiB)", "1 GiB" (binary units, as memory is sold and reported).
const UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
export function formatBytes(n) {
  if (n < 1024) return `${n.toLocaleString('en')} ${n === 1 ? 'byte' : 'bytes'}`;
  let value = n, unit = -1;
  while (value >= 1024 && unit < UNITS.length - 1) { value /= 1024; unit++; }
  const shown = value >= 100 ? Math.round(value).toLocaleString('en') : Number(value.toPrecision(3)).toString();
  return `${shown} ${UNITS[unit]}`;
}
export const bytesWithUnit = (n) => (n < 1024 ? formatBytes(n) : `${n.toLocaleString('en')} bytes (${formatBytes(n)})`);

// One row of the table: bytes per token and for the whole context, shared and with every query head its own.
export function cacheRow(config, bytes = BF16_BYTES) {
  const perToken = kvBytesPerToken(config, bytes);
  const multiHead = kvBytesPerToken({ ...config, kvHeads: config.heads }, bytes);
  return { perToken, context: perToken * config.context, multiHead, multiHeadContext: multiHead * config.context,
    saving: config.heads / config.kvHeads };
}

// The calculator's boxes, as typed → the numbers, or { error } in the learner's words. Each box a whole
// number in its range; the key/value heads must divide the query heads (each shares one, equally).
export const LIMITS = {
  layers: { label: 'Layers', min: 1, max: 1000 },
  heads: { label: 'Query heads', min: 1, max: 1024 },
  kvHeads: { label: 'Key/value heads', min: 1, max: 1024 },
  headDim: { label: 'Head dimension', min: 1, max: 4096 },
  tokens: { label: 'Tokens in the cache', min: 1, max: 10_000_000 },
};
export function readCalculator(typed) {
  const values = {};
  for (const [key, { label, min, max }] of Object.entries(LIMITS)) {
    const text = String(typed[key] ?? '').trim();
    if (text === '') return { error: `${label}: the box is empty. Type a whole number from ${min} to ${max.toLocaleString('en')}.` };
    if (!/^\d+$/.test(text)) return { error: `${label}: “${text}” is not a whole number. Type one from ${min} to ${max.toLocaleString('en')}.` };
    const n = Number(text);
    if (n < min || n > max) return { error: `${label}: ${n.toLocaleString('en')} is outside ${min} to ${max.toLocaleString('en')}.` };
    values[key] = n;
  }
  if (values.kvHeads > values.heads) {
    return { error: `Key/value heads: ${values.kvHeads} is more than the ${values.heads} query heads; each key/value head serves one query head or more.` };
  }
  if (values.heads % values.kvHeads !== 0) {
    return { error: `Key/value heads: ${values.heads} query heads do not split into ${values.kvHeads} equal groups. ` +
      `Choose a number that divides ${values.heads} (1 is multi-query, ${values.heads} multi-head).` };
  }
  return { values };
}

// The Try-this config (not one of the table's): its bytes per token in bf16.
export const EXERCISE = { layers: 24, heads: 16, kvHeads: 4, headDim: 64 };
export function checkBytesGuess(text) {
  const answer = kvBytesPerToken(EXERCISE);
  const typed = String(text).replace(/[,\s_]/g, '');
  if (typed === '') return { correct: false, message: 'Type a number of bytes first.' };
  if (!/^\d+$/.test(typed)) return { correct: false, message: `“${text}” is not a whole number of bytes.` };
  const n = Number(typed);
  if (n === answer) return { correct: true, message: `Right: 2 × ${EXERCISE.layers} × ${EXERCISE.kvHeads} × ${EXERCISE.headDim} × 2 = ${answer.toLocaleString('en')} bytes per token.` };
  const hints = [
    [answer / 2, 'That is half of it: a token keeps a key and a value in every layer.'],
    [kvBytesPerToken({ ...EXERCISE, kvHeads: EXERCISE.heads }), 'That counts every query head: only the key/value heads are cached.'],
    [answer / BF16_BYTES, 'That counts numbers, not bytes: bf16 takes two bytes a number.'],
    [answer * 2, 'That is float32: the question says bf16, two bytes a number.'],
  ];
  const hint = hints.find(([value]) => value === n)?.[1] ?? 'Multiply two (a key and a value) × layers × key/value heads × head dimension × bytes per number.';
  return { correct: false, message: `Not ${n.toLocaleString('en')}. ${hint}` };
}

// ---- What sharing costs: attnlab-kjv's key/value heads mean-pooled into fewer groups ----

// c_attn (GPT-2's Conv1D, weight [d, 3d], bias [3d]: y = x·W + b, the columns q | k | v, each H heads of
// d/H) with each head's key and value columns replaced by the mean over its group of `heads / groups`
// neighbouring heads. Since k = x·W_k + b_k is linear in W_k and b_k, the pooled projection gives every
// head of a group the mean of their keys: the same as replacing each head's k and v by the group's mean.
export function poolKeyValueColumns(weight, bias, { dModel, heads, groups }) {
  const width = 3 * dModel, dHead = dModel / heads, size = heads / groups;
  const w = Float32Array.from(weight), b = Float32Array.from(bias);
  const pool = (row, base) => {  // row: the array and offset of one row; base: the k or v block's first column
    for (let g = 0; g < groups; g++) {
      for (let j = 0; j < dHead; j++) {
        let sum = 0;
        for (let h = g * size; h < (g + 1) * size; h++) sum += row.array[row.at + base + h * dHead + j];
        const mean = sum / size;
        for (let h = g * size; h < (g + 1) * size; h++) row.out[row.at + base + h * dHead + j] = mean;
      }
    }
  };
  for (let i = 0; i < dModel; i++) for (const base of [dModel, 2 * dModel]) pool({ array: weight, out: w, at: i * width }, base);
  for (const base of [dModel, 2 * dModel]) pool({ array: bias, out: b, at: 0 }, base);
  return { weight: w, bias: b };
}

// A .safetensors file (F32, as model.save() writes it) with some tensors' data replaced: a new file's bytes.
export function replaceTensors(bytes, replacements) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  const out = bytes.slice();
  const outView = new DataView(out.buffer);
  for (const [name, data] of Object.entries(replacements)) {
    const entry = header[name];
    if (!entry) throw new Error(`replaceTensors: the file has no tensor "${name}"`);
    if (entry.dtype !== 'F32') throw new Error(`replaceTensors: "${name}" is ${entry.dtype}, not F32`);
    const [begin, end] = entry.data_offsets;
    if (end - begin !== 4 * data.length) throw new Error(`replaceTensors: "${name}" holds ${(end - begin) / 4} numbers, not ${data.length}`);
    const at = 8 + headerLength + begin;
    for (let i = 0; i < data.length; i++) outView.setFloat32(at + 4 * i, data[i], true);
  }
  return out;
}

// The held-out text in windows of the model's context that share their edge token, so every token after
// the first is predicted exactly once, from as much of the window before it as the context holds.
export function heldOutWindows(ids, contextLength) {
  const windows = [];
  for (let start = 0; start + 1 < ids.length; start += contextLength - 1) windows.push(ids.slice(start, start + contextLength));
  return windows;
}

// The group counts measured: every head its own key/value head (the trained model), then fewer.
export const poolGroups = (heads) => [heads, 2, 1].filter((g, i, all) => g <= heads && heads % g === 0 && all.indexOf(g) === i);
