// <pe-plot>: a positional-encoding table (positions × dims) drawn as the tutorials draw it — a few
// dimensions as curves over the positions, each a sinusoid of its own frequency — or, in
// mode="heatmap", the whole table as an <attn-heatmap> with a diverging palette.
import { AttnLabError } from '../lib/errors.js';
import { attributeProperties, RenderedElement } from './base.js';
import { standaloneSVG, svgToPNG } from './export.js';
import { figureShell } from './figure.js';
import { formatTick } from './format.js';
import { checkMatrix } from './matrix.js';
import { FONT_FAMILY, textWidth } from './measure.js';
import { niceTicks } from './ticks.js';
import { px, svg, svgText } from './svg.js';
import { INK } from './theme.js';

const CSS = `
.plot svg { overflow: visible; }
`;

// Okabe–Ito colours (distinguishable with every common colour-vision deficiency), the darker ones
// first (the pale orange and sky blue are faint on white); dash patterns tell curves apart in greyscale.
// Okabe–Ito's black is the page's text colour instead, so that it shows on a dark page too.
const COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', 'currentColor', '#E69F00', '#56B4E9'];
// The theme marks (theme.js) for a stroke of one of these colours: currentColor is resolved on export.
const inkOf = (color) => (color === 'currentColor' ? { [INK]: 'stroke' } : {});
const DASHES = ['none', '7 4', '2 3', '10 3 2 3', '4 2', '1 2 6 2', '12 4'];
// The chart is laid out for its container's width (text stays 12 px on a phone, where a scaled
// 640-unit drawing would shrink it to 7 px), between these bounds.
const MAX_WIDTH = 640;
const MIN_WIDTH = 300;
const FONT = 12;
const MARGIN = { left: 52, right: 14, bottom: 44 };

// Legend entries in rows that fit the plot's width; returns their positions and the rows' height.
function legendLayout(names, left, right) {
  const entries = [];
  let x = left;
  let y = 10;
  for (const name of names) {
    const w = 28 + textWidth(name, FONT) + 18;
    if (x + w > right && x > left) {
      x = left;
      y += FONT + 8;
    }
    entries.push({ name, x, y });
    x += w;
  }
  return { entries, height: y + FONT };
}

export class PePlot extends RenderedElement {
  static upgradedProperties = ['matrix', 'dims'];

  #matrix = null;
  #dims = [0, 1, 4, 8];
  #caption;
  #body;
  #svg = null;
  #heatmap = null;
  #width = MAX_WIDTH;
  #report; // figure.js: shows a setting that cannot be drawn honestly, or clears it

