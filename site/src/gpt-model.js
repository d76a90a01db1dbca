// The model the trained-model lessons run on: attnlab's own GPT (the package's built-in model, trained
// on the King James Bible), or a model the learner picked on the "Your own model" page: a GPT-2-format
// checkpoint, or a Llama-family folder (Llama, Qwen2, Mistral, SmolLM2: config.json, model.safetensors or
// its shards, tokenizer.json). A picked model's files are kept in this browser's IndexedDB (they never
// leave the machine), so every lesson finds it; a stored model that no longer loads falls back to the
// built-in one, saying why. A lesson that runs on a Llama too asks for it (lessonModelAnyFamily) and reads
// the model's shape through modelShape and its tokenizer through the GPT tokenizer's calls (llamaTokenizer);
// any other lesson runs on attnlab's model while a Llama is kept, and says so.
import { AttnLabError } from 'attnlab';

import { el, noteUnder } from './dom.js';
import { describeConfig, FAMILY_NAMES, isLlamaFamily, llamaTokenizer, modelShape } from './model-family.js';
import { TOKEN_MARKS } from './token-label.js';

const DB = 'attnlab-your-model';
const STORE = 'files';
const KEY = 'current';

function openDb() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error('another tab holds an older version of the store open'));
  });
}

// One request in a transaction, settled when the transaction is: a write has happened only once its
// transaction completes, and a browser may abort it after the request itself succeeded (a private
// window refusing a value over ~133 MB aborts with UnknownError; a full disk with QuotaExceededError).
// Every way it can end settles the promise, so no caller waits for ever.
async function withStore(mode, work) {
  const db = await openDb();
  try {
    return await new Promise((resolve, reject) => {
      const transaction = db.transaction(STORE, mode);
      const request = work(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onabort = () => reject(transaction.error ?? request.error ?? new Error('the browser aborted the transaction'));
      transaction.onerror = () => reject(transaction.error ?? request.error);
    });
  } finally {
    db.close();
  }
}

// A GPT: { name, weights: ArrayBuffer, vocabJson, mergesText, numHeads, memoryBudget }; a Llama-family
// folder: { family, name, files: { name: File }, memoryBudget }; or undefined (nothing kept, or no
// storage in this browser).
export const readYourModel = () => withStore('readonly', (store) => store.get(KEY)).catch(() => undefined);
export const saveYourModel = (files) => withStore('readwrite', (store) => store.put(files, KEY));
export const forgetYourModel = () => withStore('readwrite', (store) => store.delete(KEY)).catch(() => undefined);

// A picked model's files → { model, tokenizer }; AttnLabError (the package's message) if refused.
// numHeads 0: from the file's metadata. memoryBudget: bytes the lab may use (the your-model lesson's model-memory.js says how many it needs).
export async function loadPickedModel(lab, { weights, vocabJson, mergesText, numHeads = 0, memoryBudget }) {
  if (memoryBudget) lab.setMemoryBudget(memoryBudget);
  const model = await lab.loadGPT(weights, { numHeads });
  let tokenizer;
  try {
    tokenizer = await lab.loadTokenizer(vocabJson, mergesText);
  } catch (error) {
    model.dispose();
    throw error;
  }
  if (tokenizer.vocabSize > model.config.vocabSize) {
    model.dispose();
    throw new AttnLabError(`the tokenizer has ${tokenizer.vocabSize} tokens but the model's vocabulary is ${model.config.vocabSize}`);
  }
  return { model, tokenizer };
}

// A picked Llama-family folder's files → { model, tokenizer (llamaTokenizer's), family }; AttnLabError if
// refused (the package's message; the your-model lesson's errors.js folderWords puts it in the page's words).
// onProgress({ file, loaded, total }) as the weights stream in; it may throw (the page's Cancel) to stop.
export async function loadPickedFolder(lab, { files, memoryBudget }, { onProgress } = {}) {
  if (memoryBudget) lab.setMemoryBudget(memoryBudget);
  const { model, tokenizer, family } = await lab.loadModel(Object.values(files), { onProgress });
  if (!isLlamaFamily(family)) {
    model.dispose();
    tokenizer.dispose();
    throw new AttnLabError(`loadModel: the folder holds a ${family} model, not one of the Llama family`);
  }
  if (tokenizer.vocabSize > model.config.vocabSize) {
    model.dispose();
    tokenizer.dispose();
    throw new AttnLabError(`the tokenizer has ${tokenizer.vocabSize} tokens but the model's vocabulary is ${model.config.vocabSize}`);
  }
  return { model, tokenizer: llamaTokenizer(tokenizer), family };
}

const THE_LLAMA_LESSONS = 'the next token, every head at once, the logit lens and patching';

// → { model, tokenizer, name, yours } for a lesson's prepare(); notes what it loaded in `notices` and
// says what it is loading through loading(what) (the page's loading state). { llama: true }: the lesson
// runs on a kept Llama-family model too (lessonModelAnyFamily); without it, a kept Llama is named and the
// lesson runs on attnlab's GPT.
export async function lessonModel(lab, notices, loading = () => {}, { llama = false } = {}) {
  const stored = await readYourModel();
  const storedLlama = stored && isLlamaFamily(stored.family);
  if (storedLlama && !llama) {
    notices.append(el('p', { class: 'notice' }, `Your model, ${stored.name}, is a ${FAMILY_NAMES[stored.family]}: this lesson ` +
      `runs on GPT-2-architecture models only, so it runs on attnlab’s model here. Your model runs in ${THE_LLAMA_LESSONS}. `,
    el('a', { href: './your-model.html', text: 'Change it' }), '.'));
  } else if (stored) {
    try {
      loading('your model');
      const { model, tokenizer } = storedLlama ? await loadPickedFolder(lab, stored) : await loadPickedModel(lab, stored);
      notices.append(el('p', { class: 'notice' }, `Running on your model, ${stored.name} (${describeConfig(model)}). `,
        el('a', { href: './your-model.html', text: 'Change it' }), '.'));
      return { model, tokenizer, name: stored.name, yours: true, family: modelShape(model).family };
    } catch (error) {
      if (!(error instanceof AttnLabError)) throw error;
      notices.append(el('p', { class: 'notice', text: `Your stored model could not be loaded (${error.message}); using attnlab's model.` }));
    }
  }
  loading('attnlab-kjv, the GPT attnlab trained (its module and weights)');
  const { model, tokenizer } = await lab.loadBuiltinModel();
  return { model, tokenizer, name: 'attnlab-kjv', yours: false, family: 'gpt2', description: describeConfig(model) };
}

// A lesson's prepare() that runs on a kept Llama-family model as well as on a GPT.
export const lessonModelAnyFamily = (lab, notices, loading) => lessonModel(lab, notices, loading, { llama: true });

// The model, in one line under the lesson's introduction, and how its token labels read.
export function modelLine({ model, name, yours }) {
  return el('p', { class: 'model-line' }, yours
    ? `Model: ${name}, yours (${describeConfig(model)}). `
    : `Model: attnlab-kjv, a GPT that attnlab trained on the King James Bible (${describeConfig(model)}). ` +
      'Everything below is computed in this page by the attnlab package. ', TOKEN_MARKS);
}

// The learner's text as the model's token ids: at most the context length (the last ones kept), and
// never empty (`fallback` then). With { box } (the sentenceInput the text came from) the lesson says
// under the box what the model read instead: the fallback, or only the last tokens.
export function promptIds(tokenizer, model, text, fallback, { box } = {}) {
  const encode = (t) => (tokenizer.encodePrompt ? tokenizer.encodePrompt(t) : tokenizer.encode(t));
  let ids = encode(text.toWellFormed());
  const empty = ids.length === 0 || ids.length === encode('').length;
  if (empty) ids = encode(fallback);
  const limit = modelShape(model).contextLength;
  const cut = ids.length > limit;
  noteUnder(box, empty ? `No text in the box: the model reads “${fallback}” instead.`
    : cut ? `The model reads ${limit} tokens at most: it reads the last ${limit} of these ${ids.length}.` : '');
  return { ids: cut ? ids.slice(ids.length - limit) : ids, cut, empty };
}

// A model's family, shape and tokenizer whichever it is (model-family.js, DOM-free: tested in Node).
export { describeConfig, FAMILY_NAMES, isLlamaFamily, keyValueHeadOf, llamaTokenizer, modelShape } from './model-family.js';

// How a token reads (token-label.js, DOM-free: the snippets' test uses it too).
export { tokenLabel } from './token-label.js';
