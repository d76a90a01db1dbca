// attnlab's own trained model, shipped in this package's models/kjv/ (4 layers × 4 heads, trained on
// the King James Bible by scripts/train-model.sh): fetched only when a page asks for it. In Node the
// files are read from disk next to this package; in browsers they are fetched relative to the feature
// entry that names them (lib/ship-builtin-model.js and the others, each URL spelled out literally so
// that bundlers emit the file for an app that imports the entry), or from `baseUrl`.
import { fail, describe } from './checks.js';
import { importEntry, isNode, readFromDisk } from './loader.js';
import { FILE_ENTRIES, registeredFile } from './registry.js';

// The file names in a `baseUrl` folder (the "it" sentence model's are those of models/referent/).
const FILE_NAMES = {
  referentModel: 'model.safetensors', referentLog: 'training-log.jsonl',
  translatorModel: 'model.safetensors', translatorVocab: 'vocab.json', translatorHeldOut: 'heldout.json',
  translatorLog: 'training-log.jsonl',
  model: 'model.safetensors', vocab: 'vocab.json', merges: 'merges.txt', log: 'training-log.jsonl',
  llamaConfig: 'config.json', llamaModel: 'model.safetensors', llamaTokenizer: 'tokenizer.json', llamaLog: 'training-log.jsonl',
};

// `baseUrl`: a folder (string or URL, ending in "/") holding the four files, for hosts that serve them
// elsewhere; undefined = next to this package.
export function checkBaseUrl(fn, baseUrl) {
  if (baseUrl === undefined) return undefined;
  if (typeof baseUrl !== 'string' && !(baseUrl instanceof URL)) fail(fn, `baseUrl must be a string or URL, got ${describe(baseUrl)}`);
  const href = String(baseUrl);
  if (!href.endsWith('/')) fail(fn, `baseUrl must name a folder (end in "/"), got "${href}"`);
  return href;
}

async function fileUrl(fn, which, baseUrl) {
  if (baseUrl === undefined) {
    const { entry, path } = FILE_ENTRIES[which];
    if (!registeredFile(which)) await importEntry(entry, fn, path, ' (or pass { baseUrl } naming a folder that serves it)');
    return registeredFile(which)();
  }
  const base = typeof location === 'object' ? new URL(baseUrl, location.href) : new URL(baseUrl);
  return new URL(FILE_NAMES[which], base);
}

// Promise.all, but when several fail the error is the first in the list's order, not whichever file
// the disk or network happened to refuse first (so a missing folder always names the same file).
export async function allInOrder(promises) {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => s.value);
}

// Files a page asked for early (prefetch in index.js): which → the response bytes' promise, taken once.
const prefetchedFiles = new Map();

// Starts fetching a shipped file (browsers; the package's own copy, not a baseUrl's).
export function prefetchFile(which) {
  const url = registeredFile(which)?.();
  if (!url || isNode || prefetchedFiles.has(which)) return;
  prefetchedFiles.set(which, fetch(url).then((r) => (r.ok ? r.arrayBuffer() : null)).catch(() => null));
}

// One file's bytes (Uint8Array) or text.
export async function readBuiltinFile(fn, which, { baseUrl, as = 'bytes' } = {}) {
  const early = baseUrl === undefined ? await prefetchedFiles.get(which) : null;
  prefetchedFiles.delete(which);
  if (early) return as === 'text' ? new TextDecoder('utf-8').decode(early) : new Uint8Array(early);
  const url = await fileUrl(fn, which, baseUrl);
  let bytes;
  if (isNode && url.protocol === 'file:') {
    try {
      bytes = new Uint8Array(await readFromDisk(url));
    } catch (error) {
      fail(fn, `could not read ${url.pathname} (${error.code ?? error.message})`);
    }
  } else {
    let response;
    try {
      response = await fetch(url);
    } catch (error) {
      fail(fn, `could not fetch ${url.href} (${error.message})`);
    }
    if (!response.ok) fail(fn, `could not fetch ${url.href}: HTTP ${response.status}`);
    bytes = new Uint8Array(await response.arrayBuffer());
  }
  return as === 'text' ? new TextDecoder('utf-8').decode(bytes) : bytes;
}

// snake_case keys (as the C++ trainer writes them) → camelCase, all the way down.
function camelKeys(value) {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase()), camelKeys(v)]));
}

// training-log.jsonl → { setup, steps: [{ step, loss, lr, gradNorm, ms }], evals: [{ step,
// heldoutLoss, heads: { previousToken, firstToken, induction, duplicateToken, … }, seconds }],
// summary }, keys in camelCase.
export function parseTrainingLog(text) {
  const log = { setup: null, steps: [], evals: [], summary: null };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const { kind, ...record } = camelKeys(JSON.parse(line));
    if (kind === 'setup') log.setup = record;
    else if (kind === 'step') log.steps.push(record);
    else if (kind === 'eval') log.evals.push(record);
    else if (kind === 'summary') log.summary = record;
  }
  return log;
}

// attnlab-kjv-llama's training-log.jsonl (scripts/llama/train.py) → { setup, steps: [{ step, loss, lr,
// gradNorm, seconds }], evals: [{ step, heldoutLoss, heldoutLoss128, heads: { previousToken, firstToken,
// induction, duplicateToken } (one score per head, layer by layer), bestStep }], stops: [{ atStep,
// reason, time }], resumes: [{ fromStep, lastLoggedStep, time, threads }], summary: { steps, best: { loss, step },
// hoursThisSession } once the run has ended, else null }. A run that resumed from its
// last checkpoint logged the steps after it twice; the record kept is the one the resumed run wrote
// (the steps the shipped weights went through), so `steps` holds each step once, in order.
export function parseLlamaTrainingLog(text) {
  const log = { setup: null, steps: [], evals: [], stops: [], resumes: [], summary: null };
  const byStep = new Map();
  const evals = new Map();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const { type, ...record } = camelKeys(JSON.parse(line));
    if (type === 'setup') log.setup = record;
    else if (type === 'step') byStep.set(record.step, record);
    else if (type === 'eval') evals.set(record.step, record);
    else if (type === 'stop') log.stops.push(record);
    else if (type === 'resume') log.resumes.push(record);
    else if (type === 'summary') log.summary = record;  // the run's last line, once it has reached its steps
  }
  log.steps = [...byStep.values()].sort((a, b) => a.step - b.step);
  log.evals = [...evals.values()].sort((a, b) => a.step - b.step);
  return log;
}