  constructor() {
    super();
    ({ caption: this.#caption, body: this.#body, report: this.#report } = figureShell(this, CSS, 'plot', 'plot'));
    globalThis.ResizeObserver && new ResizeObserver(([entry]) => {
      const width = Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, Math.floor(entry.contentRect.width)));
      if (width === this.#width) return;
      this.#width = width;
      if (this.#svg) this.requestRender();
    }).observe(this);
  }

  get matrix() { return this.#matrix; }
  set matrix(m) {
    this.#matrix = m == null ? null : checkMatrix('pe-plot', 'matrix', m, { finite: true });
    this.requestRender();
  }

  get dims() { return this.#dims; }
  // null: dims 0, 1, 4 and 8. A list must hold whole numbers; render() checks them against the table.
  set dims(list) {
    if (list != null && !(Array.isArray(list) && list.every(Number.isInteger))) {
      throw new AttnLabError(`<pe-plot>.dims must be a list of whole numbers (dimension indices), or null; got ${Array.isArray(list) ? `[${list.map(String).join(', ')}]` : String(list)}`);
    }
    this.#dims = list == null ? [0, 1, 4, 8] : [...list];
    this.requestRender();
  }

  toSVG() {
    this.renderNow();
    if (this.#heatmap) return this.#heatmap.toSVG();
    return this.#svg ? standaloneSVG(this.#svg, this.caption) : '';
  }

  toPNG(scale = 2) {
    const text = this.toSVG();
    return text ? svgToPNG(text, scale) : Promise.reject(new Error('<pe-plot>.toPNG: no matrix to draw'));
  }

  render() {
    this.#caption.textContent = this.caption;
    const m = this.#matrix;
    const problem = this.#problem(m);
    this.#report(problem);
    if (problem) return;
    if (!m) {
      this.#body.replaceChildren();
      this.#svg = this.#heatmap = null;
    } else if (this.mode === 'heatmap') {
      this.#renderHeatmap(m);
    } else {
      this.#renderCurves(m);
    }
  }

  // The first setting this element cannot honour, described, or null: an unknown mode, or (curves) a
  // requested dimension the table does not have.
  #problem(m) {
    const mode = this.getAttribute('mode');
    if (mode !== null && mode !== 'curves' && mode !== 'heatmap') return `<pe-plot> mode="${mode}" must be "curves" or "heatmap"`;
    if (!m || this.mode === 'heatmap') return null;
    const missing = this.#dims.filter((d) => d < 0 || d >= m.cols);
    if (!missing.length) return null;
    // The default dims (0, 1, 4, 8) on a table narrower than 9 dimensions draw the ones it has.
    if (this.#dims.join() === '0,1,4,8' && missing.every((d) => d >= m.cols)) return null;
    return `<pe-plot>.dims asks for dimension${missing.length > 1 ? 's' : ''} ${missing.join(', ')} but the table has ${m.cols} (0 … ${m.cols - 1})`;
  }

  #renderHeatmap(m) {
    if (!this.#heatmap) {
      this.#heatmap = document.createElement('attn-heatmap');
      this.#heatmap.setAttribute('no-export', ''); // this element's own buttons export it
      Object.assign(this.#heatmap, { palette: 'RdBu', rowTitle: 'Position', colTitle: 'Dimension' });
      this.#body.replaceChildren(this.#heatmap);
      this.#svg = null;
    }
    this.#heatmap.matrix = m;
  }

  #renderCurves(m) {
    this.#heatmap = null;
    const dims = this.#dims.filter((d) => d >= 0 && d < m.cols);
    const series = dims.map((d) => Array.from({ length: m.rows }, (_, p) => m.data[p * m.cols + d]));
    // [−1, 1] as the sinusoids span; wider when a learned table strays outside it.
    let lo = -1;
    let hi = 1;
    for (const v of series.flat()) {
      if (v < lo && Number.isFinite(v)) lo = v;
      if (v > hi && Number.isFinite(v)) hi = v;
    }
    const names = dims.map((d) => `dim ${d}`);
    const width = this.#width;
    const height = Math.round(180 + 0.19 * width);
    const legend = legendLayout(names, MARGIN.left, width - MARGIN.right);
    const top = legend.height + 14;
    const plot = { left: MARGIN.left, right: width - MARGIN.right, top, bottom: height - MARGIN.bottom };
    const xMax = Math.max(1, m.rows - 1);
    const x = (p) => plot.left + ((plot.right - plot.left) * p) / xMax;
    const y = (v) => plot.bottom - ((plot.bottom - plot.top) * (v - lo)) / (hi - lo);

    const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', part: 'chart', 'font-family': FONT_FAMILY,
      'font-size': FONT, fill: 'currentColor', [INK]: 'fill' });
    root.style.width = `${width}px`;
    root.setAttribute('aria-label', `${this.caption ? `${this.caption}: ` : ''}line chart of positional encoding `
      + `dimensions ${dims.join(', ') || 'none'} over positions 0 to ${m.rows - 1}; `
      + `values between ${formatTick(lo, 2)} and ${formatTick(hi, 2)}.`);
    // positions are whole numbers: so are their ticks (a 4-position table reads 0 1 2 3, not 0 1 1 2 2 3 3)
    const xTicks = niceTicks(0, xMax, Math.min(9, Math.floor((plot.right - plot.left) / 50)), { integer: true });
    this.#drawAxes(root, plot, xTicks, niceTicks(lo, hi, 5), x, y);
    series.forEach((values, k) => {
      const d = values.map((v, p) => `${p ? 'L' : 'M'}${px(x(p))} ${px(y(v))}`).join('');
      svg('path', { d, class: 'curve', fill: 'none', stroke: COLORS[k % COLORS.length], ...inkOf(COLORS[k % COLORS.length]), 'stroke-width': 2,
        'stroke-dasharray': DASHES[k % DASHES.length], 'stroke-linejoin': 'round' }, root);
    });
    const key = svg('g', { class: 'legend', part: 'legend' }, root);
    legend.entries.forEach(({ name, x: lx, y: ly }, k) => {
      svg('line', { x1: lx, x2: lx + 24, y1: ly, y2: ly, stroke: COLORS[k % COLORS.length], ...inkOf(COLORS[k % COLORS.length]), 'stroke-width': 2,
        'stroke-dasharray': DASHES[k % DASHES.length] }, key);
      svgText(name, { x: lx + 30, y: ly, dy: '0.35em' }, key);
    });
    this.#body.replaceChildren(root);
    this.#svg = root;
  }

  #drawAxes(root, plot, xTicks, yTicks, x, y) {
    const axes = svg('g', { class: 'axes', part: 'axes' }, root);
    for (const v of yTicks) {
      svg('line', { x1: plot.left, x2: plot.right, y1: px(y(v)), y2: px(y(v)),
        class: v === 0 ? 'stroke-muted' : 'stroke-grid', [INK]: 'stroke', 'stroke-width': 1 }, axes);
      svgText(formatTick(v, 2), { x: plot.left - 6, y: px(y(v)), dy: '0.35em', 'text-anchor': 'end' }, axes);
    }
    svg('line', { x1: plot.left, x2: plot.right, y1: plot.bottom, y2: plot.bottom, class: 'stroke-muted', [INK]: 'stroke' }, axes);
    const positions = svg('g', { class: 'x-ticks' }, axes);
    for (const p of xTicks) {
      svg('line', { x1: px(x(p)), x2: px(x(p)), y1: plot.bottom, y2: plot.bottom + 4, class: 'stroke-muted', [INK]: 'stroke' }, positions);
      svgText(formatTick(p, 0), { x: px(x(p)), y: plot.bottom + 17, 'text-anchor': 'middle' }, positions);
    }
    const title = { 'font-weight': 600, 'text-anchor': 'middle' };
    svgText('Position', { ...title, x: (plot.left + plot.right) / 2, y: plot.bottom + 36 }, axes);
    svgText('Value', { ...title, transform: `translate(14 ${px((plot.top + plot.bottom) / 2)}) rotate(-90)` }, axes);
  }
}

attributeProperties(PePlot, {
  mode: { attr: 'mode', fallback: 'curves', parse: (text) => (text === 'heatmap' ? 'heatmap' : 'curves') },
  caption: { attr: 'caption', fallback: '' },
});
