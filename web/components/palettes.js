// Colour scales for the heatmaps. YlOrRd is the tutorials' seaborn palette; cividis and viridis
// stay readable with colour-vision deficiencies; RdBu and PuOr are diverging, for signed values
// (scores, Q, K, V), with 0 always at the palette's neutral middle.
import {
  interpolateCividis, interpolatePuOr, interpolateRdBu, interpolateViridis, interpolateYlOrRd,
} from 'd3-scale-chromatic';

import { PALETTE_RGB } from './palette-rgb.js';

export const PALETTES = {
  YlOrRd: { interpolate: interpolateYlOrRd, rgb: PALETTE_RGB.YlOrRd, diverging: false },
  cividis: { interpolate: interpolateCividis, rgb: PALETTE_RGB.cividis, diverging: false },
  viridis: { interpolate: interpolateViridis, rgb: PALETTE_RGB.viridis, diverging: false },
  RdBu: { interpolate: interpolateRdBu, rgb: PALETTE_RGB.RdBu, diverging: true },
  PuOr: { interpolate: interpolatePuOr, rgb: PALETTE_RGB.PuOr, diverging: true },
};

export const DEFAULT_PALETTE = 'YlOrRd';

export function palette(name) {
  return PALETTES[name] ?? PALETTES[DEFAULT_PALETTE];
}

// One pass over the data: the finite range, the largest magnitude, whether any cell is −∞ (masked).
export function scan(data) {
  let min = Infinity;
  let max = -Infinity;
  let blocked = false;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v === -Infinity) blocked = true;
    else if (Number.isFinite(v)) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  if (min > max) [min, max] = [0, 0]; // nothing finite: an all-masked row block, say
  return { min, max, blocked };
}

// The default [lo, hi]: the data's range, made symmetric around 0 for a diverging palette so that
// equal magnitudes get equally strong colours whatever their sign.
// The default domain, the site's colour language: a sequential palette over values that all lie in
// [0, 1] (weights, probabilities, masks) spans [0, 1], so 0.2 never looks like 0 nor 0.5 like the
// maximum; a diverging one is symmetric around 0; other data spans its own range. With `range` (the
// page asked for domain 'data') a sequential palette always spans the data's range.
export function dataDomain({ min, max }, diverging, { range = false } = {}) {
  if (!diverging && !range && min >= 0 && max <= 1) return [0, 1];
  if (!diverging) return min === max ? [min - 1, max + 1] : [min, max];
  const m = Math.max(Math.abs(min), Math.abs(max)) || 1;
  return [-m, m];
}

// value → position in [0, 1] along the palette. A diverging palette whose domain straddles 0 maps
// each side separately, so 0 lands on the neutral middle even for a lopsided domain the page chose.
export function unitScale([lo, hi], diverging) {
  const clamp = (t) => (t < 0 ? 0 : t > 1 ? 1 : t);
  if (diverging && lo < 0 && hi > 0) {
    return (v) => (v < 0 ? clamp(0.5 * (v - lo) / -lo) : clamp(0.5 + 0.5 * v / hi));
  }
  const span = hi - lo || 1;
  return (v) => clamp((v - lo) / span);
}

// value → CSS colour.
export function colorScale(name, domain) {
  const { interpolate, diverging } = palette(name);
  const unit = unitScale(domain, diverging);
  return (v) => interpolate(unit(v));
}

// The same scale as bytes: (v, out, at) writes the [r, g, b] of colorScale(name, domain)(v) into
// out[at …] (palette-rgb.js), for painting millions of pixels without a string per cell.
export function rgbScale(name, domain) {
  const { rgb, diverging } = palette(name);
  const unit = unitScale(domain, diverging);
  return (v, out, at) => rgb(unit(v), out, at);
}

// Black or white, whichever contrasts more with `color` ("rgb(r, g, b)" or "#rrggbb"): the WCAG
// luminance at which both give the same contrast ratio is 0.179.
export function textColorOn(color) {
  const channels = color.startsWith('#')
    ? [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16))
    : color.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
  const [r, g, b] = channels.map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 ? '#000000' : '#ffffff';
}

// Blocked (−∞) cells: hatched grey, the same in every palette, and dark "−∞" on it.
export const BLOCKED = { background: '#e4e4e4', stripe: '#b4b4b4', text: '#1a1a1a' };
// NaN cells (should not happen: the core never produces NaN) are left blank and pale.
export const EMPTY_FILL = '#f3f3f3';
