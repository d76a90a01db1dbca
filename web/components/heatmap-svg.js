// The heatmap's SVG skeleton for one layout: axes, the grid's lines, printed-value slots, legend,
// outlines. Built once per shape and label set; painting fills in colours and numbers later.
import { BLOCKED } from './palettes.js';
import { px, svg, svgText } from './svg.js';
import { INK } from './theme.js';

export const LEGEND_STOPS = 16;

// Large cells get white gaps between them (seaborn's linewidths); small ones butt together.
const hasGaps = ({ cell }) => cell.w >= 20 && cell.h >= 20;

// Builds into `root` (emptied first); returns the parts that painting and interaction update.
export function buildHeatmapSVG(root, layout, spec, id) {
  root.replaceChildren();
  root.setAttribute('viewBox', `0 0 ${layout.width} ${layout.height}`);
  const parts = { ...defs(root, id), hit: null, values: null, texts: [], ...axes(root, layout, spec) };
  // Screen: the colours are on a canvas underneath (heatmap-canvas.js); the file: cellRects() fills
  // this group. The transparent rect takes the pointer for the whole grid.
  parts.cells = svg('g', { class: 'cells' }, root);
  parts.hit = svg('rect', { class: 'hit', x: layout.gridX, y: layout.gridY, width: px(layout.gridW), height: px(layout.gridH),
    fill: 'transparent', 'data-screen-only': '' }, root);
  if (hasGaps(layout)) gridLines(root, layout, spec);
  if (spec.showValues) Object.assign(parts, valueSlots(root, layout, spec));
  parts.highlights = svg('g', { class: 'highlights', 'aria-hidden': 'true' }, root);
  parts.hoverRing = ring(root, 'hover-ring', 1.5);
  parts.hoverRing.setAttribute('display', 'none');
  // The row hovered in a linked heatmap (the `link` attribute, heatmap.js).
  parts.linkedRing = ring(root, 'linked-ring', 1.5);
  parts.linkedRing.setAttribute('display', 'none');
  parts.focusRing = ring(root, 'focus-ring', 2.5);
  // The ARIA grid's one present row and cell (the active one; see heatmap.js).
  parts.activeRow = svg('g', { class: 'active-row', 'data-screen-only': '' }, root);
  Object.assign(parts, legend(root, layout, id));
  return parts;
}

// One filled <rect> per cell, for the exported file.
export function cellRects(group, layout, rows, cols, fills) {
  const { cell, gridX, gridY } = layout;
  // Without gaps, a hair of overlap keeps viewers' anti-aliasing from drawing seams.
  const extra = hasGaps(layout) ? 0 : 0.4;
  for (let i = 0; i < rows * cols; i++) {
    const r = Math.floor(i / cols);
    const c = i % cols;
    svg('rect', { x: px(gridX + c * cell.w), y: px(gridY + r * cell.h), width: px(cell.w + extra),
      height: px(cell.h + extra), fill: fills[i] }, group);
  }
}

// A large matrix's cells in an exported file: the canvas the screen shows, as one <image> over the
// grid (a rect per cell would be millions of elements to write, parse and rasterise).
export function cellImage(group, layout, canvas) {
  const { gridX, gridY, gridW, gridH } = layout;
  svg('image', { x: px(gridX), y: px(gridY), width: px(gridW), height: px(gridH), preserveAspectRatio: 'none',
    href: canvas.toDataURL('image/png') }, group);
}

function defs(root, id) {
  const node = svg('defs', {}, root);
  const hatch = svg('pattern', { id: `${id}-blocked`, patternUnits: 'userSpaceOnUse', width: 6, height: 6,
    patternTransform: 'rotate(45)' }, node);
  svg('rect', { width: 6, height: 6, fill: BLOCKED.background }, hatch);
  svg('line', { x1: 1, y1: 0, x2: 1, y2: 6, stroke: BLOCKED.stripe, 'stroke-width': 1.5 }, hatch);
  const gradient = svg('linearGradient', { id: `${id}-legend`, x1: 0, x2: 1, y1: 0, y2: 0 }, node);
  const gradientStops = Array.from({ length: LEGEND_STOPS }, (_, k) =>
    svg('stop', { offset: px(k / (LEGEND_STOPS - 1)) }, gradient));
  return { gradientStops };
}

