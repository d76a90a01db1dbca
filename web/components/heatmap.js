// <attn-heatmap>: one matrix as coloured cells with token labels, a colour legend, a tooltip and
// keyboard navigation.
//
// Speed: the SVG skeleton (heatmap-svg.js) is rebuilt only when the shape, labels or titles change.
// A new matrix of the same shape repaints in place: colours on a canvas under the SVG
// (heatmap-canvas.js says why), printed values by rewriting their Text nodes — a lesson redraws 8
// heatmaps per frame. No element exists per cell, so even a 100×128 table builds quickly.
//
// Accessibility: the ARIA grid pattern, virtualised as ARIA allows. The SVG is the grid and the one
// tab stop, with aria-rowcount/colcount of the whole matrix; only the active cell is present, as a
// row (aria-rowindex) holding a gridcell (aria-colindex) labelled with its exact value, and
// aria-activedescendant points at it. Each move makes a fresh cell, so screen readers announce it.
import { AttnLabError } from '../lib/errors.js';
import { attributeProperties, RenderedElement } from './base.js';
import { standaloneSVG, svgToPNG } from './export.js';
import { figureShell } from './figure.js';
import { formatExact, formatFixed, legendTickLabels } from './format.js';
import { CellCanvas } from './heatmap-canvas.js';
import { heatmapLayout, LABEL_FONT } from './heatmap-layout.js';
import { buildHeatmapSVG, relabelHeatmapSVG, cellImage, cellRects, LEGEND_STOPS } from './heatmap-svg.js';
import { LINK_PROPERTY, LINKED, tellLinked } from './link.js';
import { axisLabels, checkMatrix } from './matrix.js';
import { asIndex, checkTensorInput, indexAttributeProblem, isTensorInput, tensorSlice } from './tensor-slice.js';
import { FONT_FAMILY } from './measure.js';
import {
  BLOCKED, colorScale, dataDomain, DEFAULT_PALETTE, EMPTY_FILL, palette, PALETTES, rgbScale, scan, textColorOn,
} from './palettes.js';
import { px, svg } from './svg.js';
import { Tooltip, TOOLTIP_CSS } from './tooltip.js';

const CSS = `
.frame { position: relative; }
.frame svg { position: relative; } /* above the cells' canvas */
svg:focus { outline: none; }
svg:focus-visible { outline: 2px solid var(--attnlab-focus, currentColor); outline-offset: 3px; }
.focus-ring { display: none; }
svg:focus .focus-ring { display: inline; }
.hit { cursor: pointer; }
.values, .focus-ring, .hover-ring, .linked-ring, .highlights, .active-row { pointer-events: none; }
.linked-ring rect:last-child { stroke-dasharray: 4 3; }
.compact .values { display: none; }
:host([fit="width"]) figure { width: 100%; }
${TOOLTIP_CSS}`;

const SHOW_VALUES_MAX = 12; // showValues 'auto' prints values when both dims are at most this
const MAX_VALUE_FONT = 11;
const MIN_VALUE_FONT = 6; // SVG units: value text that would be smaller is not drawn at all
const MIN_READABLE_PX = 7; // CSS px: value text shrunk below this on a narrow screen is hidden
const MIN_LABEL_PX = 10; // CSS px: labels are drawn larger (and fewer) to stay at least this big
const MAX_LABEL_FONT = 24;
const MOVES = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0] };

let instances = 0;

// The largest matrix toSVG() writes, in cells (see toSVG).
export const MAX_SVG_CELLS = 40000;

export class AttnHeatmap extends RenderedElement {
  static upgradedProperties = ['matrix', 'rowLabels', 'colLabels', 'domain', 'highlight', 'cellName'];
  static functionProperties = ['cellName'];

  #given = null; // what the page set: a Matrix, or a tensor whose slice (batch, head) is drawn
  #matrix = null; // the matrix drawn
  #rowLabels = null;
  #colLabels = null;
  #domain = null;
  #highlight = null;
  #cellName = null;

