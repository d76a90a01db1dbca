// A small SVG line chart for the lessons' curves (max weight against d_k, similarity against
// distance). series: [{ name, points: [[x, y], …] }]; options: { xLabel, yLabel, log2X, yDomain }.
// Colour-blind-safe colours (Okabe–Ito) plus dash patterns, so series differ without colour too.
const NS = 'http://www.w3.org/2000/svg';
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3', '1 2'];
const W = 560, H = 300, M = { left: 56, right: 16, top: 16, bottom: 46 };
const LEGEND_ROW = 18;  // the legend sits under the x axis, two entries a row

function svgEl(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

export function lineChart(series, { xLabel, yLabel, log2X = false, yDomain, title }) {
  const legendHeight = Math.ceil(series.length / 2) * LEGEND_ROW + 6;
  const xs = series.flatMap((s) => s.points.map((p) => (log2X ? Math.log2(p[0]) : p[0])));
  const ys = series.flatMap((s) => s.points.map((p) => p[1]));
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = yDomain ?? [Math.min(0, ...ys), Math.max(...ys)];
  const sx = (x) => M.left + ((log2X ? Math.log2(x) : x) - x0) / (x1 - x0 || 1) * (W - M.left - M.right);
  const sy = (y) => H - M.bottom - (y - y0) / (y1 - y0 || 1) * (H - M.top - M.bottom);
  // Sized and lettered by .line-chart in styles.css: a style attribute would be inline style, which
  // the site's Content-Security-Policy refuses (site/csp.js).
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H + legendHeight}`, role: 'img', 'aria-label': title, class: 'line-chart' });
  svg.append(svgEl('line', { x1: M.left, x2: W - M.right, y1: H - M.bottom, y2: H - M.bottom, stroke: '#555' }),
    svgEl('line', { x1: M.left, x2: M.left, y1: M.top, y2: H - M.bottom, stroke: '#555' }));
  const xTicks = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))];
  const step = Math.ceil(xTicks.length / 10);
  xTicks.filter((_, i) => i % step === 0).forEach((x) => {
    svg.append(svgEl('text', { x: sx(x), y: H - M.bottom + 16, 'text-anchor': 'middle', fill: '#333' }, String(x)));
  });
  for (let i = 0; i <= 4; i++) {
    const y = y0 + (i / 4) * (y1 - y0);
    svg.append(svgEl('line', { x1: M.left, x2: W - M.right, y1: sy(y), y2: sy(y), stroke: '#e3e6ee' }),
      svgEl('text', { x: M.left - 6, y: sy(y) + 4, 'text-anchor': 'end', fill: '#333' }, y.toFixed(2)));
  }
  svg.append(svgEl('text', { x: (M.left + W - M.right) / 2, y: H - 8, 'text-anchor': 'middle', fill: '#222' }, xLabel),
    svgEl('text', { x: 14, y: (M.top + H - M.bottom) / 2, 'text-anchor': 'middle', fill: '#222',
      transform: `rotate(-90 14 ${(M.top + H - M.bottom) / 2})` }, yLabel));
  series.forEach((s, i) => {
    const d = s.points.map((p, j) => `${j ? 'L' : 'M'}${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join('');
    svg.append(svgEl('path', { d, fill: 'none', stroke: COLOURS[i % COLOURS.length], 'stroke-width': 2.5,
      'stroke-dasharray': DASHES[i % DASHES.length] }));
    s.points.forEach((p) => svg.append(svgEl('circle', { cx: sx(p[0]), cy: sy(p[1]), r: 3, fill: COLOURS[i % COLOURS.length] })));
    const lx = M.left + (i % 2) * (W - M.left) / 2;
    const ly = H + 6 + Math.floor(i / 2) * LEGEND_ROW;
    svg.append(svgEl('line', { x1: lx, x2: lx + 26, y1: ly, y2: ly, stroke: COLOURS[i % COLOURS.length],
      'stroke-width': 2.5, 'stroke-dasharray': DASHES[i % DASHES.length] }),
    svgEl('text', { x: lx + 32, y: ly + 4, fill: '#222' }, s.name));
  });
  return svg;
}
