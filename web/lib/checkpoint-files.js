// A checkpoint folder as the caller has it — the FileList of a folder the learner picked, an array of
// File objects, or { name: bytes } / a Map — read into name → Uint8Array, with progress, and told
// apart: a Llama-family folder (config.json's model_type llama, qwen2 or mistral) or a GPT-2 one.
import { describe, fail } from './checks.js';

export const LLAMA_FAMILY = ['llama', 'qwen2', 'mistral'];

function isFile(value) {
  return value !== null && typeof value === 'object' && typeof value.name === 'string' && typeof value.arrayBuffer === 'function';
}

function asBytes(fn, name, value) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof value === 'string') return new TextEncoder().encode(value);
  fail(fn, `files["${name}"] must be a Uint8Array, ArrayBuffer or string, got ${describe(value)}`);
}

// A File's bytes through its stream, reporting { file, loaded, total } (bytes) as chunks arrive.
async function readFile(file, onProgress) {
  const total = file.size;
  if (!onProgress || typeof file.stream !== 'function') return new Uint8Array(await file.arrayBuffer());
  const out = new Uint8Array(total);
  let loaded = 0;
  const reader = file.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.set(value, loaded);
    loaded += value.length;
    onProgress({ file: file.name, loaded, total });
  }
  return out;
}

// → Map name → Uint8Array. Files of a picked folder keep their own names (not the folder's path).
export async function readCheckpointFiles(fn, files, onProgress) {
  if (onProgress !== undefined && typeof onProgress !== 'function') fail(fn, `onProgress must be a function, got ${describe(onProgress)}`);
  const out = new Map();
  const list = files !== null && typeof files === 'object' && typeof files.length === 'number' && !(files instanceof Uint8Array)
    ? Array.from(files) : null;
  if (list) {
    for (const [i, file] of list.entries()) {
      if (!isFile(file)) fail(fn, `files[${i}] must be a File (from a file input or a folder pick), got ${describe(file)}`);
      out.set(file.name, await readFile(file, onProgress));
    }
  } else if (files instanceof Map) {
    for (const [name, value] of files) out.set(name, asBytes(fn, name, value));
  } else if (files !== null && typeof files === 'object') {
    for (const [name, value] of Object.entries(files)) out.set(name, asBytes(fn, name, value));
  } else {
    fail(fn, `files must be a FileList, an array of File, or { name: bytes }, got ${describe(files)}`);
  }
  if (out.size === 0) fail(fn, 'files is empty: give a checkpoint folder (config.json, model.safetensors, tokenizer.json)');
  return out;
}

const text = (bytes) => new TextDecoder('utf-8').decode(bytes);

// The folder's family and config: 'gpt2' for GPT-2's files (model_type gpt2, or vocab.json and
// merges.txt with no config.json), else config.json's model_type, which must be one of LLAMA_FAMILY.
export function checkpointFamily(fn, files) {
  const given = [...files.keys()].join(', ');
  if (!files.has('config.json')) {
    if (files.has('model.safetensors') && (files.has('tokenizer.json') || (files.has('vocab.json') && files.has('merges.txt')))) {
      return { family: 'gpt2', config: null };
    }
    fail(fn, `no config.json among the files (given: ${given})`);
  }
  let config;
  try {
    config = JSON.parse(text(files.get('config.json')));
  } catch (error) {
    fail(fn, `config.json is not JSON (${error.message})`);
  }
  const type = config?.model_type;
  if (type === 'gpt2') return { family: 'gpt2', config };
  if (!LLAMA_FAMILY.includes(type)) {
    fail(fn, `config.json's model_type ${describe(type)} is not supported (supported: ${LLAMA_FAMILY.join(', ')}, gpt2)`);
  }
  if (!files.has('tokenizer.json')) fail(fn, `no tokenizer.json among the files (given: ${given}): the model's tokenizer is needed`);
  return { family: type, config };
}

export function fileText(files, name) {
  return text(files.get(name));
}
