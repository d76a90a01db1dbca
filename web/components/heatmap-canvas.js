// The heatmap's cell colours on screen: a <canvas> laid exactly under the SVG's grid. Recolouring
// SVG rects makes Chromium restyle every one of them: in headless Chromium on a 2-core machine,
// recolouring 8 heatmaps of 32×32 took 42 ms per update as rects against 3 ms as canvas fills — and
// a lesson redraws 8 of them per frame. The SVG keeps everything else (labels, values, legend, outlines, the ARIA
// grid), and the exported SVG gets real <rect> fills from the same colours (see heatmap.js toSVG).
import { hexBytes } from './palette-rgb.js';
import { BLOCKED, EMPTY_FILL } from './palettes.js';

// A NaN cell's colour (it should never happen: the core never produces NaN).
const EMPTY_RGB = hexBytes(EMPTY_FILL);

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

// For each of `pixels` pixels along an axis of `cells` cells (pixels ≤ cells), the cell under its centre.
function centres(pixels, cells) {
  return Int32Array.from({ length: pixels }, (_, p) => Math.floor(((p + 0.5) * cells) / pixels));
}

export class CellCanvas {
  canvas = document.createElement('canvas');
  #context = this.canvas.getContext('2d');
  #hatch = null;
  #small = null; // one pixel per cell (at most one per canvas pixel: paint), scaled up onto the canvas
  #smallContext = null;
  #image = null;
  #cells = { rows: 0, cols: 0 };
  #colOf = new Int32Array(0); // for each column of the image, the matrix column it shows (centres below)
  #rowOf = new Int32Array(0);

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
    this.#hatch = this.#hatchPattern(ratio);
    this.#cells = { rows, cols };
    this.#colOf = centres(Math.min(cols, pixelsW), cols);
    this.#rowOf = centres(Math.min(rows, pixelsH), rows);
  }

  // data: the matrix's values, row-major (the rows × cols placed); rgb(v, pixels, at) writes the
  // colour of a finite value (palettes.js rgbScale). The colours go into a small image, one pixel per
  // cell, that is scaled up without smoothing, so cell edges fall on whole pixels and neighbours share
  // them: a few hundred microseconds for 32×32 (the site repaints nine of these per keystroke). Where
  // the canvas has fewer pixels than the matrix has cells in a row or column (2000 × 2000 on a
  // 700-pixel grid), the image has one pixel per canvas pixel instead, showing the cell at its centre,
  // as the scaled-down full image would: the work follows the pixels on screen, not the cells.
  // bench/heatmap-first-draw.mjs: a colour string per cell, parsed back, took 2.6 s for 2000 × 2000.
  // A −∞ cell (a masked score) is left transparent in the image, over the hatch painted beneath.
  paint(data, rgb) {
    const { cols } = this.#cells;
    const colOf = this.#colOf;
    const rowOf = this.#rowOf;
    const width = colOf.length;
    const height = rowOf.length;
    if (this.#image?.width !== width || this.#image?.height !== height) {
      this.#small = Object.assign(document.createElement('canvas'), { width, height });
      this.#smallContext = this.#small.getContext('2d');
      this.#image = this.#smallContext.createImageData(width, height);
    }
    const pixels = this.#image.data;
    let blocked = false;
    for (let y = 0, at = 0; y < height; y++) {
      const row = rowOf[y] * cols;
      for (let x = 0; x < width; x++, at += 4) {
        const v = data[row + colOf[x]];
        if (v === -Infinity) {
          blocked = true;
          pixels[at + 3] = 0;
          continue;
        }
        if (Number.isNaN(v)) pixels.set(EMPTY_RGB, at);
        else rgb(v, pixels, at);
        pixels[at + 3] = 255;
      }
    }
    this.#smallContext.putImageData(this.#image, 0, 0);
    const ctx = this.#context;
    ctx.imageSmoothingEnabled = false;
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    if (blocked) {
      ctx.fillStyle = this.#hatch;
      ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    }
    ctx.drawImage(this.#small, 0, 0, this.canvas.width, this.canvas.height);
  }

  // The same stripes as the SVG's hatch <pattern>: grey, at 45°, every 6 units. The tile is drawn
  // once per pixel ratio and shared by every heatmap (a rebuild must not redraw it).
  #hatchPattern(ratio) {
    return this.#context.createPattern(hatchTile(ratio), 'repeat');
  }
}
