// The interpretability calls on a GPTModel or a LlamaModel (the core's interp/, in the GPT module): an
// activation cache with TransformerLens's hook names, runs with patches, the logit lens, direct logit
// attribution, activation and path patching (and on a GPT attribution patching), and a head's circuits. The models'
// methods of the same names call these; a Llama's bindings are the GPT's names with "llama" before them.
//   const { logits, cache } = model.runWithCache(ids);
//   cache.get('blocks.1.attn.hook_pattern');                     // Tensor (heads, seq, seq)
//   const grid = await model.activationPatching(clean, corrupted, { what: 'resid_pre', metric: { target, baseline } });
import { checkBoolean, checkFields, checkOneOf, checkOptions, checkSeed, checkSize, describe, fail, noMoreArguments } from './checks.js';
import { checkIds } from './gpt.js';
import { nearestName } from './option-names.js';
import { functionPatching } from './metric-patching.js';
import { checkPathTarget, pathPatchingTo } from './path-to.js';
import { allowUnfavourable, ESTIMATE_MEANING, GRID_MEANING, gapVerdict, PATH_MEANING } from './patching-gap.js';
import { checkTensor } from './tensor.js';

// The values of one run at its hook points, in TransformerLens's shapes for one sequence (its batch
// dimension left out): cache.get('blocks.0.attn.hook_z') is (seq, heads, dHead); cache.get('z', 0) is the same
// point by get_act_name's short form. On a GPT's cache, TransformerLens's cache algebra (the core's
// cache_algebra.hpp, through the module): accumulatedResid, decomposeResid, stackHeadResults, stackActivation,
// applyLnToStack, logitAttrs, and blocks.{l}.attn.hook_result computed from hook_z.
export class ActivationCache {
  #tensors;
  #model;
  #module;

  constructor(tensors, ids, model, module) {
    this.#tensors = tensors;
    this.#model = model;
    this.#module = module;
    this.ids = ids;
    Object.freeze(this);
  }

