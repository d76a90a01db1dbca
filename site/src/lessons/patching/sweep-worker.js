// The patching lesson's sweeps, off the page's thread: attnlab-kjv loaded here once (the single-threaded build:
// its threads would only take cores from the page beside it) and the calls of sweeps.js run on it, each stopped
// between cells by a message. On a phone one layer of cells holds a thread for seconds; here it holds only this one.
//
// Page → worker: { type: 'call', id, op: 'grids' | 'path' | 'takenAway' | 'attention', args }, { type: 'abort', id }.
// Worker → page: { type: 'progress', id, text }, { type: 'result', id, value }, { type: 'error', id, message }
// (an AttnLabError's message; an aborted call sends nothing: the page has already moved on).
import { AttnLabError, init } from 'attnlab';

import { patchingOps } from './sweeps.js';

let ops = null;  // a promise of patchingOps(attnlab-kjv)
const running = new Map();  // id → AbortController

async function load() {
  const lab = await init({ threads: 1 });
  const { model } = await lab.loadBuiltinModel();
  return patchingOps(model);
}

async function call({ id, op, args }) {
  const controller = new AbortController();
  running.set(id, controller);
  const { signal } = controller;
  try {
    ops ??= load();
    const value = await (await ops)[op](args, { signal, progress: (text) => self.postMessage({ type: 'progress', id, text }) });
    if (!signal.aborted) self.postMessage({ type: 'result', id, value });
  } catch (error) {
    if (!signal.aborted) {
      self.postMessage({ type: 'error', id, message: error instanceof AttnLabError ? error.message : `The sweep failed: ${error?.message ?? error}` });
    }
  } finally {
    running.delete(id);
  }
}

self.addEventListener('message', ({ data }) => {
  if (data?.type === 'call') call(data);
  else if (data?.type === 'abort') running.get(data.id)?.abort();
});
