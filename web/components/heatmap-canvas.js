// The heatmap's cell colours on screen: a <canvas> laid exactly under the SVG's grid. Recolouring
// SVG rects makes Chromium restyle every one of them: in headless Chromium on a 2-core machine,
// recolouring 8 heatmaps of 32×32 took 42 ms per update as rects against 3 ms as canvas fills — and
// a lesson redraws 8 of them per frame. The SVG keeps everything else (labels, values, legend, outlines, the ARIA
// grid), and the exported SVG gets real <rect> fills from the same colours (see heatmap.js toSVG).
import { BLOCKED } from './palettes.js';

// A cell whose fill string starts with this is drawn hatched (a masked, −∞ score).
export const HATCHED = 'url(';

// [r, g, b] of "rgb(r, g, b)" (what d3's interpolators return) or "#rrggbb". Read digit by digit:
// a 32×32 heatmap parses a thousand fresh colours per repaint.
const rgb = new Uint8Array(3);
function rgbOf(color) {
  if (color.charCodeAt(0) === 35) {  // '#'
    for (let k = 0; k < 3; k++) rgb[k] = parseInt(color.slice(1 + 2 * k, 3 + 2 * k), 16);
    return rgb;
  }
  let channel = 0;
  let value = 0;
  let digits = false;
  for (let i = 4; i < color.length && channel < 3; i++) {
    const c = color.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits = true;
    } else if (digits) {  // ',' ')' or a decimal point ends the integer part
      rgb[channel++] = value;
      value = 0;
      digits = false;
      if (c === 46) while (i + 1 < color.length && color.charCodeAt(i + 1) >= 48 && color.charCodeAt(i + 1) <= 57) i++;
    }
  }
  return rgb;
}

const tiles = new Map();
function hatchTile(ratio) {
  if (tiles.has(ratio)) return tiles.get(ratio);
  const size = Math.round(6 * ratio);
  const tile = Object.assign(document.createElement('canvas'), { width: size, height: size });
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
  tiles.set(ratio, tile);
  return tile;
}

export class CellCanvas {
  canvas = document.createElement('canvas');
  #context = this.canvas.getContext('2d');
  #xs = [];
  #ys = [];
  #hatch = null;
  #small = null; // one pixel per cell, scaled up onto the canvas
  #smallContext = null;
  #image = null;

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

  // fills[i]: the CSS colour of cell i (row-major), or a HATCHED fill. One pixel per cell goes into
  // a small image that is scaled up without smoothing: a few hundred microseconds for 32×32, where a
  // fillStyle + fillRect per cell cost milliseconds (the site repaints nine of these per keystroke).
  paint(fills) {
    const cols = this.#xs.length - 1;
    const rows = this.#ys.length - 1;
    if (this.#image?.width !== cols || this.#image?.height !== rows) {
      this.#small = Object.assign(document.createElement('canvas'), { width: cols, height: rows });
      this.#smallContext = this.#small.getContext('2d');
      this.#image = this.#smallContext.createImageData(cols, rows);
    }
    const pixels = this.#image.data;
    const hatched = [];
    for (let i = 0; i < fills.length; i++) {
      const fill = fills[i];
      if (fill.startsWith(HATCHED)) {
        hatched.push(i);
        pixels[4 * i + 3] = 0;
        continue;
      }
      const rgb = rgbOf(fill);
      pixels[4 * i] = rgb[0];
      pixels[4 * i + 1] = rgb[1];
      pixels[4 * i + 2] = rgb[2];
      pixels[4 * i + 3] = 255;
    }
    this.#smallContext.putImageData(this.#image, 0, 0);
    const ctx = this.#context;
    ctx.imageSmoothingEnabled = false;
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.drawImage(this.#small, 0, 0, this.canvas.width, this.canvas.height);
    ctx.fillStyle = this.#hatch;
    for (const i of hatched) {
      const r = (i / cols) | 0;
      const c = i - r * cols;
      ctx.fillRect(this.#xs[c], this.#ys[r], this.#xs[c + 1] - this.#xs[c], this.#ys[r + 1] - this.#ys[r]);
    }
  }

  // The same stripes as the SVG's hatch <pattern>: grey, at 45°, every 6 units. The tile is drawn
  // once per pixel ratio and shared by every heatmap (a rebuild must not redraw it).
  #hatchPattern(ratio) {
    return this.#context.createPattern(hatchTile(ratio), 'repeat');
  }
}
