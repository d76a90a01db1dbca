// A small SVG line chart for the lessons' curves (max weight against d_k, similarity against
// distance, loss against step).
//   series: [{ name, points: [[x, y], …], band?: [[x, low, high], …], axis?: 'left' | 'right' }]
//   options: { xLabel, yLabel, y2Label, log2X, yDomain, y2Domain, title, width }
// Text is 12 px on screen at any width: the chart is drawn in a coordinate system as wide as the
// container it goes into (`width`, its clientWidth at draw time), so the SVG is shown at scale 1
// instead of being shrunk from a fixed 560 units (which made 5 px text on a phone). A series on the
// right axis (accuracy beside a loss) gets its own scale and labelled axis.
// Colour-blind-safe colours (Okabe–Ito) plus dash patterns, so series differ without colour too.
// Ticks fall on round numbers (1, 2 or 5 times a power of ten, d3-array's ticks); a y range read from the
// data is widened to round ends (d3-array's nice), so the top of the axis is labelled.
import { nice, tickStep, ticks } from 'd3-array';

const NS = 'http://www.w3.org/2000/svg';
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3', '1 2'];
const FONT = 12;
const LEGEND_ROW = 20;
const MIN_WIDTH = 280, MAX_WIDTH = 640, DEFAULT_WIDTH = 560;

function svgEl(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// Tick text: as few digits as the step between ticks needs.
function tickText(value, step) {
  const places = Math.max(0, Math.min(4, Math.ceil(-Math.log10(step)) + 1));
  return String(Number(value.toFixed(places)));
}

// The chart's width for a container: its width now, kept within what the layout can hold.
export function chartWidth(container) {
  // clientWidth counts the padding; the chart gets the content box.
  const style = container ? getComputedStyle(container) : null;
  const padding = style ? Number.parseFloat(style.paddingLeft) + Number.parseFloat(style.paddingRight) : 0;
  const w = container?.clientWidth ? container.clientWidth - padding : DEFAULT_WIDTH;
  return Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, Math.round(w)));
}

