// <attn-head-view>: one head's attention as BertViz's head view draws it — the tokens twice, queries
// on the left and keys on the right, and a line from each query to every key it attends to whose
// opacity is the weight. Hovering (or, with the keyboard, choosing) a token on the left leaves only
// its lines and prints their weights beside the keys; hovering a key on the right leaves the lines
// into it. Given a layer's heads (Matrix[]), it shows a head picker. With a `link` group it shows the
// query row and the head chosen in the group's other views, and they show its own (link.js).
// Cross-attention: given `keyTokens` (the source words), the weights are queries × keys of two
// different lists — target words on the left, source words on the right — and may be rectangular.
import { attributeProperties, RenderedElement } from './base.js';
import { standaloneSVG, svgToPNG } from './export.js';
import { figureShell } from './figure.js';
import { formatFixed } from './format.js';
import { LINK_PROPERTY, LINKED, QUERY_PROPERTY, tellLinked } from './link.js';
import { fitText, FONT_FAMILY, textWidth } from './measure.js';
import { describeRow, QueryPicker } from './query-picker.js';
import { px, svg, svgText } from './svg.js';
import { INK } from './theme.js';
import { weightColor } from './weight-scale.js';
import { checkHeads, checkTokens, checkWeights, indexProblem, tokenProblem } from './weights-input.js';

const TAG = 'attn-head-view';
const CSS = `
.picker { display: flex; flex-wrap: wrap; gap: 0.3rem; align-items: center; margin: 0 0 0.5rem; font-size: 0.9rem; }
.picker[hidden] { display: none; }
/* The chosen head: a tint of the text colour, a full-colour border and bold text. Its text stays the
   page's text colour, readable wherever the page's text is, whatever background the page sets. */
.picker button[aria-pressed="true"] { background: color-mix(in srgb, currentColor 20%, transparent); border-color: currentColor;
  box-shadow: inset 0 0 0 1px currentColor; font-weight: 700; }
.lines svg { display: block; max-width: 100%; height: auto; }
svg:focus { outline: none; }
svg:focus-visible { outline: 2px solid var(--attnlab-focus, currentColor); outline-offset: 2px; }
.token { cursor: pointer; }
.active-token { font-weight: 700; }
.note { margin: 0.35rem 0 0; font-size: 0.85rem; color: var(--attnlab-ink-muted); }
`;

const FONT = 13;
const ROW = 20;
const GAP = 150; // between the two columns of tokens, where the lines run
const VALUE_SPACE = 44; // right of the keys: the printed weights of the query shown
const MAX_LABEL = 130;
const MIN_DRAWN = 0.01; // lines of smaller weight would be invisible: not drawn at all
// Lines are drawn as one <path> per opacity, the weight to 2 decimals (at most 100 paths, not one
// <line> per weight): a 40-token prompt has some 800 lines, and building, attributing and laying out
// that many elements took most of an edit's time in the every-head lesson.
const OPACITY_STEPS = 100;
// The lines' colour: a step of the weight scale dark enough to show at low opacity on a light page
// and light enough on a dark one; the opacity carries the weight.
const LINE = weightColor(0.8);

export class AttnHeadView extends RenderedElement {
  static upgradedProperties = ['attention', 'tokens', 'keyTokens'];

  #heads = null; // Matrix[]: one entry when a single matrix was given
  #single = false;
  #tokens = null;
  #keyTokens = null;  // the keys' labels when they are not the queries' (cross-attention)
  #picker = document.createElement('div');
  #svg = svg('svg', { role: 'listbox', tabindex: 0, part: 'chart', 'font-family': FONT_FAMILY, 'font-size': FONT });
  #note = document.createElement('p');
  #built = null; // { matrix, n, labels, lineGroup, ends, options[i], values[j], keys[j] } of the last build
  #query = new QueryPicker(this, { back: 'ArrowUp', forward: 'ArrowDown', where: () => this.#where() });
  #key = null; // the key token hovered on the right, or null
  #caption;
  #report;