  #id = `attn-heatmap-${++instances}`;
  #svg;
  #caption;
  #canvas = new CellCanvas();
  #tooltip = new Tooltip();
  #builtFor = ''; // the key of what the skeleton was built for: a render with the same key repaints
  #spec = null;
  #refit = false; // the container's width changed enough to want another label size
  #room = null; // the host's width as the ResizeObserver last reported it (null: not yet observed)
  // The heatmaps in the page that the ResizeObserver has not reported yet. The first of them to render
  // reads every one's width at once: a page that builds several heatmaps in one update then lays itself
  // out once for all of them, not once per heatmap (each read after another's render forces a layout).
  static #unmeasured = new Set();
  #layout = null;
  #parts = null; // the skeleton's parts (heatmap-svg.js)
  #labels = null; // { rows, cols, rowTitle, colTitle }: full texts for tooltips and screen readers
  #fill = null; // value → the CSS fill of its cell, as last painted: the exported file's rects and value inks
  #inks = [];
  #valueFont = -1;
  #active = { row: 0, col: 0 };
  #activeCell = null;
  #hovered = null; // the cell under the pointer, so cell-hover fires once per cell
  #linkedHover = null; // the row hovered in a linked view (link.js), or null
  #linkedPick = null; // the row picked in a linked view, kept until another pick
  #report; // figure.js: shows a setting that cannot be drawn honestly, or clears it

