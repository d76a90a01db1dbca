// <attn-stepper>: walks through a trace (Step[] from lab.MultiHeadAttention(...).trace(x)) one
// step at a time — its title, its explanation and each of its tensors as a labelled heatmap. Picking
// a cell of the step's result outlines the operands it came from (the row of Q and the row of K
// behind a score), so a lesson can point at "q_i · k_j".
import { AttnLabError } from '../lib/errors.js';
import { checkTensor, shapeText } from '../lib/tensor.js';
import { attributeProperties, RenderedElement } from './base.js';
import { PALETTES } from './palettes.js';
import { adoptStyles } from './styles.js';
import { DEFAULT_PALETTES, headOfStep, operandHighlight, tensorView } from './tensor-roles.js';
import { checkMatrix } from './matrix.js';
import { indexProblem } from './weights-input.js';

const CSS = `
.nav { display: flex; align-items: center; flex-wrap: wrap; gap: 0.5rem; }
.count { margin: 0 0 0 0.25rem; font-size: 0.9rem; color: var(--attnlab-ink-muted); font-variant-numeric: tabular-nums; }
.title { margin: 0.6rem 0 0.2rem; font-size: 1.1rem; font-weight: 700; }
.explanation { margin: 0 0 0.8rem; line-height: 1.45; overflow-wrap: anywhere; }
.problem { margin: 0.5rem 0; font-weight: 600; }
.tensors {
  display: grid; gap: 1rem 1.25rem; align-items: start;
  grid-template-columns: repeat(auto-fit, minmax(min(100%, 15rem), 1fr));
}
`;

// Where the focus is typing, arrow keys belong to the text, not to the stepper.
const TEXT_ENTRY = new Set(['INPUT', 'TEXTAREA', 'SELECT']);

export class AttnStepper extends RenderedElement {
  static upgradedProperties = ['steps', 'index', 'labels', 'highlightOperands'];