// The axis labels and titles; returns the label elements so new label texts that fit the same
// geometry can be written in place (see relabelHeatmapSVG).
function axes(root, layout, spec) {
  // The page's text colour (theme.js): legible on a dark page as on a light one.
  const group = svg('g', { 'aria-hidden': 'true', part: 'labels', 'font-size': px(layout.font), fill: 'currentColor', [INK]: 'fill' }, root);
  const rowLabelNodes = layout.rowLabels.map((label) =>
    svgText(label.text, { x: px(label.x), y: px(label.y), dy: '0.35em', 'text-anchor': 'end' }, group));
  const colLabelNodes = layout.colLabels.map((label) => {
    const at = { x: px(label.x), y: px(label.y) };
    return svgText(label.text, layout.rotated
      ? { transform: `translate(${at.x} ${at.y}) rotate(-45)`, 'text-anchor': 'end' }
      : { ...at, 'text-anchor': 'middle' }, group);
  });
  const title = { 'font-weight': 600, 'text-anchor': 'middle' };
  if (layout.rowTitle) {
    const { x, y } = layout.rowTitle;
    svgText(spec.rowTitle, { ...title, transform: `translate(${px(x)} ${px(y)}) rotate(-90)` }, group);
  }
  if (layout.colTitle) svgText(spec.colTitle, { ...title, x: px(layout.colTitle.x), y: px(layout.colTitle.y) }, group);
  return { rowLabelNodes, colLabelNodes };
}

// Where only label texts changed and `next` puts everything exactly where `current` did (the usual
// case when a learner edits one word), rewrites the label texts in place and returns true; a
// rebuild would recreate the whole skeleton and make the page lay it out again.
export function relabelHeatmapSVG(parts, current, next) {
  const geometry = (layout) => JSON.stringify({ ...layout,
    rowLabels: layout.rowLabels.map(({ i, x, y }) => [i, x, y]), colLabels: layout.colLabels.map(({ i, x, y }) => [i, x, y]) });
  if (geometry(current) !== geometry(next)) return false;
  // Only the texts that differ: every rewritten text node is laid out again.
  const write = (node, text) => { if (node.textContent !== text) node.textContent = text; };
  next.rowLabels.forEach((label, k) => write(parts.rowLabelNodes[k], label.text));
  next.colLabels.forEach((label, k) => write(parts.colLabelNodes[k], label.text));
  return true;
}

// Lines of the background's colour between cells (white on a light page): one path for all of them.
function gridLines(root, { cell, gridX, gridY, gridW, gridH }, { rows, cols }) {
  let d = '';
  for (let c = 1; c < cols; c++) d += `M${px(gridX + c * cell.w)} ${gridY}v${px(gridH)}`;
  for (let r = 1; r < rows; r++) d += `M${gridX} ${px(gridY + r * cell.h)}h${px(gridW)}`;
  svg('path', { d, class: 'stroke-background', [INK]: 'stroke', 'stroke-width': 1, fill: 'none', 'aria-hidden': 'true' }, root);
}

// A <text> per cell whose Text node painting rewrites (no element is replaced on an update).
function valueSlots(root, { cell, gridX, gridY }, { rows, cols }) {
  const values = svg('g', { class: 'values', 'aria-hidden': 'true', 'text-anchor': 'middle' }, root);
  const texts = [];
  for (let i = 0; i < rows * cols; i++) {
    const r = Math.floor(i / cols);
    const c = i % cols;
    const text = svg('text', { x: px(gridX + (c + 0.5) * cell.w), y: px(gridY + (r + 0.5) * cell.h), dy: '0.35em' }, values);
    texts.push(text.appendChild(document.createTextNode('')));
  }
  return { values, texts };
}

// A two-tone outline (white under black) that shows on every colour of every palette.
function ring(parent, className, width) {
  const group = svg('g', { class: className, 'aria-hidden': 'true', fill: 'none', 'data-screen-only': '' }, parent);
  svg('rect', { stroke: '#ffffff', 'stroke-width': width + 2 }, group);
  svg('rect', { stroke: '#000000', 'stroke-width': width }, group);
  return group;
}

function legend(root, { legend: bar, blockedKey, tickFont }, id) {
  const group = svg('g', { class: 'legend', part: 'legend', 'aria-hidden': 'true', 'font-size': px(tickFont), fill: 'currentColor', [INK]: 'fill' }, root);
  svg('rect', { x: bar.x, y: px(bar.y), width: px(bar.w), height: px(bar.h),
    fill: `url(#${id}-legend)`, class: 'stroke-muted', [INK]: 'stroke', 'stroke-width': 0.5 }, group);
  const ticks = ['start', 'middle', 'end'].map((anchor, k) => {
    const x = px(bar.x + (k * bar.w) / 2);
    svg('line', { x1: x, x2: x, y1: px(bar.y + bar.h), y2: px(bar.y + bar.h * 1.3), class: 'stroke-muted', [INK]: 'stroke' }, group);
    return svgText('', { x, y: px(bar.tickY), 'text-anchor': anchor }, group);
  });
  if (blockedKey) {
    const { x, y, size, text } = blockedKey;
    svg('rect', { x, y: px(y), width: size, height: size, fill: `url(#${id}-blocked)`, class: 'stroke-muted', [INK]: 'stroke', 'stroke-width': 0.5 }, group);
    svgText(text, { x: px(x + size * 1.5), y: px(y + size / 2), dy: '0.35em' }, group);
  }
  return { ticks };
}
