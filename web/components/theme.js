// The components' colours for text and lines, themed by the page they sit on. Nothing here is a fixed
// dark grey: text is the inherited `color` (so a dark page's light text reaches every label), and the
// muted, grid and background inks are CSS custom properties whose defaults are derived from that text
// colour and from the page's colour scheme. A page that follows prefers-color-scheme (color-scheme:
// light dark, or its own dark colours) therefore gets legible components without setting anything.
//
//   --attnlab-text        labels, ticks, titles              default: the inherited `color`
//   --attnlab-muted       tick marks, axes, outlines         default: the text colour at 70%
//   --attnlab-grid        chart grid lines, frames           default: the text colour at 22%
//   --attnlab-background  gaps between cells, exported files default: Canvas (the page's scheme)
//   --attnlab-focus       focus outlines                     default: the text colour
//
// Colours that carry data (the palettes, the black-or-white value text on each cell, the two-tone
// outlines) stay fixed: they are drawn on the cells' own colours, not on the page.

export const THEME_CSS = `
:host {
  /* With --attnlab-text unset this declaration is invalid at computed-value time, and color (an
     inherited property) then inherits: the page's text colour, whatever it is. */
  color: var(--attnlab-text);
  --attnlab-ink-muted: var(--attnlab-muted, color-mix(in srgb, currentColor 70%, transparent));
  --attnlab-ink-grid: var(--attnlab-grid, color-mix(in srgb, currentColor 22%, transparent));
  --attnlab-ink-background: var(--attnlab-background, Canvas);
}
.stroke-muted { stroke: var(--attnlab-ink-muted); }
.stroke-grid { stroke: var(--attnlab-ink-grid); }
.stroke-background { stroke: var(--attnlab-ink-background); }
.fill-muted { fill: var(--attnlab-ink-muted); }
`;

// Marks an SVG node whose fill and/or stroke come from the theme (currentColor or a class above):
// the exported file has no stylesheet and no page to inherit from, so standaloneSVG() writes the
// colours the screen resolved into it (see resolveInks).
export const INK = 'data-ink';

let probe = null;

// `color` (any CSS colour, translucent or color-mix()) as the opaque #rrggbb it shows over `under`.
// Drawn on a 1×1 canvas and read back: the browser does the compositing and every colour syntax.
export function opaque(color, under = '#ffffff') {
  probe ??= document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  probe.clearRect(0, 0, 1, 1);
  probe.fillStyle = under;
  probe.fillRect(0, 0, 1, 1);
  probe.fillStyle = '#000000';
  probe.fillStyle = color;
  probe.fillRect(0, 0, 1, 1);
  const [r, g, b] = probe.getImageData(0, 0, 1, 1).data;
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

// WCAG 2 relative luminance and contrast ratio of two #rrggbb colours.
function luminance(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const s = parseInt(hex.slice(i, i + 2), 16) / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const isTransparent = (color) => color === 'transparent' || /^rgba\(.*,\s*0\)$/.test(color) || /\/\s*0\)$/.test(color);

// The colour the element is seen on: --attnlab-background when the page sets it, else the first
// ancestor (across shadow roots) with a background, else the document's canvas colour.
function backgroundOf(host) {
  const own = getComputedStyle(host).getPropertyValue('--attnlab-background').trim();
  if (own && !isTransparent(own)) return opaque(own);
  for (let node = host; node; node = node.parentElement ?? node.getRootNode().host ?? null) {
    const color = getComputedStyle(node).backgroundColor;
    if (!isTransparent(color)) return opaque(color);
  }
  // Nothing painted: the canvas colour, which is dark when the page's color-scheme is (Canvas
  // resolves under the scheme of the element it is computed on).
  const sample = document.createElement('span');
  sample.hidden = true;
  sample.style.backgroundColor = 'Canvas';
  document.documentElement.append(sample);
  const canvas = getComputedStyle(sample).backgroundColor;
  sample.remove();
  return opaque(canvas);
}

// { text, background } for a picture exported from `host`: the colours the learner sees, as opaque
// #rrggbb. If the page's text would not read on that background in a file (contrast under 4.5, e.g.
// a background image the file cannot carry), the background becomes white or near-black, whichever
// the text reads on.
export function exportColours(host) {
  const background = backgroundOf(host);
  const text = opaque(getComputedStyle(host).color, background);
  if (contrast(text, background) >= 4.5) return { text, background };
  return { text, background: contrast(text, '#ffffff') >= contrast(text, '#121212') ? '#ffffff' : '#121212' };
}

// Writes the resolved fill / stroke of every INK-marked node of `live` onto the same node of
// `clone` (a deep clone of it, so the two trees list their nodes in the same order).
export function resolveInks(live, clone, background) {
  const from = [live, ...live.querySelectorAll('*')];
  const to = [clone, ...clone.querySelectorAll('*')];
  from.forEach((node, i) => {
    const which = node.getAttribute(INK);
    if (!which) return;
    const style = getComputedStyle(node);
    for (const property of which.split(' ')) to[i].setAttribute(property, opaque(style[property], background));
    to[i].removeAttribute(INK);
  });
}