  names(...extra) {
    noMoreArguments('ActivationCache.names', extra);
    return [...this.#tensors.keys()];
  }

  // The full name of (name, layer?, layerType?) as TransformerLens's utils.get_act_name gives it.
  #fullName(fn, name, layer, layerType) {
    if (typeof name !== 'string') fail(fn, `name must be a hook name such as 'blocks.0.hook_resid_pre' or 'resid_pre', got ${describe(name)}`);
    if (layer !== undefined) checkSize(fn, 'layer', layer, { min: 0 });
    if (layerType !== undefined && typeof layerType !== 'string') fail(fn, `layerType must be a string such as 'ln1', got ${describe(layerType)}`);
    if (layer === undefined && layerType === undefined && this.#tensors.has(name)) return name;
    return this.#module.raw.actName(name, layer ?? -1, layerType ?? '');
  }

  has(name, layer, layerType, ...extra) {
    const fn = 'ActivationCache.has';
    noMoreArguments(fn, extra, ['name', 'layer', 'layerType']);
    const full = this.#fullName(fn, name, layer, layerType);
    const result = /^blocks\.(\d+)\.attn\.hook_result$/.exec(full);
    return this.#tensors.has(full) || (result !== null && !this.#model.interpPrefix && this.#tensors.has(`blocks.${result[1]}.attn.hook_z`));
  }

  // { shape, data } of one hook point (a copy, so the cache stays as the run left it), by full name or by
  // get_act_name's short form: get('pattern', 0), get('pattern0'), get('scale', 1, 'ln2').
  get(name, layer, layerType, ...extra) {
    const fn = 'ActivationCache.get';
    noMoreArguments(fn, extra, ['name', 'layer', 'layerType']);
    const full = this.#fullName(fn, name, layer, layerType);
    const tensor = this.#tensors.get(full);
    if (tensor) return { shape: [...tensor.shape], data: tensor.data.slice() };
    const result = /^blocks\.(\d+)\.attn\.hook_result$/.exec(full);
    if (result) return this.#algebra(fn, 'result', { layer: Number(result[1]) }, /attn\.hook_z$/);
    const near = nearestName(full, this.names());
    const inBlock = this.#module.raw.actName(name, 0, layerType ?? '').split('.').slice(2).join('.');  // 'attn.hook_pattern'
    const everyBlock = layer === undefined && !name.includes('.') && this.names().some((n) => n.endsWith(`.${inBlock}`));
    fail(fn, `this cache has no "${full}"${full !== name ? ` (from "${name}")` : ''}` +
      (everyBlock ? ` — "${name}" is a point in every block: give its layer, get('${name}', 0), or stack them with stackActivation('${name}')` :
        near ? ` — did you mean "${near}"?` : '') +
      ` It holds ${this.#tensors.size} point${this.#tensors.size === 1 ? '' : 's'} (${this.names().slice(0, 3).join(', ')}` +
      `${this.#tensors.size > 3 ? ', …' : ''}); runWithCache keeps every point unless names chooses some`);
  }

  // TransformerLens's accumulated_resid: the stream at 0_pre (0_mid), 1_pre, …, final_post. applyLn at the
  // unembed applies ln_final itself to each row (its recompute_ln): ·wteᵀ then gives the logit lens.
  accumulatedResid(options, ...extra) {
    const fn = 'ActivationCache.accumulatedResid';
    noMoreArguments(fn, extra, ['options']);
    const o = stackOptions(fn, options, ['inclMid', 'mlpInput', 'applyLn']);
    return this.#algebra(fn, 'accumulatedResid', o, /hook_resid_(pre|mid|post)$|hook_scale$/);
  }

  // TransformerLens's decompose_resid: embed, pos_embed, 0_attn_out, 0_mlp_out, …
  decomposeResid(options, ...extra) {
    const fn = 'ActivationCache.decomposeResid';
    noMoreArguments(fn, extra, ['options']);
    const o = stackOptions(fn, options, ['mlpInput', 'applyLn', 'inclEmbeds', 'mode']);
    if (o.mode !== undefined) checkOneOf(fn, 'mode', o.mode, ['all', 'attn', 'mlp']);
    return this.#algebra(fn, 'decomposeResid', o, /hook_(embed|pos_embed|attn_out|mlp_out|scale)$/);
  }

  // TransformerLens's stack_head_results: L0H0, L0H1, … (and remainder): each head's z·W_O, no b_O.
  stackHeadResults(options, ...extra) {
    const fn = 'ActivationCache.stackHeadResults';
    noMoreArguments(fn, extra, ['options']);
    const o = stackOptions(fn, options, ['inclRemainder', 'applyLn']);
    return this.#algebra(fn, 'stackHeadResults', o, /attn\.hook_z$|hook_resid_post$|hook_scale$/);
  }

  // TransformerLens's stack_activation: one point of layers 0 … layer − 1 stacked; labels: their full names.
  stackActivation(name, options, ...extra) {
    const fn = 'ActivationCache.stackActivation';
    noMoreArguments(fn, extra, ['name', 'options']);
    if (typeof name !== 'string') fail(fn, `name must be a short form such as 'pattern' or 'resid_pre', got ${describe(name)}`);
    const { layer = -1, layerType = '' } = checkOptions(fn, options, ['layer', 'layerType']);
    checkLayer(fn, layer);
    if (typeof layerType !== 'string') fail(fn, `layerType must be a string such as 'ln1', got ${describe(layerType)}`);
    return this.#algebra(fn, 'stackActivation', { name, layer, layerType }, () => true);
  }

  // TransformerLens's apply_ln_to_stack: each component centred and divided by the cached scale of the LayerNorm
  // read at layer (ln_final by default; ln1, or ln2 with mlpInput); recomputeLn at the unembed: ln_final itself.
  applyLnToStack(stack, options, ...extra) {
    const fn = 'ActivationCache.applyLnToStack';
    noMoreArguments(fn, extra, ['stack', 'options']);
    const { layer = -1, mlpInput, recomputeLn, position } = checkOptions(fn, options, ['layer', 'mlpInput', 'recomputeLn', 'position']);
    checkLayer(fn, layer);
    const o = { layer, mlpInput: flag(fn, 'mlpInput', mlpInput), recomputeLn: flag(fn, 'recomputeLn', recomputeLn), position: checkPosition(fn, position) };
    return this.#algebra(fn, 'applyLnToStack', { ...o, stack: checkTensor(fn, 'stack', stack) }, /hook_scale$/);
  }

  // TransformerLens's logit_attrs: each component through ln_final (cached scale) along ln_final.weight ⊙ wte[token]
  // (− wte[incorrect]): the residual direction of fold_ln, TransformerLens's default.
  logitAttrs(stack, options, ...extra) {
    const fn = 'ActivationCache.logitAttrs';
    noMoreArguments(fn, extra, ['stack', 'options']);
    const { tokens, incorrectTokens, position } = checkOptions(fn, options, ['tokens', 'incorrectTokens', 'position']);
    const ids = (value, name) => (typeof value === 'number' ? [checkSize(fn, name, value, { min: 0 })] : Array.from(checkIds(fn, name, value)));
    const o = { tokens: ids(tokens, 'tokens'), incorrectTokens: incorrectTokens === undefined ? [] : ids(incorrectTokens, 'incorrectTokens'), position: checkPosition(fn, position) };
    return this.#algebra(fn, 'logitAttrs', { ...o, stack: checkTensor(fn, 'stack', stack) }, /hook_scale$/);
  }

  // One call of the core's cache algebra on the points it reads (copied into the module for the call).
  #algebra(fn, call, options, reads) {
    const model = this.#model;
    if (model.interpPrefix) {
      fail(fn, "is a GPT's (TransformerLens's cache algebra reads a GPT's weights and LayerNorms); a LlamaModel's cache " +
        'offers get, has and names');
    }
    const tensors = [...this.#tensors].filter(([name]) => (typeof reads === 'function' ? reads(name) : reads.test(name)))
      .map(([name, t]) => ({ name, shape: t.shape, data: t.data }));
    const out = model.call(fn, () => this.#module.raw.cacheAlgebra(model.handle(fn), this.ids, tensors, call, options));
    return out.labels ? { stack: out.stack, labels: out.labels } : out;
  }
}

function flag(fn, name, value) {
  return value === undefined ? false : checkBoolean(fn, name, value);
}

function checkLayer(fn, layer) {
  if (layer !== -1) checkSize(fn, 'layer', layer, { min: 0 });
  return layer;
}

// A position (negative counts from the end, as a pos_slice int) or undefined (every position: null to the core).
function checkPosition(fn, position) {
  if (position === undefined) return null;
  if (typeof position !== 'number' || !Number.isInteger(position)) fail(fn, `position must be an integer (−1 the last), got ${describe(position)}`);
  return position;
}

// layer and position, and the flags a stacking call takes.
function stackOptions(fn, options, more) {
  const given = checkOptions(fn, options, ['layer', 'position', ...more]);
  const out = { layer: checkLayer(fn, given.layer ?? -1), position: checkPosition(fn, given.position) };
  for (const name of more) if (name !== 'mode') out[name] = name === 'inclEmbeds' ? (given[name] === undefined ? true : checkBoolean(fn, name, given[name])) : flag(fn, name, given[name]);
  if (more.includes('mode')) out.mode = given.mode ?? 'all';
  return out;
}

// The model's binding of an interpretability call: 'logitLens' → raw.logitLens, or raw.llamaLogitLens.
function raw(model, module, name) {
  return model.interpPrefix ? module.raw[model.interpPrefix + name[0].toUpperCase() + name.slice(1)] : module.raw[name];
}

function checkNames(fn, names) {
  if (names === undefined) return [];
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) {
    fail(fn, `names must be an array of hook names such as ['blocks.0.attn.hook_pattern'], got ${describe(names)}`);
  }
  return names;
}

function checkIndexList(fn, name, list) {
  if (list === undefined) return [];
  if (!Array.isArray(list)) fail(fn, `${name} must be an array of integers ≥ 0, got ${describe(list)}`);
  return list.map((value, i) => checkSize(fn, `${name}[${i}]`, value, { min: 0 }));
}

// [{ name, value | from | ablate, positions?, heads? }] → the binding's [{ name, source, value?, positions, heads }].
function checkPatches(fn, patch) {
  if (!Array.isArray(patch)) fail(fn, `patch must be an array of { name, value | from | ablate, positions?, heads? }, got ${describe(patch)}`);
  return patch.map((entry, i) => {
    const where = `patch[${i}]`;
    const { name, value, from, ablate, positions, heads } =
      checkFields(fn, where, entry, ['name', 'value', 'from', 'ablate', 'positions', 'heads']);
    if (typeof name !== 'string') fail(fn, `${where}.name must be a hook name, got ${describe(name)}`);
    const given = [value, from, ablate].filter((v) => v !== undefined).length;
    if (given !== 1) fail(fn, `${where} needs exactly one of value (a tensor), from (an ActivationCache) or ablate ('zero' | 'mean')`);
    const out = { name, positions: checkIndexList(fn, `${where}.positions`, positions), heads: checkIndexList(fn, `${where}.heads`, heads) };
    if (ablate !== undefined) return { ...out, source: checkOneOf(fn, `${where}.ablate`, ablate, ['zero', 'mean']) };
    if (from !== undefined && !(from instanceof ActivationCache)) fail(fn, `${where}.from must be an ActivationCache (from runWithCache), got ${describe(from)}`);
    const tensor = from !== undefined ? from.get(name) : checkTensor(fn, `${where}.value`, value);
    return { ...out, source: 'value', value: tensor };
  });
}

// hooks ([{ name, fn }], TransformerLens's fwd_hooks) → what the binding calls: the points' names, and call(name,
// tensor), which runs each function given for that point in order — fn(value, { name }) edits value.data in place
// or returns a tensor of value's shape — and returns the tensor the run goes on with; null once a function has
// thrown, its error kept in `thrown` for the caller to rethrow (the run stops there, the module unharmed).
function hookFunctions(fn, hooks) {
  const none = { names: [], call: undefined, thrown: null };
  if (hooks === undefined) return none;
  if (!Array.isArray(hooks)) fail(fn, `hooks must be an array of { name, fn }, got ${describe(hooks)}`);
  const byName = new Map();
  hooks.forEach((entry, i) => {
    const { name, fn: f } = checkFields(fn, `hooks[${i}]`, entry, ['name', 'fn']);
    if (typeof name !== 'string') fail(fn, `hooks[${i}].name must be a hook name, got ${describe(name)}`);
    if (typeof f !== 'function') fail(fn, `hooks[${i}].fn must be a function (value, hook) => …, got ${describe(f)}`);
    byName.set(name, [...(byName.get(name) ?? []), f]);
  });
  const state = { ...none, names: [...byName.keys()] };
  state.call = (name, value) => {
    try {
      let current = value;
      for (const f of byName.get(name)) {
        const out = f(current, { name });
        if (out === undefined) continue;
        const checked = checkTensor(fn, `the value a hook function for ${name} returned`, out);
        if (checked.shape.length !== current.shape.length || checked.shape.some((n, i) => n !== current.shape[i])) {
          fail(fn, `a hook function for ${name} returned shape (${checked.shape.join(', ')}) but the point has shape (${current.shape.join(', ')})`);
        }
        current = checked;
      }
      return current;
    } catch (error) {
      state.thrown ??= error;
      return null;
    }
  };
  return state;
}

// One run through the binding: { logits, cache } with the named points copied out.
function run(model, module, fn, ids, names, patches, firstPosition = 0, hooks = hookFunctions(fn, undefined)) {
  const tokens = checkIds(fn, 'ids', ids);
  // A hook function's own error, as it threw it (the binding reports only that one threw).
  const calling = (body) => {
    try {
      return model.call(fn, body);
    } catch (error) {
      throw hooks.thrown ?? error;
    }
  };
  if (model.interpPrefix) {
    const out = calling(() => module.raw.llamaRunWithHooks(model.handle(fn), tokens, names, patches, firstPosition, hooks.names, hooks.call));
    return { logits: out.logits, cache: new ActivationCache(new Map(out.names.map((name) => [name, out.hooks[name]])), tokens, model, module) };
  }
  const handle = calling(() => module.raw.ActivationCacheHandle.run(model.handle(fn), tokens, names, patches, hooks.names, hooks.call));
  try {
    const tensors = new Map(handle.names().map((name) => [name, handle.get(name)]));
    return { logits: handle.logits(), cache: new ActivationCache(tensors, handle.ids(), model, module) };
  } finally {
    handle.delete();
  }
}

// A Llama's runs take firstPosition (RoPE's position of the first token); a GPT's do not.
function runOptions(model, fn, options, names) {
  const allowed = model.interpPrefix ? [...names, 'firstPosition'] : names;
  const checked = checkOptions(fn, options, allowed);
  return { ...checked, firstPosition: checkSize(fn, 'firstPosition', checked.firstPosition ?? 0, { min: 0 }) };
}

export function runWithCache(model, module, ids, options) {
  const fn = `${model.className}.runWithCache`;
  const { names, firstPosition } = runOptions(model, fn, options, ['names']);
  return run(model, module, fn, ids, checkNames(fn, names), [], firstPosition);
}

// keep: the points to cache from the patched run (none by default: its logits are what most need). patch (values,
// caches, ablations) and hooks (functions) may be given together: at each point the patches apply first.
export function runWithHooks(model, module, ids, options) {
  const fn = `${model.className}.runWithHooks`;
  const { patch = [], hooks, keep = [], firstPosition } = runOptions(model, fn, options, ['patch', 'hooks', 'keep']);
  const patches = checkPatches(fn, patch);
  const functions = hookFunctions(fn, hooks);
  const kept = checkNames(fn, keep);
  // The binding keeps every point for an empty list: keep one and drop it when none was asked for.
  const result = run(model, module, fn, ids, kept.length ? kept : ['hook_embed'], patches, firstPosition, functions);
  return kept.length ? result : { logits: result.logits };
}

export function logitLens(model, module, ids, options) {
  const fn = `${model.className}.logitLens`;
  const { position, positions, k = 5, target = -1 } = checkOptions(fn, options, ['position', 'positions', 'k', 'target']);
  if (position !== undefined && positions !== undefined) fail(fn, 'give position (one) or positions (several), not both');
  const chosen = position !== undefined ? [checkSize(fn, 'position', position, { min: 0 })] : checkIndexList(fn, 'positions', positions);
  checkSize(fn, 'k', k);
  if (target !== -1) checkSize(fn, 'target', target, { min: 0 });
  const tokens = checkIds(fn, 'ids', ids);
  const lens = model.call(fn, () => raw(model, module, 'logitLens')(model.handle(fn), tokens, chosen, k, target));
  const cells = lens.cells.map((row) => row.map((cell) => ({
    top: Array.from(cell.topIds, (id, i) => ({ id, probability: cell.topProbabilities[i] })),
    ...(target >= 0 ? { target: { probability: cell.targetProbability, rank: cell.targetRank } } : {}),
  })));
  const result = { points: lens.points, positions: Array.from(lens.positions), cells };
  // One position: its column as rows, one per point.
  return position !== undefined ? { ...result, rows: cells.map((row, i) => ({ point: lens.points[i], ...row[0] })) } : result;
}

export function directLogitAttribution(model, module, ids, options) {
  const fn = `${model.className}.directLogitAttribution`;
  const tokens = checkIds(fn, 'ids', ids);
  const { position = tokens.length - 1, target, baseline = -1 } = checkOptions(fn, options, ['position', 'target', 'baseline']);
  checkSize(fn, 'position', position, { min: 0 });
  checkSize(fn, 'target', target, { min: 0 });
  if (baseline !== -1) checkSize(fn, 'baseline', baseline, { min: 0 });
  return model.call(fn, () => raw(model, module, 'directLogitAttribution')(model.handle(fn), tokens, position, target, baseline));
}

function checkMetric(fn, metric) {
  if (typeof metric === 'function') {
    fail(fn, 'metric: a function of the logits is taken by activationPatching; this call measures a logit difference, ' +
      'metric: { target, baseline, position? }');
  }
  const { target, baseline, position = -1 } = checkFields(fn, 'metric', metric, ['target', 'baseline', 'position']);
  checkSize(fn, 'metric.target', target, { min: 0 });
  checkSize(fn, 'metric.baseline', baseline, { min: 0 });
  if (position !== -1) checkSize(fn, 'metric.position', position, { min: 0 });
  return { target, baseline, position };
}

// The clean and corrupted runs of a sweep, kept in the module until the call returns. The model is held
// meanwhile: its dispose() during an async sweep takes effect when the sweep ends (WasmModule.hold).
function withSweep(model, module, fn, clean, corrupted, metric, body) {
  const [a, b] = [checkIds(fn, 'clean', clean), checkIds(fn, 'corrupted', corrupted)];
  const checked = checkMetric(fn, metric);
  const release = model.hold(fn);
  let sweep;
  try {
    sweep = model.call(fn, () => raw(model, module, 'PatchingSweepHandle').create(model.handle(fn), a, b, checked));
  } catch (error) {
    release();
    throw error;
  }
  const done = () => {
    sweep.delete();
    release();
  };
  try {
    const result = body(sweep);
    if (result instanceof Promise) return result.finally(done);
    done();
    return result;
  } catch (error) {
    done();
    throw error;
  }
}

// Between layers: let the page paint and events run (an abort, a click), then go on.
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
// Within a layer the cells are computed one at a time (the binding's cells(what, per, layer, first, count)),
// the signal checked before each, and the thread given back once a slice has run this long: on the page's
// thread no task of a sweep is much longer than one cell (one patched forward) or this.
const SLICE_MS = 30;
const now = () => globalThis.performance?.now() ?? Date.now();

// The options a grid of cells takes (activationPatching's and attributionPatching's), checked; more: the
// options only the caller takes.
function gridOptions(fn, options, more) {
  const given = checkOptions(fn, options, ['what', 'per', 'metric', 'allowUnfavourable', ...more]);
  const { what, per = 'position', metric, allowUnfavourable: allow } = given;
  checkOneOf(fn, 'what', what, ['resid_pre', 'attn_out', 'mlp_out', 'z', 'pattern', 'q', 'k', 'v']);
  checkOneOf(fn, 'per', per, ['position', 'head', 'all']);
  return { ...given, what, per, metric, allowed: allowUnfavourable(fn, allow) };
}

// count cells of `layers` layers (the same number each), cell(i) computing the i-th, one at a time: the signal
// checked before each, the thread given back once a slice has run SLICE_MS and after each layer, onProgress
// after each layer. → Float32Array of the cells.
async function sweepCells(count, layers, cell, { signal, onProgress }) {
  const data = new Float32Array(count);
  const perLayer = count / layers;
  let slice = now();
  for (let layer = 0; layer < layers; layer++) {
    for (let i = 0; i < perLayer; i++) {
      signal?.throwIfAborted();
      data[layer * perLayer + i] = cell(layer * perLayer + i);
      if (now() - slice >= SLICE_MS && i + 1 < perLayer) {
        await nextTask();
        slice = now();
      }
    }
    onProgress?.({ done: layer + 1, total: layers });
    await nextTask();
    slice = now();
  }
  signal?.throwIfAborted();
  return data;
}

// async: every refusal, of the arguments or of the prompts, is a rejected promise; an already-aborted signal
// is rejected with its reason before any run. The signal is checked before each cell. A pair whose clean run
// does not favour the target more than the corrupted run does is refused before any cell is computed
// (patching-gap.js), or with allowUnfavourable: true swept and returned with a warning.
// metric: a LogitDiffMetric ({ target, baseline, position? }, measured in the core) or any function of the
// patched run's logits (metric-patching.js: each cell a runWithHooks here).
export async function activationPatching(model, module, clean, corrupted, options) {
  const fn = `${model.className}.activationPatching`;
  const { what, per, metric, onProgress, signal, allowed } = gridOptions(fn, options, ['onProgress', 'signal']);
  if (onProgress !== undefined && typeof onProgress !== 'function') fail(fn, `onProgress must be a function, got ${describe(onProgress)}`);
  if (signal !== undefined && !(signal instanceof AbortSignal)) fail(fn, `signal must be an AbortSignal, got ${describe(signal)}`);
  signal?.throwIfAborted();  // before the clean and corrupted runs: a stopped sweep costs nothing
  const progress = { signal, onProgress };
  if (typeof metric === 'function') {
    const [a, b] = [checkIds(fn, 'clean', clean), checkIds(fn, 'corrupted', corrupted)];
    const release = model.hold(fn);
    try {
      return await functionPatching(model, fn, a, b, { what, per, metric, allowed, sweep: (count, layers, cell) => sweepCells(count, layers, cell, progress) });
    } finally {
      release();
    }
  }
  return withSweep(model, module, fn, clean, corrupted, metric, async (sweep) => {
    const shape = model.call(fn, () => sweep.gridShape(what, per));
    const metrics = sweep.metrics();
    const verdict = gapVerdict(fn, metrics.clean, metrics.corrupted, allowed);
    const perLayer = shape.reduce((n, s) => n * s, 1) / shape[0];
    const cell = (i) => model.call(fn, () => sweep.cells(what, per, Math.floor(i / perLayer), i % perLayer, 1))[0];
    const data = await sweepCells(perLayer * shape[0], shape[0], cell, progress);
    return { grid: { shape, data }, clean: metrics.clean, corrupted: metrics.corrupted, position: metrics.position, meaning: GRID_MEANING, ...verdict };
  });
}

// Attribution patching (Nanda 2023; Syed et al. 2023): activationPatching's grid estimated to first order from
// one forward and one backward of the corrupted run — (clean − corrupted activation) · ∂metric/∂activation
// summed over each cell's entries, normalised as activationPatching normalises. Synchronous: one backward is
// about the cost of one patched forward, not of a sweep. Where it misses the patched runs (a residual stream
// passes every later LayerNorm, softmax and MLP) is the lesson's to show, beside activationPatching's grid.
export function attributionPatching(model, module, clean, corrupted, options) {
  const fn = `${model.className}.attributionPatching`;
  const { what, per, metric, allowed } = gridOptions(fn, options, []);
  return withSweep(model, module, fn, clean, corrupted, metric, (sweep) => {
    const shape = model.call(fn, () => sweep.gridShape(what, per));
    const metrics = sweep.metrics();
    const verdict = gapVerdict(fn, metrics.clean, metrics.corrupted, allowed);  // before the backward
    const data = model.call(fn, () => sweep.attribution(what, per));
    return { grid: { shape, data }, clean: metrics.clean, corrupted: metrics.corrupted, position: metrics.position, meaning: ESTIMATE_MEANING, ...verdict };
  });
}

// receivers: heads' inputs; or to: 'logits' or a later block's hook_resid_pre (path-to.js, on a GPT).
export function pathPatching(model, module, clean, corrupted, options) {
  const fn = `${model.className}.pathPatching`;
  const { sender, receivers, to: target, metric, allowUnfavourable: allow } =
    checkOptions(fn, options, ['sender', 'receivers', 'to', 'metric', 'allowUnfavourable']);
  const allowed = allowUnfavourable(fn, allow);
  const head = (value, where) => {
    const { layer, head: h } = checkFields(fn, where, value, ['layer', 'head']);
    return { layer: checkSize(fn, `${where}.layer`, layer, { min: 0 }), head: checkSize(fn, `${where}.head`, h, { min: 0 }) };
  };
  const from = head(sender, 'sender');
  if ((receivers === undefined) === (target === undefined)) {
    fail(fn, 'give receivers (heads\' inputs: [{ layer, head, input }]) or to (\'logits\' or a later block\'s hook_resid_pre), one of the two');
  }
  if (target !== undefined) {
    if (model.interpPrefix) fail(fn, 'to (the logits or the residual stream as receiver) is a GPTModel\'s; a LlamaModel\'s receivers are heads');
    const { numLayers, numHeads } = model.config;
    if (from.layer >= numLayers || from.head >= numHeads) fail(fn, `sender layer ${from.layer}, head ${from.head} is not in the model (${numLayers} layers of ${numHeads} heads)`);
    const checked = checkPathTarget(fn, target, from, numLayers);
    const [a, b] = [checkIds(fn, 'clean', clean), checkIds(fn, 'corrupted', corrupted)];
    const result = pathPatchingTo(model, fn, Array.from(a), Array.from(b), { sender: from, target: checked, metric: checkMetric(fn, metric),
      verdict: (c, k) => gapVerdict(fn, c, k, allowed) });
    return { ...result, meaning: PATH_MEANING };
  }
  if (!Array.isArray(receivers)) fail(fn, `receivers must be an array of { layer, head, input: 'q' | 'k' | 'v' }, got ${describe(receivers)}`);
  const to = receivers.map((r, i) => {
    const { layer, head: h, input } = checkFields(fn, `receivers[${i}]`, r, ['layer', 'head', 'input']);
    return { ...head({ layer, head: h }, `receivers[${i}]`), input: checkOneOf(fn, `receivers[${i}].input`, input, ['q', 'k', 'v']) };
  });
  return withSweep(model, module, fn, clean, corrupted, metric, (sweep) => {
    const { clean: c, corrupted: k } = sweep.metrics();
    const verdict = gapVerdict(fn, c, k, allowed);  // before the patched run: a refusal costs nothing
    return { ...model.call(fn, () => sweep.pathPatching(from, to)), meaning: PATH_MEANING, ...verdict };
  });
}

// A Llama's circuit takes { distance }: W_Q·R(distance), the QK circuit for a key that many tokens back.
export function headCircuit(model, module, layer, head, options) {
  const fn = `${model.className}.headCircuit`;
  const [l, h] = [checkSize(fn, 'layer', layer, { min: 0 }), checkSize(fn, 'head', head, { min: 0 })];
  if (!model.interpPrefix) noMoreArguments(fn, [options], ['layer', 'head']);  // a GPT's circuit has no distance
  const { distance = 0 } = checkOptions(fn, options, ['distance']);
  checkSize(fn, 'distance', distance, { min: 0 });
  const circuit = model.interpPrefix
    ? model.call(fn, () => module.raw.llamaHeadCircuit(model.handle(fn), l, h, distance))
    : model.call(fn, () => module.raw.headCircuit(model.handle(fn), l, h));
  const copying = model.call(fn, () => raw(model, module, 'ovCopyingScore')(model.handle(fn), l, h));
  return { ...circuit, copyingScore: copying };
}

// Every head's copying score at once (layers × heads): the d×V×d product they share is computed once.
// options: TransformerLens's weight processing steps, each off by default (the raw W_E·W_V·W_O·W_U), because
// the score moves with each (core: CopyingProcessing in circuits.hpp; a Llama's core refuses centreWriting).
// extra: the arguments after the options (it takes none).
export function copyingScores(model, module, options, extra) {
  const fn = `${model.className}.copyingScores`;
  const steps = processingSteps(fn, options, extra);
  if (model.interpPrefix) return model.call(fn, () => module.raw.llamaOvCopyingScores(model.handle(fn), ...steps));
  return model.call(fn, () => module.raw.ovCopyingScores(model.handle(fn), ...steps, false));
}

// ARENA's top-1 check of every head's full OV circuit (a GPT's; core ov_copying_top1): the share of tokens whose own
// column leads their row of W_E·W_V·W_O·W_U, layers × heads, under the same processing options.
export function copyingTop1(model, module, options, extra) {
  const fn = `${model.className}.copyingTop1`;
  const steps = processingSteps(fn, options, extra);
  return model.call(fn, () => module.raw.ovCopyingScores(model.handle(fn), ...steps, true));
}

// The copying checks' options → [foldLn, centreWriting, centreUnembed], each false unless given.
function processingSteps(fn, options, extra) {
  noMoreArguments(fn, extra, ['options']);
  const given = checkOptions(fn, options, ['foldLn', 'centreWriting', 'centreUnembed']);
  return ['foldLn', 'centreWriting', 'centreUnembed'].map((name) => (given[name] === undefined ? false : checkBoolean(fn, name, given[name])));
}

// options: draws, seed, and TransformerLens's processing steps for the heads' factors, each off by default
// (core: CompositionProcessing in circuits.hpp; a Llama's core refuses centreWriting).
export function compositionScores(model, module, options) {
  const fn = `${model.className}.compositionScores`;
  const { draws = 200, seed = 0, ...steps } = checkOptions(fn, options, ['draws', 'seed', 'foldLn', 'centreWriting']);
  checkSize(fn, 'draws', draws);
  const [fold, centre] = ['foldLn', 'centreWriting'].map((name) => (steps[name] === undefined ? false : checkBoolean(fn, name, steps[name])));
  return model.call(fn, () => raw(model, module, 'compositionScores')(model.handle(fn), draws, checkSeed(fn, seed), fold, centre));
}
