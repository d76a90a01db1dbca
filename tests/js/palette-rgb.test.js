// The heatmap paints its canvas from the palettes' bytes (web/components/palette-rgb.js) and names
// cells in the exported SVG with d3-scale-chromatic's strings: the two must be the same colour, to the
// byte, for every value. Checked against d3's own interpolators over a dense sweep of t, the spline's
// knots and both ends (and beyond them, where d3 clamps), for every palette.
import assert from 'node:assert/strict';
import test from 'node:test';

import {
  interpolateCividis, interpolatePuOr, interpolateRdBu, interpolateViridis, interpolateYlOrRd,
} from 'd3-scale-chromatic';

import { PALETTE_RGB } from '../../web/components/palette-rgb.js';
import { colorScale, rgbScale } from '../../web/components/palettes.js';

const D3 = { YlOrRd: interpolateYlOrRd, cividis: interpolateCividis, viridis: interpolateViridis, RdBu: interpolateRdBu, PuOr: interpolatePuOr };

// [r, g, b] of d3's "rgb(r, g, b)" or "#rrggbb".
const bytesOf = (css) => (css.startsWith('#')
  ? [1, 3, 5].map((k) => parseInt(css.slice(k, k + 2), 16))
  : css.match(/\d+/g).slice(0, 3).map(Number));

function sweep() {
  const ts = [-0.5, -1e-9, 0, 1, 1 + 1e-9, 1.5];
  for (let k = 0; k <= 100000; k++) ts.push(k / 100000);
  for (let n = 8; n <= 10; n++) { // the knots of 9- and 11-colour schemes, and either side of them
    for (let i = 0; i <= n; i++) ts.push(i / n, i / n - 1e-12, i / n + 1e-12);
  }
  let seed = 12345;
  for (let k = 0; k < 100000; k++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    ts.push(Math.fround(seed / 2147483648));
  }
  return ts;
}

test('every palette\'s bytes are the colour d3-scale-chromatic prints, for every t', () => {
  assert.deepEqual(Object.keys(PALETTE_RGB).sort(), Object.keys(D3).sort());
  const ts = sweep();
  const out = new Uint8ClampedArray(3); // pixel data, as the canvas's ImageData holds
  for (const [name, interpolate] of Object.entries(D3)) {
    let differences = 0;
    let first = null;
    for (const t of ts) {
      PALETTE_RGB[name](t, out, 0);
      const expected = bytesOf(interpolate(t));
      if (out[0] !== expected[0] || out[1] !== expected[1] || out[2] !== expected[2]) {
        differences++;
        first ??= `t = ${t}: ${[...out]} vs d3 ${interpolate(t)}`;
      }
    }
    assert.equal(differences, 0, `${name}: ${differences} of ${ts.length} differ, first ${first}`);
  }
});

test('rgbScale writes, at the offset asked, what colorScale names for a value of the domain', () => {
  const pixels = new Uint8ClampedArray(8).fill(7);
  for (const [name, domain] of [['YlOrRd', [0, 1]], ['RdBu', [-2, 2]], ['PuOr', [-3, 1]], ['viridis', [0.1, 0.7]]]) {
    const bytes = rgbScale(name, domain);
    const css = colorScale(name, domain);
    for (const v of [domain[0], 0, 0.3, -1, Math.fround(0.48), domain[1], 5]) {
      bytes(v, pixels, 4);
      assert.deepEqual([...pixels.subarray(4, 7)], bytesOf(css(v)), `${name} ${v}`);
      assert.deepEqual([...pixels.subarray(0, 4)], [7, 7, 7, 7], 'nothing written before the offset');
    }
  }
});
