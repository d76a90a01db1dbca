// A checkpoint folder as the caller has it — the FileList of a folder the learner picked, an array of
// File objects, or { name: bytes } / a Map — told apart (a Llama-family folder: config.json's model_type
// llama, qwen2 or mistral; or a GPT-2 one) and read: the small files whole, the .safetensors files a
// piece at a time, so that a model's weights go into the wasm heap without a whole copy of the file in
// JavaScript or in the heap beside them.
import { describe, fail } from './checks.js';

export const LLAMA_FAMILY = ['llama', 'qwen2', 'mistral'];

// Bytes the caller already holds go in pieces of this size (a File's stream chooses its own).
const PIECE = 4 << 20;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

function isFile(value) {
  return value !== null && typeof value === 'object' && typeof value.name === 'string' && typeof value.arrayBuffer === 'function';
}

function asBytes(fn, name, value) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof value === 'string') return new TextEncoder().encode(value);
  fail(fn, `files["${name}"] must be a Uint8Array, ArrayBuffer or string, got ${describe(value)}`);
}

// A folder's files, not read yet: name → File or Uint8Array. A picked folder's files keep their own
// names (not the folder's path).
export class CheckpointFiles {
  #sources = new Map();

  constructor(fn, files) {
    const list = files !== null && typeof files === 'object' && typeof files.length === 'number' && !(files instanceof Uint8Array)
      ? Array.from(files) : null;
    if (list) {
      for (const [i, file] of list.entries()) {
        if (!isFile(file)) fail(fn, `files[${i}] must be a File (from a file input or a folder pick), got ${describe(file)}`);
        this.#sources.set(file.name, file);
      }
    } else if (files instanceof Map) {
      for (const [name, value] of files) this.#sources.set(name, asBytes(fn, name, value));
    } else if (files !== null && typeof files === 'object') {
      for (const [name, value] of Object.entries(files)) this.#sources.set(name, asBytes(fn, name, value));
    } else {
      fail(fn, `files must be a FileList, an array of File, or { name: bytes }, got ${describe(files)}`);
    }
    if (this.#sources.size === 0) fail(fn, 'files is empty: give a checkpoint folder (config.json, model.safetensors, tokenizer.json)');
  }

  has(name) {
    return this.#sources.has(name);
  }

  get names() {
    return [...this.#sources.keys()].join(', ');
  }

  size(name) {
    const source = this.#sources.get(name);
    return isFile(source) ? source.size : source.length;
  }

  // A whole file's bytes (a small one, or a GPT-2 checkpoint, which the GPT reads whole): the caller's
  // own bytes as they are, a File read into one array (with onProgress as its stream's chunks come).
  async bytes(name, onProgress) {
    const source = this.#sources.get(name);
    if (!isFile(source)) return source;
    const out = new Uint8Array(source.size);
    let at = 0;
    await this.stream(name, (piece) => {
      out.set(piece, at);
      at += piece.length;
    }, onProgress);
    return out;
  }

  async text(name) {
    return new TextDecoder('utf-8').decode(await this.bytes(name));
  }

  // The file's bytes in order, a piece at a time, to `take(piece)`; onProgress({ file, loaded, total })
  // after each piece.
  async stream(name, take, onProgress) {
    const source = this.#sources.get(name);
    const total = this.size(name);
    let loaded = 0;
    const took = (piece) => {
      take(piece);
      loaded += piece.length;
      onProgress?.({ file: name, loaded, total });
    };
    if (!isFile(source)) {
      // Bytes already in memory (a built-in model fetched whole) are handed over a piece per task, as a File's
      // stream hands them: each piece is one main-thread task on a page, never the whole load in one.
      for (let at = 0; at < total; at += PIECE) {
        await nextTask();
        took(source.subarray(at, Math.min(at + PIECE, total)));
      }
      return;
    }
    if (typeof source.stream !== 'function') {
      took(new Uint8Array(await source.arrayBuffer()));
      return;
    }
    const reader = source.stream().getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      took(value);
    }
  }
}

// The folder's family and config: 'gpt2' for GPT-2's files (model_type gpt2, or vocab.json and
// merges.txt with no config.json), else config.json's model_type, which must be one of LLAMA_FAMILY.
export async function checkpointFamily(fn, files) {
  if (!files.has('config.json')) {
    if (files.has('model.safetensors') && (files.has('tokenizer.json') || (files.has('vocab.json') && files.has('merges.txt')))) {
      return { family: 'gpt2', config: null, configText: null };
    }
    fail(fn, `no config.json among the files (given: ${files.names})`);
  }
  const configText = await files.text('config.json');
  let config;
  try {
    config = JSON.parse(configText);
  } catch (error) {
    fail(fn, `config.json is not JSON (${error.message})`);
  }
  const type = config?.model_type;
  if (type === 'gpt2') return { family: 'gpt2', config, configText };
  if (!LLAMA_FAMILY.includes(type)) {
    fail(fn, `config.json's model_type ${describe(type)} is not supported (supported: ${LLAMA_FAMILY.join(', ')}, gpt2)`);
  }
  if (!files.has('tokenizer.json')) fail(fn, `no tokenizer.json among the files (given: ${files.names}): the model's tokenizer is needed`);
  return { family: type, config, configText };
}

// A Llama-family folder's weights streamed into a LlamaLoaderHandle (wasm_bindings/gpt/llama.hpp): each
// piece goes into the heap and straight into the model's float32 weights, so the heap never holds a file.
// → the LlamaHandle. `call` turns a failed core call into an AttnLabError.
export async function streamLlamaWeights(fn, files, { raw, call, configText, onProgress }) {
  const index = files.has('model.safetensors.index.json') ? await files.text('model.safetensors.index.json') : '';
  if (!index && !files.has('model.safetensors')) {
    fail(fn, `neither model.safetensors nor model.safetensors.index.json among the files (given: ${files.names})`);
  }
  const loader = call(fn, () => raw.LlamaLoaderHandle.create(configText, index));
  try {
    const weightFiles = loader.weightFiles();
    for (const name of weightFiles) {
      if (!files.has(name)) fail(fn, `model.safetensors.index.json names ${name}, which is not among the files (given: ${files.names})`);
    }
    for (const name of weightFiles) {
      call(fn, () => loader.beginFile(name, files.size(name)));
      await files.stream(name, (piece) => call(fn, () => loader.feed(piece)), onProgress);
    }
    return call(fn, () => loader.finish());
  } finally {
    loader.delete();
  }
}
