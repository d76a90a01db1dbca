// The one colour language for attention weights (web/README.md, "Colours"): YlOrRd on the fixed
// domain [0, 1], the same scale <attn-heatmap> draws with palette YlOrRd and domain [0, 1]. The views
// that show weights without a heatmap (model view thumbnails, head view, coloured tokens) colour with
// this, and show this legend once.
import { colorScale } from './palettes.js';
import { px, svg, svgText } from './svg.js';
import { INK } from './theme.js';

export const weightColor = colorScale('YlOrRd', [0, 1]);

// 256 [r, g, b] steps of the scale, for painting thousands of thumbnail pixels per update (a colour
// string per weight, parsed back, would cost more than the drawing). One step is 1/255 of a weight.
export const WEIGHT_STEPS = Array.from({ length: 256 }, (_, k) => weightColor(k / 255).match(/\d+/g).slice(0, 3).map(Number));

const STOPS = 16;
let legends = 0;

// A small SVG legend: the gradient from 0 to 1 with ticks 0, 0.5, 1 and a title, in the page's text
// colour. Decorative for screen readers: the views say each weight in words.
export function weightLegend(title = 'Attention weight') {
  return unitLegend(title, weightColor);
}

// The same legend for any colour scale on [0, 1] (color(t) → CSS colour): <attn-logit-lens> draws its
// probabilities with the palette its `palette` attribute names.
export function unitLegend(title, color) {
  const id = `attnlab-weight-legend-${++legends}`;
  const width = 220;
  const root = svg('svg', { viewBox: `0 0 ${width} 44`, width, height: 44, part: 'legend', 'aria-hidden': 'true',
    'font-size': 11, fill: 'currentColor', [INK]: 'fill' });
  const gradient = svg('linearGradient', { id, x1: 0, x2: 1, y1: 0, y2: 0 }, svg('defs', {}, root));
  for (let k = 0; k < STOPS; k++) svg('stop', { offset: px(k / (STOPS - 1)), 'stop-color': color(k / (STOPS - 1)) }, gradient);
  svgText(title, { x: 4, y: 11, 'font-weight': 600 }, root);
  svg('rect', { x: 4, y: 17, width: width - 8, height: 9, fill: `url(#${id})`, class: 'stroke-muted', [INK]: 'stroke', 'stroke-width': 0.5 }, root);
  ['0', '0.5', '1'].forEach((text, k) => {
    const x = px(4 + (k * (width - 8)) / 2);
    svg('line', { x1: x, x2: x, y1: 26, y2: 29, class: 'stroke-muted', [INK]: 'stroke' }, root);
    svgText(text, { x, y: 40, 'text-anchor': ['start', 'middle', 'end'][k] }, root);
  });
  return root;
}
