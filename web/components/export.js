// Export of a component's picture: a standalone SVG file (the on-screen markup itself, so the file
// shows exactly what the learner saw) and a PNG drawn from that SVG.
import { SVG_NS, svg } from './svg.js';
import { exportColours, resolveInks } from './theme.js';

// Attributes that wire the live picture to the page (focus, screen readers) and mean nothing in a file.
const LIVE_ATTRIBUTES = ['role', 'tabindex', 'style', 'aria-label', 'aria-hidden', 'aria-activedescendant',
  'aria-describedby', 'aria-rowcount', 'aria-colcount', 'aria-rowindex', 'aria-colindex', 'aria-roledescription'];

// The SVG as a file: without the focus ring, hover outline and ARIA wiring (marked data-screen-only
// or listed above), with xmlns, a pixel size, the caption as its <title>, and the colours the screen
// shows: the page's background painted behind, the themed text and lines written in (theme.js), so
// a figure exported from a dark page is light on dark, and legible, in any viewer.
// complete(clone), when given, adds what the screen draws outside the SVG (a heatmap's canvas).
export function standaloneSVG(liveSvg, title = '', complete = null) {
  const clone = liveSvg.cloneNode(true);
  const { text, background } = exportColours(liveSvg.getRootNode().host ?? liveSvg);
  resolveInks(liveSvg, clone, background);
  clone.setAttribute('color', text);
  complete?.(clone);
  for (const node of clone.querySelectorAll('[data-screen-only]')) node.remove();
  for (const node of [clone, ...clone.querySelectorAll('*')]) {
    for (const name of LIVE_ATTRIBUTES) node.removeAttribute(name);
    // Ids matter only when something refers to them (patterns, gradients in <defs>).
    if (!node.closest('defs')) node.removeAttribute('id');
  }
  const [, , width, height] = clone.getAttribute('viewBox').split(/\s+/).map(Number);
  clone.setAttribute('xmlns', SVG_NS);
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  clone.prepend(svg('rect', { width: '100%', height: '100%', fill: background }));
  if (title) {
    const titleNode = svg('title');
    titleNode.textContent = title;
    clone.prepend(titleNode);
  }
  return new XMLSerializer().serializeToString(clone);
}

// Rasterises an SVG string (standaloneSVG's output) at `scale` device pixels per SVG unit.
export async function svgToPNG(svgText, scale = 2) {
  const width = Number(svgText.match(/<svg[^>]*\swidth="([\d.]+)"/)?.[1] ?? 300);
  const height = Number(svgText.match(/<svg[^>]*\sheight="([\d.]+)"/)?.[1] ?? 150);
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  const image = new Image();
  try {
    image.src = url;
    await image.decode();
  } finally {
    URL.revokeObjectURL(url);
  }
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('toPNG: the canvas gave no image'))), 'image/png');
  });
}

// Saves a Blob under `filename` through a temporary object URL.
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// A file name from a caption: "Head 0 · weights" → "head-0-weights".
export function fileStem(text, fallback) {
  const stem = text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return stem.slice(0, 60) || fallback;
}

// The "SVG" and "PNG" buttons of an element with toSVG() / toPNG() and a caption.
export function exportTools(element, kind) {
  const tools = document.createElement('div');
  tools.className = 'tools';
  tools.setAttribute('part', 'tools');
  const name = () => fileStem(element.caption ?? '', kind);
  const actions = {
    SVG: async () => download(new Blob([element.toSVG()], { type: 'image/svg+xml' }), `${name()}.svg`),
    PNG: async () => download(await element.toPNG(), `${name()}.png`),
  };
  for (const [label, action] of Object.entries(actions)) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = label;
    button.setAttribute('part', 'button');
    button.setAttribute('aria-label', `Download ${kind} as ${label}`);
    button.addEventListener('click', () => action().catch((error) => console.error(error)));
    tools.append(button);
  }
  return tools;
}
