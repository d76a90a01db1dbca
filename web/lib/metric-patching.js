// Activation patching with any metric of the logits (issue 51, item 4): metric(logits) → a number, logits the
// patched run's Matrix (seq × vocab) — a probability, a loss, a logit difference at any position. The core's
// sweep measures a logit difference itself; a function runs here, so each cell is one runWithHooks of the
// corrupted prompt with the clean run's value put back at the cell's entries, read by the function. The grid's
// shape, order and normalisation are activationPatching's.
//   const probability = (logits) => softmaxAt(logits, logits.rows - 1)[target];
//   const { grid } = await model.activationPatching(clean, corrupted, { what: 'z', per: 'head', metric: probability });
import { describe, fail } from './checks.js';
import { checkSameLength } from './patching-gap.js';

const POINTS = {
  resid_pre: 'hook_resid_pre', attn_out: 'hook_attn_out', mlp_out: 'hook_mlp_out', z: 'attn.hook_z',
  pattern: 'attn.hook_pattern', q: 'attn.hook_q', k: 'attn.hook_k', v: 'attn.hook_v',
};
const PER_HEAD = new Set(['z', 'pattern', 'q', 'k', 'v']);

export const FUNCTION_MEANING = '(metric(patched) − metric(corrupted)) / (metric(clean) − metric(corrupted)), of your metric ' +
  'of the logits: 0 = the corrupted run’s value, 1 = the clean run’s; above 1 the patch moves it past the clean run’s value, ' +
  'below 0 away from the clean run’s, further than the corrupted run is.';

// The (what, per) grid of a model of `config` over T positions: its shape and its cells in the grid's order,
// each { layer, positions?, heads? } (the entries one patch puts back). A Llama's k and v are per key/value head.
export function gridCells(fn, config, what, per, T) {
  const L = config.numLayers;
  const H = (what === 'k' || what === 'v') && config.numKeyValueHeads ? config.numKeyValueHeads : config.numHeads;
  const range = (n) => Array.from({ length: n }, (_, i) => i);
  if (per === 'all') return { shape: [L], cells: range(L).map((layer) => ({ layer })) };
  if (per === 'head') {
    if (!PER_HEAD.has(what)) fail(fn, `per head needs a per-head point (z, pattern, q, k, v), got ${what}`);
    return { shape: [L, H], cells: range(L).flatMap((layer) => range(H).map((h) => ({ layer, heads: [h] }))) };
  }
  if (!PER_HEAD.has(what)) return { shape: [L, T], cells: range(L).flatMap((layer) => range(T).map((p) => ({ layer, positions: [p] }))) };
  return {
    shape: [L, T, H],
    cells: range(L).flatMap((layer) => range(T).flatMap((p) => range(H).map((h) => ({ layer, positions: [p], heads: [h] })))),
  };
}

// The metric's value, which must be a finite number (a NaN would fill the grid without a word).
function measure(fn, metric, logits, run) {
  const value = metric(logits);
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(fn, `metric returned ${describe(value)} on the ${run}: it must return a finite number`);
  return value;
}

// { warning } for the result (empty when the clean run scores higher), or an AttnLabError unless allowed: the
// shares are of clean − corrupted, which must be above 0 to say how much of the clean behaviour comes back.
function functionGapVerdict(fn, clean, corrupted, allowed) {
  if (clean > corrupted) return {};
  if (clean === corrupted) fail(fn, `your metric is ${clean} on both prompts: there is no gap between them for a patch to restore a share of`);
  const why = `your metric is ${clean.toFixed(4)} on the clean prompt and ${corrupted.toFixed(4)} on the corrupted one: the clean ` +
    'run does not score higher, so shares of clean − corrupted do not say how much of the clean behaviour a patch restores';
  if (!allowed) fail(fn, `${why}. Choose a metric that is higher on the clean prompt, or pass allowUnfavourable: true to get the numbers with a warning.`);
  return { warning: why[0].toUpperCase() + why.slice(1) + '.' };
}

// The sweep: clean and corrupted runs, then every cell in order through `sweep` (interp.js's cell loop: the
// signal checked before each, the thread given back between slices and layers). → activationPatching's result
// without `position` (the function reads whichever it likes).
export async function functionPatching(model, fn, clean, corrupted, { what, per, metric, allowed, sweep }) {
  checkSameLength(fn, clean, corrupted);
  const { numLayers } = model.config;
  const names = Array.from({ length: numLayers }, (_, layer) => `blocks.${layer}.${POINTS[what]}`);
  const cleanRun = model.runWithCache(clean, { names });
  const cleanValue = measure(fn, metric, cleanRun.logits, 'clean run');
  const corruptedValue = measure(fn, metric, model.runWithHooks(corrupted, { patch: [] }).logits, 'corrupted run');
  const verdict = functionGapVerdict(fn, cleanValue, corruptedValue, allowed);
  const { shape, cells } = gridCells(fn, model.config, what, per, clean.length);
  const gap = cleanValue - corruptedValue;
  const data = await sweep(cells.length, numLayers, (i) => {
    const { layer, positions, heads } = cells[i];
    const { logits } = model.runWithHooks(corrupted, { patch: [{ name: names[layer], from: cleanRun.cache, positions, heads }] });
    return (measure(fn, metric, logits, 'patched run') - corruptedValue) / gap;
  });
  return { grid: { shape, data }, clean: cleanValue, corrupted: corruptedValue, meaning: FUNCTION_MEANING, ...verdict };
}