  constructor() {
    super();
    const { caption, body, report } = figureShell(this, CSS, 'head view', 'lines');
    this.#caption = caption;
    this.#report = report;
    this.#picker.className = 'picker';
    this.#picker.setAttribute('role', 'group');
    this.#picker.setAttribute('aria-label', 'Head');
    this.#picker.setAttribute('part', 'picker');
    this.#note.className = 'note';
    this.#note.textContent = 'Line opacity = weight (under 0.01: no line). Point at or tap a token, or use the arrow keys, to see one token’s lines.';
    body.append(this.#picker, this.#svg, this.#note);
    this.#svg.addEventListener('keydown', (event) => { if (this.#query.key(event, this.#built?.n ?? 0)) this.#show(); });
    this.#svg.addEventListener('focus', () => { this.#query.focused = true; this.#show(); });
    this.#svg.addEventListener('blur', () => { this.#query.focused = false; this.#show(); });
    this.#svg.addEventListener('pointerleave', () => { this.#query.hovered = this.#key = null; this.#show(); });
  }

  get attention() { return this.#single ? this.#heads?.[0] ?? null : this.#heads; }
  // One Matrix of weights (queries × keys: n×n, or any shape for cross-attention), or a layer's heads
  // (Matrix[]) with a picker; errors name the property.
  set attention(value) {
    this.#single = value != null && !Array.isArray(value);
    const square = { square: false };  // a non-square one needs keyTokens: checked when drawing
    if (value == null) this.#heads = null;
    else this.#heads = this.#single ? [checkWeights(TAG, 'attention', value, square)] : checkHeads(TAG, 'attention', value, null, square);
    this.requestRender();
  }

  // The queries' labels (and the keys', unless keyTokens is set).
  get tokens() { return this.#tokens; }
  set tokens(list) {
    this.#tokens = checkTokens(TAG, list);
    this.requestRender();
  }

  // The keys' labels when they are another sequence's (cross-attention: the source words), or null.
  get keyTokens() { return this.#keyTokens; }
  set keyTokens(list) {
    this.#keyTokens = checkTokens(TAG, list, 'keyTokens');
    this.requestRender();
  }

  // A row hovered or picked in a linked view is shown as if chosen here; a picked head is shown when
  // it is one of this view's: the same `layer` attribute (or neither knows its layer), and a head
  // picker to show it with.
  [LINKED](message) {
    if (message.kind === 'head') {
      const heads = this.#heads;
      if (!this.#single && heads && message.head < heads.length && message.layer === this.#layer()) this.setAttribute('head', String(message.head));
      return;
    }
    if (this.#query.receive(message, this.#built?.n ?? 0)) this.#show();
  }

  // The `layer` attribute: which layer the heads are from, for linked views and row-hover (null: unknown).
  #layer() {
    const text = this.getAttribute('layer');
    return text !== null && /^\d+$/.test(text) ? Number(text) : null;
  }

  // The head whose rows the reader points at (row-hover's detail); a single matrix is no known head.
  #where() {
    return { layer: this.#layer(), head: this.#single ? null : Number(this.getAttribute('head') ?? 0) };
  }

  toSVG() {
    this.renderNow();
    return this.#built ? standaloneSVG(this.#svg, this.caption) : '';
  }

  toPNG(scale = 2) {
    const text = this.toSVG();
    return text ? svgToPNG(text, scale) : Promise.reject(new Error(`<${TAG}>.toPNG: no attention to draw`));
  }

  render() {
    this.#caption.textContent = this.caption;
    const heads = this.#heads;
    if (!heads) {
      this.#report(null);
      this.#svg.replaceChildren();
      this.#built = null;
      return;
    }
    const { rows: n, cols } = heads[0];
    const shape = `${n}×${cols}`;
    const problem = indexProblem(TAG, 'head', this.getAttribute('head'), heads.length, 'heads')
      ?? indexProblem(TAG, 'layer', this.getAttribute('layer'), Infinity, 'layers')  // any whole number: one layer is all it holds
      ?? indexProblem(TAG, 'query', this.getAttribute('query'), n, 'tokens') ?? tokenProblem(TAG, this.#tokens, n, { shape })
      ?? (this.#keyTokens ? tokenProblem(TAG, this.#keyTokens, cols, { property: 'keyTokens', shape })
        : n === cols ? null : `<${TAG}>.attention is ${shape}: queries and keys differ, so give keyTokens (the ${cols} keys' labels)`);
    this.#report(problem);
    if (problem) return;
    const head = Number(this.getAttribute('head') ?? 0);
    this.#drawPicker(heads.length, head);
    const labels = this.#tokens ?? Array.from({ length: n }, (_, i) => String(i));
    const keyLabels = this.#keyTokens ?? (this.#tokens ? labels : Array.from({ length: cols }, (_, j) => String(j)));
    const matrix = heads[head];
    const same = (a, b) => a.join('\u0000') === b.join('\u0000');
    if (this.#built?.matrix !== matrix || !same(this.#built.labels, labels) || !same(this.#built.keyLabels, keyLabels)) {
      this.#build(matrix, labels, keyLabels);
    }
    this.#query.active = Math.min(this.#query.active, n - 1);
    this.#show();
  }

  #drawPicker(count, head) {
    this.#picker.hidden = this.#single || count < 2;
    if (this.#picker.hidden) return;
    if (this.#picker.children.length !== count + 1) {
      const label = Object.assign(document.createElement('span'), { textContent: 'Head' });
      label.setAttribute('aria-hidden', 'true');
      const buttons = Array.from({ length: count }, (_, h) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.setAttribute('part', 'button');
        button.setAttribute('aria-label', `Head ${h}`);
        button.append(Object.assign(document.createElement('span'), { textContent: String(h) }));
        button.addEventListener('click', () => {
          this.setAttribute('head', String(h));
          this.dispatchEvent(new CustomEvent('head-select', { detail: { head: h }, bubbles: true, composed: true }));
          tellLinked(this, { kind: 'head', layer: this.#layer(), head: h });
        });
        return button;
      });
      this.#picker.replaceChildren(label, ...buttons);
    }
    [...this.#picker.querySelectorAll('button')].forEach((b, h) => b.setAttribute('aria-pressed', String(h === head)));
  }

  // The skeleton for one matrix: labels, hit areas, the group the lines go in, value slots.
  #build(matrix, labels, keyLabels) {
    const { rows: n, cols: m } = matrix;
    const texts = labels.map((l) => fitText(l, FONT, MAX_LABEL));
    const keyTexts = keyLabels.map((l) => fitText(l, FONT, MAX_LABEL));
    const column = Math.ceil(Math.max(24, ...texts.map((t) => textWidth(t, FONT)))) + 8;
    const keyColumn = Math.ceil(Math.max(24, ...keyTexts.map((t) => textWidth(t, FONT)))) + 8;
    const left = column;
    const right = column + GAP;
    const width = right + keyColumn + VALUE_SPACE;
    const height = Math.max(n, m) * ROW + 8;
    const y = (i) => 4 + (i + 0.5) * ROW;
    const root = this.#svg;
    root.replaceChildren();
    root.setAttribute('viewBox', `0 0 ${width} ${height}`);
    root.style.width = `${width}px`;
    const what = n === m && keyLabels === labels ? `${n} tokens` : `${n} queries over ${m} keys`;
    root.setAttribute('aria-label', `${this.caption ? `${this.caption}: ` : ''}attention of ${what}; choose a query token to hear its weights`);
    const lineGroup = svg('g', { 'aria-hidden': 'true', stroke: LINE, 'stroke-width': 2, fill: 'none' }, root);
    const ends = { x1: left + 4, x2: right - 4, y: Array.from({ length: Math.max(n, m) }, (_, i) => px(y(i))) };
    const text = svg('g', { 'aria-hidden': 'true', part: 'labels', fill: 'currentColor', [INK]: 'fill' }, root);
    const keys = keyTexts.map((t, j) => svgText(t, { x: right, y: px(y(j)), dy: '0.35em', class: 'token' }, text));
    const queries = texts.map((t, i) => svgText(t, { x: left, y: px(y(i)), dy: '0.35em', 'text-anchor': 'end', class: 'token' }, text));
    const values = keyTexts.map((_, j) => svgText('', { x: width - 4, y: px(y(j)), dy: '0.35em', 'text-anchor': 'end', 'font-size': FONT - 1 }, text));
    // Hit areas: a row's height across each column of tokens.
    const hits = svg('g', { 'aria-hidden': 'true', fill: 'transparent', 'data-screen-only': '' }, root);
    for (let i = 0; i < n; i++) {
      const query = svg('rect', { x: 0, y: px(y(i) - ROW / 2), width: left + 4, height: ROW }, hits);
      query.addEventListener('pointerenter', () => { this.#key = null; this.#query.hovered = i; this.#show(); });
      query.addEventListener('pointerdown', () => { this.#key = null; this.#query.pick(i); this.#show(); });
    }
    for (let j = 0; j < m; j++) {
      const key = svg('rect', { x: right - 4, y: px(y(j) - ROW / 2), width: keyColumn + VALUE_SPACE + 4, height: ROW }, hits);
      key.addEventListener('pointerenter', () => { this.#query.hovered = null; this.#key = j; this.#show(); });
    }
    // The listbox's options (one per query token), labelled with its largest weights.
    const options = labels.map((label, i) => svg('rect', { role: 'option', id: `q${i}`, x: 0, y: px(y(i) - ROW / 2), width: left, height: ROW,
      fill: 'none', 'aria-label': describeRow(label, keyLabels, matrix, i), 'data-screen-only': '' }, root));
    this.#built = { matrix, n, m, labels, keyLabels, lineGroup, ends, keys, queries, values, options };
  }

  // Shows the lines of the query shown (or into the key hovered, or all), its weights beside the keys.
  #show() {
    const built = this.#built;
    if (!built) return;
    const query = this.#key === null ? this.#query.shown() : null;
    const { n, m, matrix } = built;
    this.#drawLines(query, this.#key);
    for (let i = 0; i < n; i++) {
      built.queries[i].classList.toggle('active-token', query === i);
      built.options[i].setAttribute('aria-selected', String(query === i));
    }
    for (let j = 0; j < m; j++) {
      built.keys[j].classList.toggle('active-token', this.#key === j);
      built.values[j].textContent = query === null ? '' : formatFixed(matrix.data[query * m + j], 2);
    }
    if (this.#query.focused) this.#svg.setAttribute('aria-activedescendant', `q${this.#query.active}`);
    else this.#svg.removeAttribute('aria-activedescendant');
    this.#query.announce();
  }

  // The lines from `query` (null: every query) into `key` (null: every key), one path per opacity.
  #drawLines(query, key) {
    const { n, m, matrix, lineGroup, ends } = this.#built;
    const segments = new Map(); // opacity step → "M … L …" of its lines
    for (let i = query ?? 0; i < (query === null ? n : query + 1); i++) {
      for (let j = key ?? 0; j < (key === null ? m : key + 1); j++) {
        const w = matrix.data[i * m + j];
        if (!(w >= MIN_DRAWN)) continue;
        const step = Math.round(Math.min(1, w) * OPACITY_STEPS);
        segments.set(step, `${segments.get(step) ?? ''}M${ends.x1} ${ends.y[i]}L${ends.x2} ${ends.y[j]}`);
      }
    }
    lineGroup.replaceChildren(...[...segments].map(([step, d]) => svg('path', { d, 'stroke-opacity': step / OPACITY_STEPS })));
  }
}

// head: the head shown of a layer's heads; layer: the layer they are from (for linked views and
// row-hover); query: the query token shown when no token is hovered or chosen (absent: all lines);
// link: the link group; caption; no-export.
attributeProperties(AttnHeadView, {
  caption: { attr: 'caption', fallback: '' },
  query: QUERY_PROPERTY,
  link: LINK_PROPERTY,
});
Object.defineProperty(AttnHeadView, 'observedAttributes', { configurable: true, get: () => ['caption', 'head', 'layer', 'query'] });