  constructor() {
    super();
    const { figure, caption, body, report } = figureShell(this, CSS, 'heatmap', 'frame');
    this.#report = report;
    this.#caption = caption;
    this.#svg = svg('svg', { role: 'grid', tabindex: 0, part: 'chart', 'font-family': FONT_FAMILY, 'aria-describedby': 'help' });
    body.append(this.#canvas.canvas, this.#svg, this.#tooltip.element);
    const help = document.createElement('p');
    help.id = 'help';
    help.className = 'sr-only';
    help.textContent = 'Arrow keys move between cells; Home and End go to the first and last cell of the row.';
    figure.append(help);

    this.#svg.addEventListener('keydown', (event) => this.#onKey(event));
    // heatmap.focus() focuses the grid (the host itself is not focusable): the arrow keys then work.
    this.focus = (options) => this.#svg.focus(options);
    this.#svg.addEventListener('focus', () => this.#showTooltip(this.#active.row, this.#active.col));
    this.#svg.addEventListener('blur', () => this.#tooltip.hide());
    this.#svg.addEventListener('pointermove', (event) => this.#onPointer(event));
    this.#svg.addEventListener('pointerleave', () => this.#onPointerLeave());
    this.#svg.addEventListener('click', (event) => {
      const cell = this.#cellAt(event);
      if (cell) this.#setActive(cell.row, cell.col);
    });
    // The host's width is the room there is (the SVG itself is at most its natural size).
    // Its reports are kept, so a rebuild (new labels) need not read clientWidth: with several
    // heatmaps rebuilding in one update, each read would force a layout of the page.
    globalThis.ResizeObserver && new ResizeObserver((entries) => {
      AttnHeatmap.#unmeasured.delete(this);
      this.#room = entries.at(-1).contentRect.width;
      this.#onResize();
    }).observe(this);
  }

  connectedCallback() {
    if (this.#room === null) AttnHeatmap.#unmeasured.add(this);
    super.connectedCallback();
  }

  disconnectedCallback() {
    AttnHeatmap.#unmeasured.delete(this);
  }

  // A Matrix, or a tensor of 2 to 4 dims — weights (batch, heads, n_q, n_k) as the package returns
  // them — of which the slice at the batch and head attributes is drawn (tensor-slice.js).
  get matrix() { return this.#given; }
  set matrix(m) {
    if (m == null) this.#given = null;
    else this.#given = isTensorInput(m) ? checkTensorInput('attn-heatmap', 'matrix', m) : checkMatrix('attn-heatmap', 'matrix', m);
    this.requestRender();
  }

  get rowLabels() { return this.#rowLabels; }
  set rowLabels(labels) { this.#rowLabels = labels ?? null; this.requestRender(); }

  get colLabels() { return this.#colLabels; }
  set colLabels(labels) { this.#colLabels = labels ?? null; this.requestRender(); }

  get domain() { return this.#domain; }
  // null: the default (palettes.js dataDomain: [0, 1] for weights on a sequential palette, symmetric
  // around 0 on a diverging one); 'data': the data's own range; or [min, max] with finite min < max.
  set domain(d) {
    if (d != null && d !== 'data' && !(Array.isArray(d) && d.length === 2 && d.every(Number.isFinite) && d[0] < d[1])) {
      throw new AttnLabError('<attn-heatmap>.domain must be [min, max] with finite min < max, \'data\' for the data\'s range, '
        + `or null for the default; got ${describeDomain(d)}`);
    }
    this.#domain = d == null ? null : d === 'data' ? 'data' : [...d];
    this.requestRender();
  }

  get highlight() { return this.#highlight; }
  set highlight(h) { this.#highlight = h ?? null; this.requestRender(); }

  // (row, col) → the cell's name in the tooltip, where "row → col" would read as a path: a grid of
  // heads names its cell "L2H3".
  get cellName() { return this.#cellName; }
  set cellName(f) { this.#cellName = typeof f === 'function' ? f : null; }

  // An SVG file holds one rect per cell: up to MAX_SVG_CELLS (a 200 × 200 matrix) it is written in a
  // moment; a larger one is refused with a message (a 2000 × 2000 matrix took 46 s and 325 M
  // characters, freezing the tab) and toPNG() exports it instead.
  toSVG() {
    this.renderNow();
    if (!this.#layout) return '';
    const { rows, cols } = this.#matrix;
    if (rows * cols > MAX_SVG_CELLS) {
      throw new AttnLabError(`<attn-heatmap>.toSVG: ${rows} × ${cols} = ${(rows * cols).toLocaleString('en')} cells is over the `
        + `${MAX_SVG_CELLS.toLocaleString('en')} an SVG file is written for (one element per cell); export it with toPNG()`);
    }
    // The file has no canvas: its cells are filled rects.
    return standaloneSVG(this.#svg, this.caption,
      (clone) => cellRects(clone.querySelector('.cells'), this.#layout, rows, cols, Array.from(this.#matrix.data, this.#fill)));
  }

  // A PNG of the figure; a matrix over MAX_SVG_CELLS has its cells drawn from the screen's canvas.
  toPNG(scale = 2) {
    this.renderNow();
    if (!this.#layout) return Promise.reject(new Error('<attn-heatmap>.toPNG: no matrix to draw'));
    const { rows, cols } = this.#matrix;
    const text = rows * cols > MAX_SVG_CELLS
      ? standaloneSVG(this.#svg, this.caption, (clone) => cellImage(clone.querySelector('.cells'), this.#layout, this.#canvas.canvas))
      : this.toSVG();
    return svgToPNG(text, scale);
  }

  render() {
    const { matrix: m, where, problem: sliceProblem } = this.#slice();
    this.#matrix = m;
    this.#caption.textContent = where ? `${this.caption}${this.caption ? ' — ' : ''}${where}` : this.caption;
    if (!m) {
      this.#report(attributeProblem(this) ?? sliceProblem ?? null);
      this.#svg.replaceChildren();
      this.#canvas.canvas.hidden = true;
      this.#layout = this.#parts = null;
      this.#builtFor = '';
      return;
    }
    const rows = axisLabels(this.#rowLabels, m.rows, { element: 'attn-heatmap', property: 'rowLabels', axis: 'rows' });
    const cols = axisLabels(this.#colLabels, m.cols, { element: 'attn-heatmap', property: 'colLabels', axis: 'columns' });
    const problem = attributeProblem(this) ?? rows.problem ?? cols.problem;
    this.#report(problem);
    if (problem) return;
    const stats = scan(m.data);
    const showValues = this.showValues === 'auto' ? m.rows <= SHOW_VALUES_MAX && m.cols <= SHOW_VALUES_MAX : this.showValues;
    const spec = { rows: m.rows, cols: m.cols, rowLabels: rows.texts, colLabels: cols.texts,
      rowTitle: this.rowTitle, colTitle: this.colTitle, blocked: stats.blocked, showValues, fit: this.fit };
    const key = JSON.stringify(spec);
    if (key !== this.#builtFor || this.#refit) {
      if (this.#refit || !this.#relabel(spec)) this.#build(spec);
      this.#builtFor = key;
    }
    this.#labels = { rows, cols, rowTitle: spec.rowTitle, colTitle: spec.colTitle };
    this.#paint(m, stats);
    this.#drawHighlights();
    this.#showLinkedRow(); // a rebuilt skeleton has a fresh, hidden outline: a kept pick goes back on
    const label = `${this.caption ? `${this.caption}: ` : ''}heatmap of ${m.rows} by ${m.cols}, `
      + `rows ${spec.rowTitle || 'rows'}, columns ${spec.colTitle || 'columns'}`;
    if (this.#svg.getAttribute('aria-label') !== label) this.#svg.setAttribute('aria-label', label);
    this.#syncActive();
  }

  // The matrix to draw: the page's Matrix, or its tensor's slice at (batch, head).
  #slice() {
    const given = this.#given;
    if (!given) return { matrix: null };
    if (!isTensorInput(given)) return { matrix: given };
    const problem = indexAttributeProblem('attn-heatmap', this, ['batch', 'head']);
    if (problem) return { matrix: null, problem };
    return tensorSlice('attn-heatmap', given, { batch: this.batch, head: this.head });
  }

  // New label texts on an otherwise unchanged skeleton: written in place when the geometry allows.
  #relabel(spec) {
    const old = this.#spec;
    if (!old || !this.#layout) return false;
    const { rowLabels, colLabels, ...rest } = spec;
    const { rowLabels: oldRows, colLabels: oldCols, ...oldRest } = old;
    if (JSON.stringify(rest) !== JSON.stringify(oldRest)) return false;
    const layout = heatmapLayout({ ...spec, font: this.#layout.font, room: this.#layout.room });
    if (!relabelHeatmapSVG(this.#parts, this.#layout, layout)) return false;
    this.#spec = spec;
    this.#layout = layout;
    return true;
  }

  #build(spec) {
    this.#spec = spec;
    this.#refit = false;
    const layout = heatmapLayout({ ...spec, font: this.#fitFont(spec) });
    this.#layout = layout;
    this.#parts = buildHeatmapSVG(this.#svg, layout, spec, this.#id);
    this.#svg.setAttribute('aria-rowcount', spec.rows);
    this.#svg.setAttribute('aria-colcount', spec.cols);
    // Natural size (max-width: 100% shrinks it to fit), or fit="width": as wide as the container.
    this.#svg.style.width = this.fit === 'width' ? '100%' : `${layout.width}px`;
    this.#canvas.canvas.hidden = false;
    this.#canvas.place(layout, spec.rows, spec.cols);
    // Over MAX_SVG_CELLS the SVG button would only refuse (toSVG says why): it is disabled, saying so.
    const svgButton = this.shadowRoot.querySelector('[part=tools] button');
    if (svgButton) {
      const large = spec.rows * spec.cols > MAX_SVG_CELLS;
      svgButton.disabled = large;
      svgButton.title = large ? `Too many cells for an SVG file (over ${MAX_SVG_CELLS.toLocaleString('en')}): download the PNG` : '';
    }
    this.#inks = new Array(this.#parts.texts.length).fill('');
    this.#valueFont = -1; // unknown: the first paint sizes the new value texts
    this.#activeCell = null;
  }

  // The label font (SVG units) that shows at least MIN_LABEL_PX once the SVG is shrunk to fit the
  // host: the layout's width grows with the font, so a couple of rounds settle it.
  #fitFont(spec) {
    if (this.#room === null && AttnHeatmap.#unmeasured.has(this)) {
      for (const heatmap of AttnHeatmap.#unmeasured) heatmap.#room = heatmap.clientWidth;  // one layout for all
      AttnHeatmap.#unmeasured.clear();
    }
    const room = this.#room ?? this.clientWidth;
    let font = LABEL_FONT;
    if (!room) return font; // not laid out (hidden, or not in the page yet)
    for (let round = 0; round < 3; round++) {
      const shown = font * Math.min(1, room / heatmapLayout({ ...spec, font }).width);
      if (shown >= MIN_LABEL_PX - 0.25 || font >= MAX_LABEL_FONT) break;
      font = Math.min(MAX_LABEL_FONT, (font * MIN_LABEL_PX) / shown);
    }
    return Math.round(font * 2) / 2;
  }

  #onResize() {
    if (!this.#layout) return;
    if (this.#fitFont(this.#spec) !== this.#layout.font) {
      this.#refit = true;
      this.requestRender();
    } else {
      this.#updateCompact();
    }
  }

  // ── painting: colours, printed values and legend for the current data ──────────────────────────

  #paint(m, stats) {
    const { diverging } = palette(this.palette);
    const domain = Array.isArray(this.#domain) ? this.#domain : dataDomain(stats, diverging, { range: this.#domain === 'data' });
    const color = colorScale(this.palette, domain);
    const blockedFill = `url(#${this.#id}-blocked)`;
    this.#fill = (v) => (v === -Infinity ? blockedFill : Number.isNaN(v) ? EMPTY_FILL : color(v));
    // The screen's cells as bytes straight into the canvas's pixels, the same colours as color()
    // names (palette-rgb.js): no string per cell, which for millions of cells took seconds.
    this.#canvas.paint(m.data, rgbScale(this.palette, domain));
    const decimals = this.decimals;
    if (this.#parts.values) this.#printValues(m.data, decimals, blockedFill);
    const [lo, hi] = domain;
    this.#parts.gradientStops.forEach((stop, k) => stop.setAttribute('stop-color', color(lo + ((hi - lo) * k) / (LEGEND_STOPS - 1))));
    const labels = legendTickLabels(lo, hi, decimals);
    this.#parts.ticks.forEach((tick, k) => { tick.textContent = labels[k]; });
  }

  // Each cell's value as text, in black or white, whichever reads on the cell's colour.
  #printValues(data, decimals, blockedFill) {
    const { texts } = this.#parts;
    let widest = 1;
    for (let i = 0; i < data.length; i++) {
      const v = data[i];
      const fill = this.#fill(v);
      const text = formatFixed(v, decimals);
      if (texts[i].data !== text) texts[i].data = text;
      if (text.length > widest) widest = text.length;
      const ink = fill === blockedFill || fill === EMPTY_FILL ? BLOCKED.text : textColorOn(fill);
      if (this.#inks[i] !== ink) {
        texts[i].parentNode.setAttribute('fill', ink);
        this.#inks[i] = ink;
      }
    }
    this.#sizeValues(widest);
  }

  // One font size for all printed values: as large as fits the widest in a cell.
  #sizeValues(widestChars) {
    const { cell } = this.#layout;
    const size = Math.min(MAX_VALUE_FONT, cell.h * 0.42, (cell.w - 4) / (widestChars * 0.6));
    const font = size >= MIN_VALUE_FONT ? px(size) : 0;
    if (font === this.#valueFont) return;
    this.#valueFont = font;
    this.#parts.values.setAttribute('font-size', font);
    this.#parts.values.setAttribute('display', font ? 'inline' : 'none');
    this.#updateCompact(); // reads layout: only when the font changed, not on every repaint
  }

  #updateCompact() {
    if (!this.#layout || !this.#parts.values) return;
    const scale = this.#svg.getBoundingClientRect().width / this.#layout.width;
    this.#svg.classList.toggle('compact', scale > 0 && this.#valueFont * scale < MIN_READABLE_PX);
  }

  #drawHighlights() {
    const group = this.#parts.highlights;
    group.replaceChildren();
    const h = this.#highlight;
    const m = this.#matrix;
    if (!h) return;
    const { cell, gridX, gridY, gridW, gridH } = this.#layout;
    const inRange = (i, n) => Number.isInteger(i) && i >= 0 && i < n;
    const boxes = [
      ...(h.rows ?? []).filter((r) => inRange(r, m.rows)).map((r) => [gridX, gridY + r * cell.h, gridW, cell.h]),
      ...(h.cols ?? []).filter((c) => inRange(c, m.cols)).map((c) => [gridX + c * cell.w, gridY, cell.w, gridH]),
      ...(h.cells ?? []).filter(([r, c]) => inRange(r, m.rows) && inRange(c, m.cols))
        .map(([r, c]) => [gridX + c * cell.w, gridY + r * cell.h, cell.w, cell.h]),
    ];
    for (const [x, y, width, height] of boxes) {
      const box = { x: px(x), y: px(y), width: px(width), height: px(height), fill: 'none' };
      svg('rect', { ...box, stroke: '#ffffff', 'stroke-width': 4 }, group);
      svg('rect', { ...box, stroke: '#000000', 'stroke-width': 2 }, group);
    }
  }

  // ── the active cell: keyboard, pointer, tooltip, screen readers ────────────────────────────────

  #onKey(event) {
    const m = this.#matrix;
    if (!m || event.altKey || event.metaKey) return;
    let { row, col } = this.#active;
    if (MOVES[event.key]) {
      row = Math.min(m.rows - 1, Math.max(0, row + MOVES[event.key][0]));
      col = Math.min(m.cols - 1, Math.max(0, col + MOVES[event.key][1]));
    } else if (event.key === 'Home') {
      col = 0;
      if (event.ctrlKey) row = 0;
    } else if (event.key === 'End') {
      col = m.cols - 1;
      if (event.ctrlKey) row = m.rows - 1;
    } else return;
    // Handled even at an edge: an enclosing <attn-stepper> must not take the arrow as "next step".
    event.preventDefault();
    this.#setActive(row, col);
  }

  // The cell under a pointer event, from its position over the grid (there are no cell elements).
  #cellAt(event) {
    if (!this.#layout || event.target !== this.#parts.hit) return null;
    const box = this.#parts.hit.getBoundingClientRect();
    const { rows, cols } = this.#matrix;
    const row = Math.floor(((event.clientY - box.top) / box.height) * rows);
    const col = Math.floor(((event.clientX - box.left) / box.width) * cols);
    return row >= 0 && row < rows && col >= 0 && col < cols ? { row, col } : null;
  }

  // A row hovered or picked in a view of the same `link` group (link.js) is outlined, dashed: one
  // query's attention in every head side by side. A heatmap has no head to show.
  [LINKED]({ kind, row }) {
    if (kind === 'hover') this.#linkedHover = row;
    else if (kind === 'pick') this.#linkedPick = row;
    else return;
    this.#showLinkedRow();
  }

  #showLinkedRow() {
    const ring = this.#parts?.linkedRing;
    if (!ring) return;
    const row = this.#linkedHover ?? this.#linkedPick;
    if (row === null || row >= this.#matrix.rows) {
      // Every render passes here: an unchanged attribute is not written again (8 heatmaps repaint per frame).
      if (ring.getAttribute('display') !== 'none') ring.setAttribute('display', 'none');
      return;
    }
    const { cell, gridX, gridY } = this.#layout;
    for (const rect of ring.children) {
      rect.setAttribute('x', px(gridX));
      rect.setAttribute('y', px(gridY + row * cell.h));
      rect.setAttribute('width', px(this.#matrix.cols * cell.w));
      rect.setAttribute('height', px(cell.h));
    }
    ring.setAttribute('display', 'inline');
  }

  #onPointer(event) {
    const cell = this.#cellAt(event);
    if (!cell) return this.#onPointerLeave();
    this.#placeRing(this.#parts.hoverRing, cell.row, cell.col);
    this.#parts.hoverRing.setAttribute('display', 'inline');
    this.#showTooltip(cell.row, cell.col, event);
    // Like cell-focus, for a page that explains whatever cell the pointer is over.
    if (cell.row !== this.#hovered?.row || cell.col !== this.#hovered?.col) {
      const newRow = cell.row !== this.#hovered?.row;
      this.#hovered = cell;
      const value = this.#matrix.data[cell.row * this.#matrix.cols + cell.col];
      this.dispatchEvent(new CustomEvent('cell-hover', { detail: { ...cell, value }, bubbles: true, composed: true }));
      if (newRow) tellLinked(this, { kind: 'hover', row: cell.row });
    }
  }

  #onPointerLeave() {
    const left = this.#hovered;
    this.#hovered = null;
    if (left) {
      // The pointer left the grid: hover ended (pages clear what they explained on cell-hover).
      this.dispatchEvent(new CustomEvent('cell-leave', { detail: { row: left.row, col: left.col }, bubbles: true, composed: true }));
      tellLinked(this, { kind: 'hover', row: null });
    }
    this.#parts?.hoverRing.setAttribute('display', 'none');
    if (this.shadowRoot.activeElement === this.#svg) this.#showTooltip(this.#active.row, this.#active.col);
    else this.#tooltip.hide();
  }

  #setActive(row, col) {
    // The active cell's row is the heatmap's pick: the linked views keep it (link.js). Sent even for
    // the same cell or row: another view of the group may have picked another row since.
    tellLinked(this, { kind: 'pick', row });
    if (row === this.#active.row && col === this.#active.col) return;
    this.#active = { row, col };
    this.#syncActive();
    if (this.shadowRoot.activeElement === this.#svg) this.#showTooltip(row, col);
    const value = this.#matrix.data[row * this.#matrix.cols + col];
    this.dispatchEvent(new CustomEvent('cell-focus', { detail: { row, col, value }, bubbles: true, composed: true }));
  }

  // Makes the ARIA row and gridcell for the active cell (replacing the last one), points
  // aria-activedescendant at it, and moves the focus ring there.
  #syncActive() {
    const m = this.#matrix;
    if (!m || !this.#layout) return;
    const row = Math.min(this.#active.row, m.rows - 1);
    const col = Math.min(this.#active.col, m.cols - 1);
    this.#active = { row, col };
    const label = this.#describe(row, col);
    const id = `${this.#id}-r${row}c${col}`;
    if (this.#activeCell?.id === id) {
      // Same cell, new data: relabel quietly (a lesson may redraw while the learner sits on a cell).
      this.#activeCell.setAttribute('aria-label', label);
    } else {
      const { cell, gridX, gridY } = this.#layout;
      const rowNode = svg('g', { role: 'row', 'aria-rowindex': row + 1 });
      this.#activeCell = svg('rect', {
        id, role: 'gridcell', 'aria-colindex': col + 1, 'aria-label': label, 'data-i': row * m.cols + col,
        x: px(gridX + col * cell.w), y: px(gridY + row * cell.h), width: px(cell.w), height: px(cell.h), fill: 'none',
      }, rowNode);
      this.#parts.activeRow.replaceChildren(rowNode);
      this.#svg.setAttribute('aria-activedescendant', id);
    }
    this.#placeRing(this.#parts.focusRing, row, col);
  }

  #placeRing(ring, row, col) {
    const { cell, gridX, gridY } = this.#layout;
    for (const rect of ring.children) {
      rect.setAttribute('x', px(gridX + col * cell.w));
      rect.setAttribute('y', px(gridY + row * cell.h));
      rect.setAttribute('width', px(cell.w));
      rect.setAttribute('height', px(cell.h));
    }
  }

  // "cat", or "Query 3" for index labels; withTitle gives "Query cat" (for screen readers, which
  // do not see which axis a token sits on).
  #axisName(axis, i, withTitle = false) {
    const { texts, custom } = this.#labels[axis];
    const title = axis === 'rows' ? this.#labels.rowTitle : this.#labels.colTitle;
    return title && (withTitle || !custom) ? `${title} ${texts[i]}` : texts[i];
  }

  #exact(row, col) {
    const v = this.#matrix.data[row * this.#matrix.cols + col];
    if (v === -Infinity) return '−∞ (masked)';
    return Number.isNaN(v) ? 'no value' : formatExact(v);
  }

  #describe(row, col) {
    return `${this.#exact(row, col)}, ${this.#axisName('rows', row, true)}, ${this.#axisName('cols', col, true)}`;
  }

  // Beside the pointer when hovering, by the active cell when it comes from the keyboard.
  #showTooltip(row, col, pointer = null) {
    if (!this.#layout) return;
    const where = this.#cellName?.(row, col) ?? `${this.#axisName('rows', row)} → ${this.#axisName('cols', col)}`;
    this.#tooltip.show(this.#exact(row, col), where, pointer ?? this.#activeCell.getBoundingClientRect());
  }
}

// Attribute values are read leniently (an unknown palette reads as the default) so that the getters
// always return something drawable; render() reports every such value instead of drawing with it.
const asDecimals = (text) => {
  const n = Number.parseInt(text, 10);
  return Number.isInteger(n) && n >= 0 && n <= 10 ? n : 2;
};
const DECIMALS_TEXT = /^(10|[0-9])$/;
const SHOW_VALUES_TEXT = new Set(['', 'true', 'false', 'auto']);

// The first attribute whose value this element cannot honour, described, or null.
function attributeProblem(element) {
  const paletteName = element.getAttribute('palette');
  if (paletteName !== null && !Object.hasOwn(PALETTES, paletteName)) {
    return `<attn-heatmap> palette="${paletteName}" is not one of ${Object.keys(PALETTES).join(', ')}`;
  }
  const decimals = element.getAttribute('decimals');
  if (decimals !== null && !DECIMALS_TEXT.test(decimals)) return `<attn-heatmap> decimals="${decimals}" must be a whole number from 0 to 10`;
  const fit = element.getAttribute('fit');
  if (fit !== null && fit !== 'natural' && fit !== 'width') return `<attn-heatmap> fit="${fit}" must be natural or width`;
  const showValues = element.getAttribute('show-values');
  if (showValues !== null && !SHOW_VALUES_TEXT.has(showValues)) return `<attn-heatmap> show-values="${showValues}" must be true, false or auto`;
  return null;
}

const describeDomain = (d) => (Array.isArray(d) ? `[${d.map(String).join(', ')}]` : typeof d === 'string' ? JSON.stringify(d) : String(d));
// show-values="" (a bare attribute) means true, like a boolean attribute.
const asShowValues = (text) => (text === 'false' ? false : text === 'auto' ? 'auto' : true);
const asPalette = (text) => (Object.hasOwn(PALETTES, text) ? text : DEFAULT_PALETTE);

attributeProperties(AttnHeatmap, {
  palette: { attr: 'palette', fallback: DEFAULT_PALETTE, parse: asPalette },
  decimals: { attr: 'decimals', fallback: 2, parse: asDecimals },
  showValues: { attr: 'show-values', fallback: 'auto', parse: asShowValues },
  caption: { attr: 'caption', fallback: '' },
  fit: { attr: 'fit', fallback: 'natural', parse: (text) => (text === 'width' ? 'width' : 'natural') },
  rowTitle: { attr: 'row-title', fallback: 'Query' },
  link: LINK_PROPERTY,
  colTitle: { attr: 'col-title', fallback: 'Key' },
  // Which slice of a tensor matrix is drawn: (batch, heads, n_q, n_k)[batch][head].
  batch: { attr: 'batch', fallback: 0, parse: asIndex },
  head: { attr: 'head', fallback: 0, parse: asIndex },
});
