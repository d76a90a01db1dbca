// "What sharing costs", off the page's thread: attnlab-kjv with its key/value heads mean-pooled into fewer groups
// (parts.js: c_attn's key and value columns averaged in the file model.save() wrote, read back with lab.loadGPT)
// and its loss on the held-out chapters, one window at a time. On a phone a window's forward alone takes
// about as long as a task may (200 ms at 4× slowdown), so the page hands the whole measurement to this worker.
//
// Page → worker: { type: 'measure', text }. Worker → page: { type: 'setup', numHeads, numLayers, dModel, contextLength,
// targets }, { type: 'progress', text }, { type: 'result', groups,
// loss, targets } per group count, { type: 'done' }, { type: 'error', message }. The page stops it by terminating it.
import { AttnLabError, init } from 'attnlab';

import { heldOutWindows, poolGroups, poolKeyValueColumns, replaceTensors } from './parts.js';

async function measure(text) {
  // The single-threaded build: its threads would only take cores from the page it runs beside.
  const lab = await init({ threads: 1 });
  const { model, tokenizer } = await lab.loadBuiltinModel();
  const { numHeads, numLayers, dModel, contextLength } = model.config;
  const windows = heldOutWindows(Array.from(tokenizer.encode(text)), contextLength);
  const targets = windows.reduce((n, w) => n + w.length - 1, 0);
  self.postMessage({ type: 'setup', numHeads, numLayers, dModel, contextLength, targets });
  let bytes = null;
  for (const groups of poolGroups(numHeads)) {
    let pooled = model;
    if (groups !== numHeads) {
      self.postMessage({ type: 'progress', text: `pooling into ${groups === 1 ? 'one group' : `${groups} groups`}` });
      bytes ??= model.save();
      const replacements = {};
      for (let l = 0; l < numLayers; l++) {
        const name = `h.${l}.attn.c_attn`;
        const { weight, bias } = poolKeyValueColumns(model.tensor(`${name}.weight`).data, model.tensor(`${name}.bias`).data,
          { dModel, heads: numHeads, groups });
        replacements[`${name}.weight`] = weight;
        replacements[`${name}.bias`] = bias;
      }
      pooled = await lab.loadGPT(replaceTensors(bytes, replacements));
    }
    try {
      let sum = 0;
      // One progress line per model, not per window: each line is a live region the page's reader announces.
      self.postMessage({ type: 'progress', text: `${groups} key/value ${groups === 1 ? 'head' : 'heads'} per layer, ${windows.length} windows` });
      for (const w of windows) for (const loss of pooled.tokenLosses(w)) sum += loss;
      self.postMessage({ type: 'result', groups, loss: sum / targets, targets });
    } finally {
      if (pooled !== model) pooled.dispose();
    }
  }
  self.postMessage({ type: 'done' });
}

self.addEventListener('message', ({ data }) => {
  if (data?.type !== 'measure') return;
  measure(data.text).catch((error) => self.postMessage({ type: 'error',
    message: error instanceof AttnLabError ? error.message : `The measurement failed: ${error?.message ?? error}` }));
});
