// Sliding windows and attention sinks: the page's four caches (the lesson's parts.js CacheRun, on the package's
// sessions: session(), session({ window }), session({ sinks, window }) and the same weights loaded with Mistral's
// sliding_window) over the first `length` tokens of the passage; the program computes them in PyTorch.
import { readFileSync } from 'node:fs';

import { HELD_OUT as PASSAGE } from '../../../site/src/held-out-text.js';
import { afterEviction, CACHES, CacheRun, loadMaskModel, mean, SLOT_CACHES } from '../../../site/src/lessons/windows-and-sinks/parts.js';

export const states = [
  { length: 384, sinks: 4, window: 64 },  // the defaults
  { sinks: 0, window: 32 },
  { sinks: 1, window: 128 },
];

const dir = new URL('../../../web/models/kjv-llama/', import.meta.url);
const files = () => ({ 'config.json': readFileSync(new URL('config.json', dir), 'utf8'),
  'model.safetensors': readFileSync(new URL('model.safetensors', dir)), 'tokenizer.json': readFileSync(new URL('tokenizer.json', dir)) });

export async function expected(lab, { llama, llamaTokenizer }, state) {
  const ids = Array.from(llamaTokenizer.encode(PASSAGE)).slice(0, state.length);
  const mask = await loadMaskModel(lab, files(), state.window);
  const run = new CacheRun({ model: llama, maskModel: mask.model, ids, sinks: state.sinks, window: state.window });
  try {
    while (!run.finished) run.step();
    const after = afterEviction(run);
    return {
      'mean loss, full window sinks mask': CACHES.map(({ id }) => mean(run.losses[id])),
      'mean loss after eviction, full window sinks mask': CACHES.map(({ id }) => after[id]),
      ...Object.fromEntries(CACHES.map(({ id }) => [`loss per token, ${id}`, run.losses[id]])),
      ...Object.fromEntries(SLOT_CACHES.map((id) => [`attention on the first slot, ${id}, layer × head`, run.firstSlot(id)])),
      'cache bytes at the end, full window sinks mask': CACHES.map(({ id }) => run.bytes[id].now),
    };
  } finally {
    run.dispose();
    mask.model.dispose();
    mask.tokenizer.dispose();
  }
}
