// How much of the memory budget a picked GPT-2 checkpoint needs, from the file itself (DOM-free: the
// test gives it sizes). The package refuses a checkpoint whose parameters, held as float32, plus its
// own copy of the file while it reads it, exceed the budget (GPT::load: "the parameters, and the file's
// copy"); the page says so before the learner presses Load, with this file's numbers and the budget chosen.
// A Llama-family folder's need comes from its config.json and its weight files' headers (llamaSizes,
// llamaMemoryAdvice): its weights stream in, so the files' own bytes are not part of it.
export const MiB = 2 ** 20;
export const GiB = 2 ** 30;

// "512 MiB", "1 GiB", "949.4 MiB": four significant digits, as the package writes sizes in its messages.
export function sizeText(bytes) {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number(value.toPrecision(4))} ${units[unit]}`;
}

// "949.4 MiB" (as sizeText or the package writes it) → bytes; NaN for anything else.
export function bytesOf(text) {
  const match = /^([\d.]+)\s*(bytes|KiB|MiB|GiB|TiB)$/.exec(text.trim());
  if (!match) return NaN;
  return Number(match[1]) * 1024 ** ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'].indexOf(match[2]);
}

// A .safetensors header (the parsed JSON) → the GPT's sizes and parameter count as the package counts
// them (GPTConfig::parameter_count: V·d + C·d + L·(12d² + 13d) + 2d), or null when the header has no
// wte.weight [V, d] and wpe.weight [C, d] (the package then says what is wrong when Load is pressed).
export function checkpointSizes(header) {
  const tensor = (name) => header[name] ?? header[`transformer.${name}`];
  const wte = tensor('wte.weight')?.shape;
  const wpe = tensor('wpe.weight')?.shape;
  if (!Array.isArray(wte) || !Array.isArray(wpe) || wte.length !== 2 || wpe.length !== 2 || wte[1] !== wpe[1]) return null;
  const [vocabSize, dModel] = wte;
  const contextLength = wpe[0];
  let numLayers = 0;
  for (const name of Object.keys(header)) {
    const block = /^(?:transformer\.)?h\.(\d+)\./.exec(name);
    if (block) numLayers = Math.max(numLayers, Number(block[1]) + 1);
  }
  const d = dModel;
  const parameters = vocabSize * d + contextLength * d + numLayers * (12 * d * d + 13 * d) + 2 * d;
  return { vocabSize, contextLength, dModel, numLayers, parameters };
}

// What loading takes: the parameters as float32 and the file's own bytes, copied in while it is read.
export const loadingNeed = (parameters, fileBytes) => 4 * parameters + fileBytes;

// The smallest of `budgets` (bytes, ascending) that holds `need`, or null when none does.
export const budgetFor = (need, budgets) => budgets.find((b) => b >= need) ?? null;

// → the sentence the page shows under its Memory budget field for a picked checkpoint.
// { name, fileBytes, parameters } the file; budget the one chosen; budgets every one the page offers.
export function memoryAdvice({ name, fileBytes, parameters, budget, budgets }) {
  const need = loadingNeed(parameters, fileBytes);
  const what = `${name} has ${parameters.toLocaleString('en')} parameters: loading it takes about ${sizeText(need)} ` +
    `(4 bytes each as float32, ${sizeText(4 * parameters)}, plus the file’s own ${sizeText(fileBytes)} while it is read)`;
  return adviceFor(what, need, budget, budgets);
}

// `what` (the model and its need), then whether the budget chosen holds `need`, or which one would.
function adviceFor(what, need, budget, budgets) {
  if (need <= budget) return `${what}, within the ${sizeText(budget)} memory budget.`;
  const enough = budgetFor(need, budgets);
  return enough === null
    ? `${what}: more than the largest memory budget this page offers (${sizeText(budgets.at(-1))}), the most a browser’s ` +
      'WebAssembly memory can hold. This model is too large to run here.'
    : `${what}: more than the ${sizeText(budget)} memory budget. Choose ${sizeText(enough)} under Memory budget.`;
}

// The header of a .safetensors file (a Blob: only its first bytes are read) → the parsed JSON, or null
// when the file is not one (the package then says why when Load is pressed).
export async function readCheckpointHeader(file) {
  if (file.size < 8) return null;
  const length = Number(new DataView(await file.slice(0, 8).arrayBuffer()).getBigUint64(0, true));
  if (length < 2 || length > 100 * MiB || 8 + length > file.size) return null;
  try {
    const header = JSON.parse(await file.slice(8, 8 + length).text());
    return header && typeof header === 'object' && !Array.isArray(header) ? header : null;
  } catch {
    return null;
  }
}

// A Llama-family config.json (parsed) → its sizes and parameter count as the package counts them
// (LlamaConfig::parameter_count: V·d (twice unless the embeddings are tied) + L·(attention + SwiGLU MLP +
// 2 RMSNorms) + the final norm, with Qwen2's q/k/v biases and the config's attention_bias, mlp_bias), or
// null when config.json lacks a size (the package then says which when Load is pressed).
export function llamaSizes(config) {
  const int = (name) => (Number.isInteger(config?.[name]) && config[name] > 0 ? config[name] : null);
  const [V, d, m, L, H] = ['vocab_size', 'hidden_size', 'intermediate_size', 'num_hidden_layers', 'num_attention_heads'].map(int);
  if ([V, d, m, L, H].includes(null)) return null;
  const Hkv = int('num_key_value_heads') ?? H;
  const hd = int('head_dim') ?? d / H;
  if (!Number.isInteger(hd)) return null;
  const qwen2 = config.model_type === 'qwen2';
  const attentionBias = config.attention_bias === true && !qwen2;
  const mlpBias = config.mlp_bias === true;
  const attention = d * H * hd * 2 + d * Hkv * hd * 2 + (qwen2 || attentionBias ? (H + 2 * Hkv) * hd : 0) + (attentionBias ? d : 0);
  const mlp = 3 * d * m + (mlpBias ? 2 * m + d : 0);
  const parameters = V * d * (config.tie_word_embeddings === true ? 1 : 2) + L * (attention + mlp + 2 * d) + d;
  return { vocabSize: V, dModel: d, numLayers: L, numHeads: H, numKeyValueHeads: Hkv, headDim: hd,
    contextLength: int('max_position_embeddings') ?? 2048, parameters };
}

// The values a .safetensors header describes, and their dtypes: { values, dtypes: ['BF16', …] }.
export function headerValues(header) {
  let values = 0;
  const dtypes = new Set();
  for (const [name, tensor] of Object.entries(header)) {
    if (name === '__metadata__' || !Array.isArray(tensor?.shape)) continue;
    values += tensor.shape.reduce((a, b) => a * b, 1);
    dtypes.add(tensor.dtype);
  }
  return { values, dtypes: [...dtypes].sort() };
}

// What loading a Llama-family folder needs of the memory budget: its parameters as float32, as the package
// counts them before it reads a weight (a BF16 file's matrices then stay BF16, half that). The weight files
// stream into the model a piece at a time, so their own bytes are not held beside them (web/lib/checkpoint-files.js).
export const llamaLoadingNeed = (parameters) => 4 * parameters;

// → the sentence the page shows for a picked Llama-family folder. { name, parameters (llamaSizes'),
// fileBytes (its weight files together), values (their headers' values), dtypes, budget, budgets }.
export function llamaMemoryAdvice({ name, parameters, fileBytes, values, dtypes, budget, budgets }) {
  const need = llamaLoadingNeed(parameters);
  const files = `its weights are ${sizeText(fileBytes)} on disk${dtypes.length ? ` in ${dtypes.join(' and ')}` : ''}` +
    (values !== undefined && values !== parameters ? ` (${values.toLocaleString('en')} values in the files, where config.json asks for ` +
      `${parameters.toLocaleString('en')}: the package will say which tensor differs)` : '');
  const kept = dtypes.includes('BF16') ? `, as the package counts them before reading a weight; the BF16 matrices then stay BF16 in memory, ` +
    `about ${sizeText(need / 2)}` : '';
  const what = `${name} has ${parameters.toLocaleString('en')} parameters: loading it takes about ${sizeText(need)} ` +
    `(4 bytes each as float32${kept}; ${files}, read a piece at a time, not held beside them)`;
  return adviceFor(what, need, budget, budgets);
}