export function lineChart(series, { xLabel, yLabel, y2Label, log2X = false, yDomain, y2Domain, title, width = DEFAULT_WIDTH }) {
  const W = width, H = Math.round(Math.max(220, Math.min(320, W * 0.55)));
  const hasRight = series.some((s) => s.axis === 'right');
  const M = { left: 58, right: hasRight ? 58 : 16, top: 12, bottom: 48 };
  // One legend entry a row on a narrow chart, two on a wide one.
  const perRow = W < 440 ? 1 : 2;
  const legendHeight = Math.ceil(series.length / perRow) * LEGEND_ROW + 8;
  const tx = (x) => (log2X ? Math.log2(x) : x);
  const xs = series.flatMap((s) => s.points.map((p) => tx(p[0])));
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const range = (axis, given) => {
    if (given) return given;
    const ys = series.filter((s) => (s.axis ?? 'left') === axis).flatMap((s) => [...s.points.map((p) => p[1]), ...(s.band ?? []).flatMap((b) => [b[1], b[2]])]);
    return nice(Math.min(0, ...ys), Math.max(...ys), 4);
  };
  const domains = { left: range('left', yDomain), right: hasRight ? range('right', y2Domain) : null };
  const sx = (x) => M.left + (tx(x) - x0) / (x1 - x0 || 1) * (W - M.left - M.right);
  const syOf = (axis) => {
    const [y0, y1] = domains[axis];
    return (y) => H - M.bottom - (y - y0) / (y1 - y0 || 1) * (H - M.top - M.bottom);
  };
  const sy = { left: syOf('left'), right: hasRight ? syOf('right') : null };
  // Lettered by .line-chart in styles.css (12 px): a style attribute would be inline style, which the
  // site's Content-Security-Policy refuses (site/csp.js).
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H + legendHeight}`, width: W, role: 'img', 'aria-label': title, class: 'line-chart' });
  svg.append(svgEl('line', { x1: M.left, x2: W - M.right, y1: H - M.bottom, y2: H - M.bottom, stroke: '#555' }),
    svgEl('line', { x1: M.left, x2: M.left, y1: M.top, y2: H - M.bottom, stroke: '#555' }));
  // x ticks, as many as fit 12 px labels side by side: round numbers across the data's range, or on a log₂
  // axis the data's own x values (powers of two).
  const fit = Math.max(2, Math.floor((W - M.left - M.right) / (FONT * 4.5)));
  const dataXs = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
  const xTicks = log2X ? dataXs.filter((_, i) => i % Math.ceil(dataXs.length / fit) === 0) : ticks(x0, x1, fit);
  xTicks.forEach((x) => {
    svg.append(svgEl('text', { x: sx(x), y: H - M.bottom + FONT + 6, 'text-anchor': 'middle', fill: '#333', 'data-tick': 'x' }, String(x)));
  });
  for (const axis of hasRight ? ['left', 'right'] : ['left']) {
    const [y0, y1] = domains[axis];
    const step = tickStep(y0, y1, 4) || 1;
    const at = axis === 'left' ? M.left - 6 : W - M.right + 6;
    for (const y of y1 > y0 ? ticks(y0, y1, 4) : [y0]) {
      if (axis === 'left') svg.append(svgEl('line', { x1: M.left, x2: W - M.right, y1: sy.left(y), y2: sy.left(y), stroke: '#e3e6ee' }));
      svg.append(svgEl('text', { x: at, y: sy[axis](y) + 4, 'text-anchor': axis === 'left' ? 'end' : 'start', fill: '#333', 'data-tick': axis },
        tickText(y, step)));
    }
  }
  if (hasRight) svg.append(svgEl('line', { x1: W - M.right, x2: W - M.right, y1: M.top, y2: H - M.bottom, stroke: '#555' }));
  const mid = (M.top + H - M.bottom) / 2;
  svg.append(svgEl('text', { x: (M.left + W - M.right) / 2, y: H - 8, 'text-anchor': 'middle', fill: '#222' }, xLabel),
    svgEl('text', { x: 14, y: mid, 'text-anchor': 'middle', fill: '#222', transform: `rotate(-90 14 ${mid})` }, yLabel));
  if (hasRight) {
    svg.append(svgEl('text', { x: W - 12, y: mid, 'text-anchor': 'middle', fill: '#222', transform: `rotate(90 ${W - 12} ${mid})` }, y2Label));
  }
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const y = sy[s.axis ?? 'left'];
    if (s.band?.length) {
      // The spread (mean ± one standard deviation, say) as a light area behind the line.
      const upper = s.band.map((b, j) => `${j ? 'L' : 'M'}${sx(b[0]).toFixed(1)},${y(b[2]).toFixed(1)}`).join('');
      const lower = [...s.band].reverse().map((b) => `L${sx(b[0]).toFixed(1)},${y(b[1]).toFixed(1)}`).join('');
      svg.append(svgEl('path', { d: `${upper}${lower}Z`, fill: colour, 'fill-opacity': 0.15, stroke: 'none' }));
    }
    const d = s.points.map((p, j) => `${j ? 'L' : 'M'}${sx(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join('');
    svg.append(svgEl('path', { d, fill: 'none', stroke: colour, 'stroke-width': 2.5, 'stroke-dasharray': DASHES[i % DASHES.length] }));
    s.points.forEach((p) => svg.append(svgEl('circle', { cx: sx(p[0]), cy: y(p[1]), r: 3, fill: colour })));
    const lx = M.left + (i % perRow) * (W - M.left) / perRow;
    const ly = H + 8 + Math.floor(i / perRow) * LEGEND_ROW;
    svg.append(svgEl('line', { x1: lx, x2: lx + 26, y1: ly, y2: ly, stroke: colour, 'stroke-width': 2.5, 'stroke-dasharray': DASHES[i % DASHES.length] }),
      svgEl('text', { x: lx + 32, y: ly + 4, fill: '#222' }, s.name + (hasRight ? ` (${s.axis === 'right' ? 'right' : 'left'} axis)` : '')));
  });
  return svg;
}