  #steps = [];
  #index = 0;
  #labels = {};
  #highlightOperands = true;
  #shownIndex = -1;
  #heatmaps = []; // one per tensor of the shown step, reused from step to step
  #names = [];
  #prev;
  #next;
  #count;
  #status;
  #title;
  #explanation;
  #tensors;
  #problem;
  #reported = '';

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    const group = document.createElement('div');
    group.setAttribute('role', 'group');
    group.setAttribute('aria-label', 'Steps of the computation');
    const nav = document.createElement('div');
    nav.className = 'nav';
    nav.setAttribute('part', 'nav');
    this.#prev = this.#button('←', 'Previous', -1);
    this.#next = this.#button('→', 'Next', 1);
    this.#count = document.createElement('p');
    this.#count.className = 'count';
    nav.append(this.#prev, this.#next, this.#count);
    // Announces "Step 3 of 19: Scores QKᵀ" when the step changes.
    this.#status = document.createElement('p');
    this.#status.className = 'sr-only';
    this.#status.setAttribute('aria-live', 'polite');
    this.#title = document.createElement('p');
    this.#title.className = 'title';
    this.#title.setAttribute('part', 'title');
    this.#explanation = document.createElement('p');
    this.#explanation.className = 'explanation';
    this.#explanation.setAttribute('part', 'explanation');
    this.#tensors = document.createElement('div');
    this.#tensors.className = 'tensors';
    this.#problem = document.createElement('p');
    this.#problem.className = 'problem';
    this.#problem.setAttribute('part', 'problem');
    this.#problem.setAttribute('role', 'alert');
    this.#problem.hidden = true;
    group.append(nav, this.#problem, this.#status, this.#title, this.#explanation, this.#tensors);
    adoptStyles(root, CSS);
    root.append(group);

    this.#tensors.addEventListener('cell-focus', (event) => this.#outlineOperands(event));
    this.addEventListener('keydown', (event) => this.#onKey(event));
  }

  get steps() { return this.#steps; }
  // Keeps the index (clamped): a lesson recomputes after an edit and stays on the same step.
  // null or undefined is no steps; anything else must be steps as a trace gives them, or it is an
  // AttnLabError naming what is wrong (never "No steps" or an empty step in silence).
  set steps(list) {
    this.#steps = list == null ? [] : checkSteps(list);
    this.requestRender();
  }

  // The steps on show: all of them, or with head="h" the shared steps and head h's own.
  get shownSteps() { return this.#shown(this.#settingProblem()); }

  // shownSteps, given what #settingProblem() said (a head that is not there filters nothing).
  #shown(problem) {
    const head = this.getAttribute('head');
    if (head === null || problem) return this.#steps;
    return this.#steps.filter((step) => [null, Number(head)].includes(headOfStep(step)));
  }

  // An index into shownSteps.
  get index() { return this.#clamped(this.shownSteps.length); }
  #clamped(count) { return Math.max(0, Math.min(this.#index, count - 1)); }
  set index(i) {
    this.#index = Number.isInteger(i) ? i : 0;
    this.requestRender();
  }

  get labels() { return this.#labels; }
  set labels(l) {
    this.#labels = l ?? {};
    this.requestRender();
  }

  get highlightOperands() { return this.#highlightOperands; }
  set highlightOperands(on) {
    this.#highlightOperands = Boolean(on);
    if (!on) for (const heatmap of this.#heatmaps) heatmap.highlight = null;
  }

  render() {
    const problem = this.#settingProblem(); // asked once: it scans every step
    this.#report(problem);
    const shown = this.#shown(problem);
    const steps = problem ? [] : shown;
    const n = steps.length;
    const index = this.#clamped(shown.length); // kept while a setting is refused
    this.#index = index;
    this.#prev.disabled = index <= 0;
    this.#next.disabled = index >= n - 1;
    this.#keepFocusOnButtons();
    const step = steps[index];
    this.#count.textContent = n ? `Step ${index + 1} of ${n}` : 'No steps';
    this.#title.textContent = step?.title ?? '';
    this.#explanation.textContent = step?.explanation ?? '';
    if (index !== this.#shownIndex) this.#status.textContent = step ? `Step ${index + 1} of ${n}: ${step.title}` : '';
    this.#showTensors(step?.tensors ?? {}, index !== this.#shownIndex);
    this.#shownIndex = index;
  }

  #showTensors(tensors, newStep) {
    // The stepper's own display options, passed to every heatmap it draws.
    const shared = { decimals: this.decimals, showValues: this.showValues };
    const palettes = { weights: this.palette, signed: this.signedPalette };
    this.#names = Object.keys(tensors);
    while (this.#heatmaps.length > this.#names.length) this.#heatmaps.pop().remove();
    while (this.#heatmaps.length < this.#names.length) {
      const heatmap = document.createElement('attn-heatmap');
      this.#tensors.append(heatmap);
      this.#heatmaps.push(heatmap);
    }
    this.#names.forEach((name, k) => {
      const m = drawable(tensors[name]);
      const view = tensorView(name, m, this.#labels, palettes);
      const heatmap = this.#heatmaps[k];
      heatmap.toggleAttribute('no-export', this.hasAttribute('no-export'));
      Object.assign(heatmap, {
        matrix: { rows: m.rows, cols: m.cols, data: m.data }, caption: `${name}  ${captionShape(m)}`,
        palette: view.palette, domain: view.domain,
        showValues: shared.showValues,
        // A mask prints 0/1 whatever the stepper's decimals; everything else takes the stepper's.
        decimals: view.decimals === 0 ? 0 : shared.decimals,
        rowTitle: view.rowTitle, colTitle: view.colTitle, rowLabels: view.rowLabels, colLabels: view.colLabels,
      });
      if (newStep) this.#heatmaps[k].highlight = null;
    });
  }

  // The first setting the stepper cannot honour, described, or null: a head the trace does not have,
  // a palette of the wrong kind for its numbers.
  #settingProblem() {
    const weights = this.getAttribute('palette');
    if (weights !== null && PALETTES[weights]?.diverging !== false) {
      return `<attn-stepper> palette="${weights}" must be a sequential palette for weights in [0, 1]: ${sequentialNames().join(', ')}`;
    }
    const signed = this.getAttribute('signed-palette');
    if (signed !== null && PALETTES[signed]?.diverging !== true) {
      return `<attn-stepper> signed-palette="${signed}" must be a diverging palette centred on 0: ${divergingNames().join(', ')}`;
    }
    const decimals = this.getAttribute('decimals');
    if (decimals !== null && !/^(10|[0-9])$/.test(decimals)) {
      return `<attn-stepper> decimals="${decimals}" must be a whole number from 0 to 10`;
    }
    const labels = this.#labelsProblem();
    if (labels) return labels;
    // A trace without per-head steps is one head's: head="0" is it, any other head is not there.
    const heads = Math.max(0, ...this.#steps.map((step) => headOfStep(step) ?? 0)) + 1;
    return indexProblem('attn-stepper', 'head', this.getAttribute('head'), heads, 'heads');
  }

  // labels.rows / labels.cols must have one label per query / key token of the trace's attention
  // (its first n_q × n_k tensor), or the figures would fall back to indices in silence.
  #labelsProblem() {
    const attention = this.#steps.flatMap((step) => Object.entries(step.tensors))
      .find(([name]) => /^(scores|scaled_scores|masked_scores|weights)$/.test(name))?.[1];
    if (!attention) return null;
    // A tensor's attention (batch, heads, n_q, n_k): its last two dims are the queries and keys.
    const [n_q, n_k] = Array.isArray(attention.shape) ? attention.shape.slice(-2) : [attention.rows, attention.cols];
    const { rows, cols } = this.#labels ?? {};
    for (const [axis, list, count, what] of [['rows', rows, n_q, 'query'], ['cols', cols, n_k, 'key']]) {
      if (list == null) continue;
      if (!Array.isArray(list) || list.length !== count) {
        const got = Array.isArray(list) ? `${list.length} label${list.length === 1 ? '' : 's'}` : `a ${typeof list}`;
        return `<attn-stepper>.labels.${axis} has ${got} but the trace has ${count} ${what} token${count === 1 ? '' : 's'}`;
      }
    }
    return null;
  }

  // Shows a setting it cannot draw in place of the steps, logged once as an AttnLabError.
  #report(message) {
    this.#problem.hidden = !message;
    this.#problem.textContent = message ?? '';
    if (message && message !== this.#reported) console.error(new AttnLabError(message));
    this.#reported = message ?? '';
  }

  // A cell picked in the step's result (its last tensor) outlines what it was computed from.
  #outlineOperands(event) {
    const last = this.#heatmaps.length - 1;
    if (!this.#highlightOperands || last < 1 || event.target !== this.#heatmaps[last]) return;
    const { row, col } = event.detail;
    this.#heatmaps.slice(0, last).forEach((heatmap, k) => {
      heatmap.highlight = operandHighlight(this.#names[last], this.#names[k], row, col);
    });
  }

  #button(arrow, label, delta) {
    const button = document.createElement('button');
    button.type = 'button';
    button.setAttribute('part', 'button');
    const icon = document.createElement('span');
    icon.setAttribute('aria-hidden', 'true');
    icon.textContent = arrow;
    button.append(...(delta < 0 ? [icon, ` ${label}`] : [`${label} `, icon]));
    button.addEventListener('click', () => this.#go(delta));
    return button;
  }

  #onKey(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const origin = event.composedPath()[0];
    if (TEXT_ENTRY.has(origin?.tagName) || origin?.isContentEditable) return;
    const delta = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
    if (!delta) return;
    event.preventDefault();
    this.#go(delta);
  }

  #go(delta) {
    const steps = this.shownSteps;
    const index = Math.max(0, Math.min(this.index + delta, steps.length - 1));
    if (index === this.index) return;
    this.#index = index;
    this.requestRender();
    this.renderNow();
    this.dispatchEvent(new CustomEvent('step-change', {
      detail: { index, step: steps[index] }, bubbles: true, composed: true,
    }));
  }

  // A button that just became disabled (Next on the last step) would drop the focus to <body>.
  #keepFocusOnButtons() {
    const focused = this.shadowRoot.activeElement;
    if (focused === this.#next && this.#next.disabled && !this.#prev.disabled) this.#prev.focus();
    if (focused === this.#prev && this.#prev.disabled && !this.#next.disabled) this.#next.focus();
  }
}

const sequentialNames = () => Object.keys(PALETTES).filter((name) => !PALETTES[name].diverging);
const divergingNames = () => Object.keys(PALETTES).filter((name) => PALETTES[name].diverging);

// A step's tensor as the heatmap draws it: a Matrix as it is; a tensor { shape, data } (the trace of a
// tensor call, mha.trace(x)) as its rows — [numel / last dim × last dim], the numbers in memory order —
// keeping its shape for the caption.
function drawable(t) {
  if (!Array.isArray(t.shape)) return t;
  const cols = t.shape.at(-1);
  return { rows: t.data.length / cols, cols, data: t.data, shape: t.shape };
}

// "(5, 4)" for a Matrix; a tensor's own tuple, and how it is drawn when it has more than two dims.
const captionShape = (m) => (!m.shape ? `(${m.rows}, ${m.cols})`
  : `${shapeText(m.shape)}${m.shape.length > 2 ? `, drawn as ${m.rows} rows of ${m.cols}` : ''}`);

// Steps as lab.traceAttention (or any trace) returns them: each { title, explanation, tensors } with
// tensors an object of at least one { rows, cols, data } Matrix or { shape, data } tensor (a tensor
// call's trace). → the list, or an AttnLabError.
function checkSteps(list) {
  const kind = (v) => (Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v === 'string' ? `the string ${JSON.stringify(v.slice(0, 20))}` : typeof v);
  if (!Array.isArray(list)) {
    throw new AttnLabError(`<attn-stepper>.steps must be an array of steps { title, explanation, tensors } (as lab.traceAttention returns), got ${kind(list)}`);
  }
  list.forEach((step, i) => {
    if (step === null || typeof step !== 'object') throw new AttnLabError(`<attn-stepper>.steps[${i}] must be a step { title, explanation, tensors }, got ${kind(step)}`);
    for (const field of ['title', 'explanation']) {
      if (typeof step[field] !== 'string') throw new AttnLabError(`<attn-stepper>.steps[${i}].${field} must be a string, got ${kind(step[field])}`);
    }
    const tensors = step.tensors;
    if (tensors === null || typeof tensors !== 'object' || Object.keys(tensors).length === 0) {
      throw new AttnLabError(`<attn-stepper>.steps[${i}].tensors must be an object of one or more { rows, cols, data } matrices, got ${kind(tensors)}`);
    }
    for (const [name, m] of Object.entries(tensors)) {
      const where = `steps[${i}].tensors.${name}`;
      if (Array.isArray(m?.shape)) checkTensor('<attn-stepper>', where, m);
      else checkMatrix('attn-stepper', where, m);
    }
  });
  return list;
}

// Display options for every heatmap of every step (attributes, like <attn-heatmap>'s): decimals,
// show-values ('auto' | true | false); palette (weights and masks, on [0, 1]) and signed-palette
// (everything else, centred on 0); no-export (a boolean attribute) hides their SVG/PNG buttons.
// head="h" shows only the steps of head h and those every head shares.
attributeProperties(AttnStepper, {
  decimals: { attr: 'decimals', fallback: 2, parse: (text) => Number.parseInt(text, 10) },
  showValues: { attr: 'show-values', fallback: 'auto', parse: (text) => (text === 'false' ? false : text === 'auto' ? 'auto' : true) },
  palette: { attr: 'palette', fallback: DEFAULT_PALETTES.weights },
  signedPalette: { attr: 'signed-palette', fallback: DEFAULT_PALETTES.signed },
  head: { attr: 'head', fallback: null, parse: Number },
});
Object.defineProperty(AttnStepper, 'observedAttributes', {
  configurable: true,
  get: () => ['decimals', 'show-values', 'no-export', 'palette', 'signed-palette', 'head'],
});
