// The palettes as numbers: t in [0, 1] → the [r, g, b] bytes of the colour d3-scale-chromatic's
// interpolator gives for t, written into pixel data (a Uint8ClampedArray, as ImageData holds). A large heatmap paints millions of cells:
// asking d3 for an "rgb(r, g, b)" string per cell and parsing it back took 2.6 s for 2000 × 2000
// (bench/heatmap-first-draw.mjs). Each function here repeats its d3 interpolator's arithmetic in the
// same order, so the bytes are the very numbers d3 prints (tests/js/palette-rgb.test.js compares them
// over a dense sweep of t): on screen a cell has the colour the exported SVG names.
import { interpolateViridis, schemePuOr, schemeRdBu, schemeYlOrRd } from 'd3-scale-chromatic';

// `out` is pixel data, a Uint8ClampedArray: storing Math.round(value) there clamps it to 0 … 255 and
// makes NaN 0, which is d3-color's rounding of a channel when it formats a colour (clampi), without a
// call per channel.

// [r, g, b] of "#rrggbb".
export const hexBytes = (hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));

// d3's ramp of a ColorBrewer scheme (its largest size): interpolateRgbBasis, a uniform cubic B-spline
// through the scheme's colours, one per channel (d3-interpolate's basis, whose arithmetic this repeats).
// Segment i of n blends knots i − 1 … i + 2, the ones beyond the ends reflected (2·v1 − v2) as d3 does;
// they are laid out once per segment and channel, and the four weights, which depend on t alone, are
// computed once for the three channels.
function rgbBasis(scheme) {
  const colours = scheme.at(-1).map(hexBytes);
  const n = colours.length - 1;
  const knots = new Float64Array(12 * n); // [segment][channel][v0, v1, v2, v3]
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 3; k++) {
      const v1 = colours[i][k];
      const v2 = colours[i + 1][k];
      knots.set([i > 0 ? colours[i - 1][k] : 2 * v1 - v2, v1, v2, i < n - 1 ? colours[i + 2][k] : 2 * v2 - v1], 12 * i + 4 * k);
    }
  }
  return (t, out, at) => {
    const i = t <= 0 ? (t = 0) : t >= 1 ? (t = 1, n - 1) : Math.floor(t * n);
    const t1 = (t - i / n) * n;
    const t2 = t1 * t1;
    const t3 = t2 * t1;
    const w0 = 1 - 3 * t1 + 3 * t2 - t3;
    const w1 = 4 - 6 * t2 + 3 * t3;
    const w2 = 1 + 3 * t1 + 3 * t2 - 3 * t3;
    for (let k = 0, s = 12 * i; k < 3; k++, s += 4) {
      out[at + k] = Math.round((w0 * knots[s] + w1 * knots[s + 1] + w2 * knots[s + 2] + t3 * knots[s + 3]) / 6);
    }
  };
}

// cividis: d3's polynomial fit, coefficient for coefficient.
function cividis(t, out, at) {
  t = Math.max(0, Math.min(1, t));
  out[at] = Math.round(-4.54 - t * (35.34 - t * (2381.73 - t * (6402.7 - t * (7024.72 - t * 2710.57)))));
  out[at + 1] = Math.round(32.49 + t * (170.73 + t * (52.82 - t * (131.46 - t * (176.58 - t * 67.37)))));
  out[at + 2] = Math.round(81.24 + t * (442.36 - t * (2482.43 - t * (6167.24 - t * (6614.94 - t * 2475.67)))));
}

// viridis: d3 picks one of 256 colours, floor(t · 256); the table is read from d3 at each step's middle.
const VIRIDIS = Uint8Array.from({ length: 256 * 3 }, (_, k) => hexBytes(interpolateViridis((Math.floor(k / 3) + 0.5) / 256))[k % 3]);
function viridis(t, out, at) {
  const k = 3 * Math.max(0, Math.min(255, Math.floor(t * 256)));
  out[at] = VIRIDIS[k];
  out[at + 1] = VIRIDIS[k + 1];
  out[at + 2] = VIRIDIS[k + 2];
}

export const PALETTE_RGB = {
  YlOrRd: rgbBasis(schemeYlOrRd),
  cividis,
  viridis,
  RdBu: rgbBasis(schemeRdBu),
  PuOr: rgbBasis(schemePuOr),
};
