// The heatmap's cell colours on screen: a <canvas> laid exactly under the SVG's grid. Recolouring
// SVG rects makes Chromium restyle every one of them: in headless Chromium on a 2-core machine,
// recolouring 8 heatmaps of 32×32 took 42 ms per update as rects against 3 ms as canvas fills — and
// a lesson redraws 8 of them per frame. The SVG keeps everything else (labels, values, legend, outlines, the ARIA
// grid), and the exported SVG gets real <rect> fills from the same colours (see heatmap.js toSVG).
import { BLOCKED } from './palettes.js';

// A cell whose fill string starts with this is drawn hatched (a masked, −∞ score).
export const HATCHED = 'url(';

export class CellCanvas {
  canvas = document.createElement('canvas');
  #context = this.canvas.getContext('2d');
  #xs = [];
  #ys = [];
  #hatch = null;

  constructor() {
    this.canvas.setAttribute('aria-hidden', 'true');
    Object.assign(this.canvas.style, { position: 'absolute', pointerEvents: 'none' });
  }

  // Places the canvas over the grid's box (in % of the SVG, so it follows the SVG's scaling) and
  // sizes its pixels for the grid's natural size on this screen.
  place({ gridX, gridY, gridW, gridH, width, height }, rows, cols) {
    const ratio = Math.max(1, globalThis.devicePixelRatio || 1);
    const pixelsW = Math.ceil(gridW * ratio);
    const pixelsH = Math.ceil(gridH * ratio);
    Object.assign(this.canvas, { width: pixelsW, height: pixelsH });
    Object.assign(this.canvas.style, {
      left: `${(100 * gridX) / width}%`, top: `${(100 * gridY) / height}%`,
      width: `${(100 * gridW) / width}%`, height: `${(100 * gridH) / height}%`,
    });
    // Cell edges on whole pixels: neighbouring cells share an edge exactly, so no seams show.
    this.#xs = Array.from({ length: cols + 1 }, (_, c) => Math.round((c * pixelsW) / cols));
    this.#ys = Array.from({ length: rows + 1 }, (_, r) => Math.round((r * pixelsH) / rows));
    this.#hatch = this.#hatchPattern(ratio);
  }

  // fills[i]: the CSS colour of cell i (row-major), or a HATCHED fill.
  paint(fills) {
    const ctx = this.#context;
    const xs = this.#xs;
    const ys = this.#ys;
    const cols = xs.length - 1;
    let current = null;
    for (let i = 0; i < fills.length; i++) {
      const fill = fills[i];
      if (fill !== current) {
        ctx.fillStyle = fill.startsWith(HATCHED) ? this.#hatch : fill;
        current = fill;
      }
      const r = (i / cols) | 0;
      const c = i - r * cols;
      ctx.fillRect(xs[c], ys[r], xs[c + 1] - xs[c], ys[r + 1] - ys[r]);
    }
  }

  // The same stripes as the SVG's hatch <pattern>: grey, at 45°, every 6 units.
  #hatchPattern(ratio) {
    const size = Math.round(6 * ratio);
    const tile = document.createElement('canvas');
    tile.width = tile.height = size;
    const ctx = tile.getContext('2d');
    ctx.fillStyle = BLOCKED.background;
    ctx.fillRect(0, 0, size, size);
    ctx.strokeStyle = BLOCKED.stripe;
    ctx.lineWidth = 1.5 * ratio;
    for (const offset of [-size, 0, size]) {
      ctx.beginPath();
      ctx.moveTo(offset, size);
      ctx.lineTo(offset + size, 0);
      ctx.stroke();
    }
    return this.#context.createPattern(tile, 'repeat');
  }
}
