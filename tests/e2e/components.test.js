// The web components (web/dist/components.js) in headless Chromium, on tests/e2e/pages/components.html:
// what they draw (colours checked against d3-scale-chromatic evaluated here in Node), keyboard and
// pointer use, export, untrusted labels, the stepper, axe-core, narrow screens, and update speed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { interpolateRdBu, interpolateYlOrRd } from 'd3-scale-chromatic';

import { launch, open } from './browser.js';
import { serve } from './static-server.js';

const repo = new URL('../../', import.meta.url).pathname;
const bundle = join(repo, 'web/dist/components.js');
const screenshots = join(repo, 'test-output/screenshots');
const PAGE = '/tests/e2e/pages/components.html';
const ascii = (text) => text.replaceAll('\u2212', '-'); // the components print a true minus sign
const exact = (v) => Math.fround(v).toPrecision(6);

// (Re)builds the bundle when it is missing or older than a source file.
function ensureBundle() {
  const sources = readdirSync(join(repo, 'web/components')).map((f) => join(repo, 'web/components', f));
  const stale = !existsSync(bundle) || sources.some((f) => statSync(f).mtimeMs > statSync(bundle).mtimeMs);
  if (stale) execFileSync(join(repo, 'scripts/build-components.sh'), { stdio: ['ignore', 'ignore', 'inherit'] });
}

// Runs fn(shadowRoot, element, arg) in the page for the element with the given id.
function inShadow(page, id, fn, arg) {
  return page.evaluate(([id, source, arg]) => {
    const element = document.getElementById(id);
    return new Function('root', 'element', 'arg', `return (${source})(root, element, arg);`)(element.shadowRoot, element, arg);
  }, [id, fn.toString(), arg]);
}

// What a heatmap shows: the canvas pixel at each cell's centre (the on-screen colours), each cell's
// fill in the file toSVG() writes, printed values, axis texts, the active cell, the tooltip.
const readHeatmap = (root, element) => {
  const grid = root.querySelector('svg[role=grid]');
  const active = root.getElementById(grid.getAttribute('aria-activedescendant'));
  const tip = root.querySelector('.tooltip');
  const file = new DOMParser().parseFromString(element.toSVG(), 'image/svg+xml');
  const canvas = root.querySelector('canvas');
  const { rows, cols } = element.matrix;
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const centre = (i) => {
    const x = Math.floor(((i % cols) + 0.5) * (canvas.width / cols));
    const y = Math.floor((Math.floor(i / cols) + 0.5) * (canvas.height / rows));
    const at = 4 * (y * canvas.width + x);
    return `rgb(${pixels[at]}, ${pixels[at + 1]}, ${pixels[at + 2]})`;
  };
  return {
    pixels: Array.from({ length: rows * cols }, (_, i) => centre(i)),
    fills: [...file.querySelectorAll('g.cells rect')].map((c) => c.getAttribute('fill')),
    values: [...root.querySelectorAll('.values text')].map((t) => t.textContent),
    axisTexts: [...grid.querySelectorAll('g[aria-hidden] > text')].map((t) => t.textContent),
    activeIndex: Number(active?.getAttribute('data-i')),
    activeRole: active?.getAttribute('role'),
    activeLabel: active?.getAttribute('aria-label') ?? '',
    tooltip: tip.hidden ? null : tip.textContent,
    focusRing: getComputedStyle(root.querySelector('.focus-ring')).display,
    images: root.querySelectorAll('img').length,
  };
};

// Clicks (or hovers) cell (row, col) of the heatmap `locator` points at.
async function pointAt(locator, row, col, action = 'click') {
  const grid = locator.locator('svg .hit');
  const box = await grid.boundingBox();
  const { rows, cols } = await locator.evaluate((element) => element.matrix);
  await grid[action]({ position: { x: ((col + 0.5) * box.width) / cols, y: ((row + 0.5) * box.height) / rows } });
}

describe('web components in Chromium', () => {
  let server;
  let browser;
  let page;
  let errors;
  let dialogs;
  let data;

  before(async () => {
    ensureBundle();
    server = await serve(repo);
    browser = await launch();
    ({ page, errors, dialogs } = await open(browser, server.url + PAGE, { viewport: { width: 1280, height: 900 } }));
    data = await page.evaluate(() => JSON.parse(document.body.dataset.result));
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the page loaded its data', () => {
    assert.deepEqual(errors, []);
    assert.ok(data, 'the page reported its data');
  });

  test('attn-heatmap: one cell per entry, palette colours, printed values, −∞, labels on both axes', async () => {
    const { rows, cols, data: values } = data.weights;
    const shown = await inShadow(page, 'weights', readHeatmap);
    assert.equal(shown.fills.length, rows * cols, 'one filled rect per entry in the SVG file');
    // Weights (every value in [0, 1]) on the sequential palette span [0, 1] by default, the site's colour
    // language: 0.9 is not the palette's end, 0.01 is nearly its start (float32, as the page stored them).
    const at = (v) => interpolateYlOrRd(Math.fround(v));
    const indexOf = (v) => values.indexOf(Math.fround(v));
    assert.equal(shown.fills[indexOf(0.9)], at(0.9), 'the largest value is 0.9 of the way, not the palette\'s end');
    assert.equal(shown.fills[indexOf(0.01)], at(0.01));
    assert.equal(shown.fills[indexOf(0.48)], at(0.48));
    // On screen, every cell shows its value's colour (−∞: the hatch, grey at the cell's centre).
    values.forEach((v, i) => {
      if (v !== '-Infinity') assert.equal(shown.pixels[i], at(v), `cell ${i} (${v}) on screen`);
      else assert.match(shown.pixels[i], /^rgb\((\d+), \1, \1\)$/, `cell ${i} (−∞) is grey`);
    });
    values.forEach((v, i) => {
      if (v === '-Infinity') {
        assert.match(shown.fills[i], /^url\(#.*blocked\)$/, 'a masked cell is hatched');
        assert.equal(shown.values[i], '\u2212∞');
      } else {
        assert.equal(ascii(shown.values[i]), Math.fround(v).toFixed(2));
      }
    });
    assert.ok(!shown.values.some((t) => /nan/i.test(t)));
    for (const label of ['the', 'cat', 'sat', 'on']) assert.ok(shown.axisTexts.includes(label), `label ${label}`);
    assert.equal(shown.axisTexts.filter((t) => t === 'sat').length, 2, 'a token on both axes');
    for (const title of ['Query', 'Key']) assert.ok(shown.axisTexts.includes(title));
  });

  test('attn-heatmap: a diverging palette puts 0 at its middle and ±max at its ends', async () => {
    const shown = await inShadow(page, 'signed', readHeatmap);
    const { data: values } = data.signed; // max |v| = 2
    assert.equal(shown.fills[values.indexOf(0)], interpolateRdBu(0.5));
    assert.equal(shown.fills[values.indexOf(2)], interpolateRdBu(1));
    assert.equal(shown.fills[values.indexOf(-2)], interpolateRdBu(0));
    assert.equal(shown.fills[values.indexOf(-1)], interpolateRdBu(0.25));
    assert.equal(shown.pixels[values.indexOf(0)], interpolateRdBu(0.5));
  });

  test('attn-heatmap: arrow keys move the active cell, which is announced and fires cell-focus', async () => {
    await page.locator('#weights svg[role=grid]').focus();
    let shown = await inShadow(page, 'weights', readHeatmap);
    assert.equal(shown.activeIndex, 0);
    assert.notEqual(shown.focusRing, 'none', 'the focus ring shows');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    shown = await inShadow(page, 'weights', readHeatmap);
    const { cols, data: values } = data.weights;
    assert.equal(shown.activeIndex, 1 * cols + 1);
    assert.equal(shown.activeRole, 'gridcell');
    assert.ok(ascii(shown.activeLabel).includes(exact(values[cols + 1])), shown.activeLabel);
    assert.match(shown.activeLabel, /Query cat, Key cat/);
    assert.ok(ascii(shown.tooltip).includes(exact(values[cols + 1])), 'the tooltip follows the keyboard');
    const events = await page.evaluate(() => window.seen.cellFocus.filter((e) => e.id === 'weights'));
    assert.deepEqual(events.map(({ row, col }) => [row, col]), [[0, 1], [1, 1]]);
    assert.equal(events[1].value, Math.fround(values[cols + 1]));

    await page.keyboard.press('End');
    assert.equal((await inShadow(page, 'weights', readHeatmap)).activeIndex, 2 * cols - 1);
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp'); // stays on the first row
    shown = await inShadow(page, 'weights', readHeatmap);
    assert.equal(shown.activeIndex, 0);
    assert.ok(ascii(shown.activeLabel).includes(exact(values[0])));
  });

  test('attn-heatmap: focus() focuses its grid, so the arrow keys work at once', async () => {
    const focused = await page.evaluate(() => {
      const heatmap = document.getElementById('weights');
      heatmap.focus();
      return document.activeElement === heatmap && heatmap.shadowRoot.activeElement?.getAttribute('role') === 'grid';
    });
    assert.ok(focused);
    await page.locator('body').click({ position: { x: 1, y: 1 } });
  });

  test('attn-heatmap: a masked cell is announced as −∞, never NaN', async () => {
    await pointAt(page.locator('#weights'), 0, 2);
    const shown = await inShadow(page, 'weights', readHeatmap);
    assert.equal(shown.activeIndex, 2);
    assert.match(shown.activeLabel, /^−∞ \(masked\)/);
    const last = await page.evaluate(() => window.seen.cellFocus.at(-1));
    assert.deepEqual([last.row, last.col, last.value], [0, 2, -Infinity]);
  });

  test('attn-heatmap: hovering a cell shows its exact value and "row → column"', async () => {
    const { cols, data: values } = data.weights;
    await pointAt(page.locator('#weights'), 2, 0, 'hover');
    const { tooltip } = await inShadow(page, 'weights', readHeatmap);
    assert.ok(tooltip, 'a tooltip shows');
    assert.ok(ascii(tooltip).includes(exact(values[2 * cols])), tooltip);
    assert.ok(tooltip.includes('<img src=x onerror=alert(1)> → the'), 'the full label, as text');
    await page.mouse.move(0, 0);
  });

  test('attn-heatmap: a label with markup stays text and runs no script', async () => {
    const shown = await inShadow(page, 'weights', readHeatmap);
    assert.equal(shown.images, 0, 'no <img> element was created');
    assert.ok(shown.axisTexts.some((t) => t.startsWith('<img src=x')), 'the label is shown as text');
    assert.ok(await page.evaluate(() => document.getElementById('weights').shadowRoot.querySelector('figcaption').textContent.length > 0));
    assert.deepEqual(dialogs, []);
  });

  test('attn-heatmap: a 10,000-character label is cut with an ellipsis between whole characters', async () => {
    const shown = await inShadow(page, 'signed', async (root, element) => {
      const long = '😀'.repeat(5000) + 'x'.repeat(5000);
      element.rowLabels = [long, 'b', 'c'];
      element.colLabels = ['a', 'b', 'c'];
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const grid = root.querySelector('svg[role=grid]');
      return [...grid.querySelectorAll('g[aria-hidden] > text')].map((t) => t.textContent);
    });
    const cut = shown.find((t) => t.startsWith('😀'));
    assert.ok(cut, `the long label is shown (${shown.join(' | ')})`);
    assert.ok(cut.endsWith('…') && cut.length < 100, `cut short with an ellipsis: ${cut.length} UTF-16 units`);
    assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(cut), 'no emoji cut in half');
    await inShadow(page, 'signed', async (root, element) => {
      element.rowLabels = undefined;
      element.colLabels = undefined;
    });
  });

  test('attn-heatmap: in a narrow container the SVG shrinks and printed values hide, then return', async () => {
    const read = () => page.evaluate(async () => {
      const heatmap = document.getElementById('narrow');
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const root = heatmap.shadowRoot;
      return { width: root.querySelector('svg').getBoundingClientRect().width, box: heatmap.parentElement.clientWidth,
        values: getComputedStyle(root.querySelector('.values')).display };
    });
    await page.evaluate(() => {
      const box = Object.assign(document.createElement('div'), { style: 'width: 140px' });
      const heatmap = Object.assign(document.createElement('attn-heatmap'), { id: 'narrow', caption: 'narrow' });
      heatmap.matrix = { rows: 12, cols: 12, data: Float32Array.from({ length: 144 }, (_, i) => Math.sin(i)) };
      document.body.append(box);
      box.append(heatmap);
    });
    const narrow = await read();
    assert.ok(narrow.width <= narrow.box, `the SVG (${narrow.width} px) fits its ${narrow.box} px box`);
    assert.equal(narrow.values, 'none', 'values in 6 px cells are hidden');
    await page.evaluate(() => { document.getElementById('narrow').parentElement.style.width = '900px'; });
    assert.notEqual((await read()).values, 'none', 'values show again at full size');
    await page.evaluate(() => document.getElementById('narrow').parentElement.remove());
  });

  test('toSVG() is standalone SVG with every cell; toPNG() is a PNG', async () => {
    const result = await page.evaluate(async () => {
      const heatmap = document.getElementById('weights');
      const text = heatmap.toSVG();
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const png = await heatmap.toPNG(2);
      const bitmap = await createImageBitmap(png);
      const curves = new DOMParser().parseFromString(document.getElementById('pe').toSVG(), 'image/svg+xml');
      return {
        text, parseError: doc.querySelector('parsererror')?.textContent ?? null, root: doc.documentElement.localName,
        xmlns: doc.documentElement.getAttribute('xmlns'), cells: doc.querySelectorAll('g.cells rect').length,
        viewBox: doc.documentElement.getAttribute('viewBox'), png: { type: png.type, size: png.size, width: bitmap.width },
        curves: { parseError: curves.querySelector('parsererror') !== null, paths: curves.querySelectorAll('path.curve').length },
        curvesPng: (await document.getElementById('pe').toPNG()).type,
      };
    });
    assert.equal(result.parseError, null);
    assert.equal(result.root, 'svg');
    assert.equal(result.xmlns, 'http://www.w3.org/2000/svg');
    assert.equal(result.cells, data.weights.rows * data.weights.cols);
    assert.doesNotMatch(result.text, /(href|src)="(https?:|\/\/)|url\((?!#)/, 'no external references');
    assert.doesNotMatch(result.text, /focus-ring|tabindex|aria-/, 'no on-screen-only parts');
    assert.match(result.text, /<title>Masked scores, token labels<\/title>/);
    assert.match(result.text, /&lt;img src=x/, 'the label is escaped text in the file');
    assert.equal(result.png.type, 'image/png');
    assert.ok(result.png.size > 1000);
    assert.equal(result.png.width, Math.round(2 * Number(result.viewBox.split(' ')[2])));
    assert.deepEqual(result.curves, { parseError: false, paths: 4 });
    assert.equal(result.curvesPng, 'image/png');
  });

  // A 2000 × 2000 heatmap took 46 s and 325 M characters to export as SVG, freezing the tab.
  test('a 2000 × 2000 heatmap: toSVG() refuses with a message, the SVG button is disabled, toPNG() draws it from the canvas', async () => {
    const result = await page.evaluate(async () => {
      const big = document.createElement('attn-heatmap');
      big.setAttribute('show-values', 'false');
      document.body.append(big);
      const n = 2000;
      const data = new Float32Array(n * n);
      for (let i = 0; i < data.length; i++) data[i] = ((i * 7919) % 1000) / 1000;
      big.matrix = { rows: n, cols: n, data };
      await big.updateComplete;
      let refused = null;
      try { big.toSVG(); } catch (error) { refused = `${error.name}: ${error.message}`; }
      const button = big.shadowRoot.querySelector('[part=tools] button');
      const png = await big.toPNG(1);
      const bitmap = await createImageBitmap(png);
      big.remove();
      return { refused, disabled: button.disabled, title: button.title, png: png.type, width: bitmap.width };
    });
    assert.equal(result.refused, 'AttnLabError: <attn-heatmap>.toSVG: 2000 × 2000 = 4,000,000 cells is over the 40,000 an SVG '
      + 'file is written for (one element per cell); export it with toPNG()');
    assert.equal(result.disabled, true);
    assert.match(result.title, /Too many cells for an SVG file/);
    assert.equal(result.png, 'image/png');
    assert.ok(result.width > 100);
  });

  // The first draw of a 2000 × 2000 matrix blocked the page for 2.6 s: a CSS colour string per cell,
  // parsed back to bytes, and a fillRect per masked cell (bench/heatmap-first-draw.mjs times it; a test
  // must not). What is checked here is how it draws: an ImageData no larger than the canvas (the colours
  // of the cells on screen, not of 4 million), one fill for the hatch of 2 million masked cells, and at
  // sampled pixels the colour d3-scale-chromatic gives (in Node) for the cell under the pixel's centre.
  test('a 2000 × 2000 masked heatmap is drawn as one ImageData of at most the canvas\'s pixels, in the palette\'s colours', async () => {
    const n = 2000;
    // Causal scores on [0, 1]: row r, column c ≤ r holds ((7919 r + 104729 c) mod 10007) / 10007, the rest −∞.
    const valueAt = (r, c) => (c <= r ? Math.fround(((r * 7919 + c * 104729) % 10007) / 10007) : -Infinity);
    const result = await page.evaluate(async ({ n, valueSource }) => {
      const valueAt = new Function(`return ${valueSource}`)();
      const data = new Float32Array(n * n);
      for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) data[r * n + c] = valueAt(r, c);
      const prototype = CanvasRenderingContext2D.prototype;
      const { createImageData, fillRect } = prototype;
      const images = [];
      let fills = 0;
      prototype.createImageData = function (...args) {
        images.push(args.slice(0, 2));
        return createImageData.apply(this, args);
      };
      prototype.fillRect = function (...args) {
        fills++;
        return fillRect.apply(this, args);
      };
      const big = document.createElement('attn-heatmap');
      document.body.append(big);
      try {
        big.matrix = { rows: n, cols: n, data };
        await big.updateComplete;
      } finally {
        Object.assign(prototype, { createImageData, fillRect });
      }
      const canvas = big.shadowRoot.querySelector('canvas');
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      const samples = [];
      for (let k = 0; k < 400; k++) {
        const x = (k * 7919) % canvas.width;
        const y = (k * 104729) % canvas.height;
        const at = 4 * (y * canvas.width + x);
        samples.push({ x, y, rgb: [pixels[at], pixels[at + 1], pixels[at + 2]] });
      }
      big.remove();
      return { images, fills, width: canvas.width, height: canvas.height, samples };
    }, { n, valueSource: valueAt.toString() });
    assert.ok(result.width < n && result.height < n, 'the canvas has fewer pixels than the matrix has cells');
    assert.deepEqual(result.images, [[result.width, result.height]], 'one ImageData, one pixel per canvas pixel');
    assert.ok(result.fills <= 2, `the masked half is hatched in one fill, not one per cell (${result.fills} fillRect calls)`);
    let masked = 0;
    for (const { x, y, rgb } of result.samples) {
      const row = Math.floor(((y + 0.5) * n) / result.height);
      const col = Math.floor(((x + 0.5) * n) / result.width);
      const v = valueAt(row, col);
      if (v === -Infinity) {
        masked++;
        assert.ok(rgb[0] === rgb[1] && rgb[1] === rgb[2], `pixel (${x}, ${y}), cell (${row}, ${col}) −∞: grey hatch, got ${rgb}`);
      } else {
        assert.equal(`rgb(${rgb.join(', ')})`, interpolateYlOrRd(v), `pixel (${x}, ${y}), cell (${row}, ${col}) = ${v}`);
      }
    }
    assert.ok(masked > 50 && masked < 350, `both halves sampled (${masked} of 400 masked)`);
  });

  test('attn-heatmap: a (batch, heads, n_q, n_k) tensor draws the slice its batch and head attributes pick, and says which', async () => {
    const seen = await page.evaluate(async () => {
      const errors = [];
      const logged = console.error;
      console.error = (error) => errors.push(String(error));
      const heatmap = document.createElement('attn-heatmap');
      heatmap.caption = 'weights';
      document.body.append(heatmap);
      // weights (2, 3, 2, 2): element i holds i / 100, so slice (b, h) holds (4·(3b + h) + 0 … 3) / 100.
      heatmap.matrix = { shape: [2, 3, 2, 2], data: Float32Array.from({ length: 24 }, (_, i) => i / 100) };
      const read = async () => {
        await heatmap.updateComplete;
        const root = heatmap.shadowRoot;
        const problem = root.querySelector('.problem');
        return {
          caption: root.querySelector('figcaption').textContent,
          values: [...root.querySelectorAll('.values text')].map((t) => t.textContent),
          problem: problem.hidden ? null : problem.textContent,
        };
      };
      const first = await read();
      heatmap.setAttribute('batch', '1');
      heatmap.head = 2;
      const picked = await read();
      heatmap.head = 3;
      const outside = await read();
      heatmap.head = 0;
      const back = await read();
      let refused = '';
      try {
        heatmap.matrix = { shape: [1, 2, 3, 2, 2], data: new Float32Array(24) };
      } catch (error) {
        refused = error.message;
      }
      heatmap.remove();
      console.error = logged;
      return { first, picked, outside, back, refused, errors };
    });
    assert.deepEqual(seen.first, { caption: 'weights — batch 0, head 0 of (2, 3, 2, 2)', values: ['0.00', '0.01', '0.02', '0.03'], problem: null });
    assert.deepEqual(seen.picked, { caption: 'weights — batch 1, head 2 of (2, 3, 2, 2)', values: ['0.20', '0.21', '0.22', '0.23'], problem: null });
    assert.equal(seen.outside.problem, '<attn-heatmap> head="3" is outside the tensor (2, 3, 2, 2): its head dim has indices 0 to 2');
    assert.deepEqual(seen.back.values, ['0.12', '0.13', '0.14', '0.15'], 'batch 1, head 0');
    assert.equal(seen.back.problem, null);
    assert.match(seen.refused, /^<attn-heatmap>\.matrix must be a Matrix or a tensor of 2 to 4 dims .* got shape \(1, 2, 3, 2, 2\)$/);
    assert.equal(seen.errors.length, 1, 'the out-of-range head logged once');
  });

  test('pe-plot: one curve per requested dim, a legend, and a summary for screen readers', async () => {
    const read = (root) => ({
      paths: [...root.querySelectorAll('path.curve')].map((p) => ({ points: p.getAttribute('d').split(/[ML]/).length - 1, dash: p.getAttribute('stroke-dasharray'), stroke: p.getAttribute('stroke') })),
      legend: [...root.querySelectorAll('.legend text')].map((t) => t.textContent),
      role: root.querySelector('svg').getAttribute('role'),
      label: root.querySelector('svg').getAttribute('aria-label'),
    });
    const curves = await inShadow(page, 'pe', read);
    assert.equal(curves.paths.length, 4);
    assert.ok(curves.paths.every((p) => p.points === data.pe.rows));
    assert.equal(new Set(curves.paths.map((p) => p.stroke)).size, 4, 'distinct colours');
    assert.equal(new Set(curves.paths.map((p) => p.dash)).size, 4, 'distinct dash patterns');
    assert.deepEqual(curves.legend, ['dim 0', 'dim 1', 'dim 4', 'dim 8']);
    assert.equal(curves.role, 'img');
    assert.match(curves.label, /dimensions 0, 1, 4, 8 over positions 0 to 49/);

    await page.evaluate(() => { document.getElementById('pe').dims = [2, 3]; });
    await page.evaluate(() => document.getElementById('pe').updateComplete);
    assert.deepEqual((await inShadow(page, 'pe', read)).legend, ['dim 2', 'dim 3']);
    await page.evaluate(() => { document.getElementById('pe').dims = [0, 1, 4, 8]; });

    const heatmap = await inShadow(page, 'pe-heatmap', (root) => {
      const inner = root.querySelector('attn-heatmap');
      const file = new DOMParser().parseFromString(inner.toSVG(), 'image/svg+xml');
      return { cells: file.querySelectorAll('g.cells rect').length, palette: inner.palette };
    });
    assert.deepEqual(heatmap, { cells: data.pe.rows * data.pe.cols, palette: 'RdBu' });
  });

  describe('attn-stepper', () => {
    const state = () => inShadow(page, 'stepper', (root, element) => ({
      index: element.index,
      count: root.querySelector('.count').textContent,
      title: root.querySelector('.title').textContent,
      prevDisabled: root.querySelectorAll('button')[0].disabled,
      nextDisabled: root.querySelectorAll('button')[1].disabled,
      tensors: [...root.querySelectorAll('attn-heatmap')].map((h) => h.caption),
    }));
    const changes = () => page.evaluate(() => window.seen.stepChange.splice(0));
    const n = () => data.steps.length;

    test('Next and Prev change the step, fire step-change and disable at the ends', async () => {
      let s = await state();
      assert.equal(s.count, `Step 1 of ${n()}`);
      assert.equal(s.prevDisabled, true);
      assert.equal(s.nextDisabled, false);
      await page.locator('#stepper button', { hasText: 'Next' }).click();
      s = await state();
      assert.equal(s.index, 1);
      assert.equal(s.count, `Step 2 of ${n()}`);
      assert.equal(s.prevDisabled, false);
      assert.deepEqual(await changes(), [{ index: 1, id: data.steps[1] }]);
      await page.locator('#stepper button', { hasText: 'Previous' }).click();
      assert.equal((await state()).index, 0);
      assert.deepEqual(await changes(), [{ index: 0, id: data.steps[0] }]);

      await page.evaluate((last) => { document.getElementById('stepper').index = last; }, n() - 2);
      await page.locator('#stepper button', { hasText: 'Next' }).click();
      s = await state();
      assert.equal(s.index, n() - 1);
      assert.equal(s.nextDisabled, true);
      assert.equal(await page.evaluate(() => document.getElementById('stepper').shadowRoot.activeElement?.textContent.trim()), '← Previous',
        'the focus moves to Previous rather than getting lost');
    });

    test('← and → change the step while the focus is inside; a heatmap keeps its own arrows', async () => {
      await page.evaluate(() => { document.getElementById('stepper').index = 3; });
      await page.locator('#stepper button', { hasText: 'Next' }).focus();
      await changes();
      await page.keyboard.press('ArrowRight');
      assert.equal((await state()).index, 4);
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      assert.equal((await state()).index, 2);
      assert.deepEqual((await changes()).map((c) => c.index), [4, 3, 2]);

      await page.locator('#stepper attn-heatmap svg[role=grid]').first().focus();
      await page.keyboard.press('ArrowRight');
      assert.equal((await state()).index, 2, 'the arrow moved a cell, not the step');
      assert.deepEqual(await changes(), []);
    });

    test('picking a cell of the scores outlines the query row and the key row', async () => {
      const scores = data.steps.indexOf('head0.scores');
      await page.evaluate((i) => { document.getElementById('stepper').index = i; }, scores);
      assert.deepEqual((await state()).tensors, ['Q  (6, 4)', 'K  (6, 4)', 'scores  (6, 6)']);
      await pointAt(page.locator('#stepper attn-heatmap').nth(2), 1, 3);
      const highlights = await inShadow(page, 'stepper', (root) => [...root.querySelectorAll('attn-heatmap')].map((h) => h.highlight));
      assert.deepEqual(highlights.slice(0, 2), [{ rows: [1] }, { rows: [3] }]);
    });

    test('masked scores show −∞ cells', async () => {
      await page.evaluate((i) => { document.getElementById('stepper').index = i; }, data.steps.indexOf('head0.masked_scores'));
      await page.evaluate(() => new Promise(requestAnimationFrame));
      const texts = await inShadow(page, 'stepper', (root) => {
        const masked = [...root.querySelectorAll('attn-heatmap')].at(-1);
        return [...masked.shadowRoot.querySelectorAll('.values text')].map((t) => t.textContent);
      });
      assert.equal(texts.filter((t) => t === '\u2212∞').length, 15, 'causal 6×6: 15 blocked entries');
    });

    test('setting steps again keeps the index (clamped)', async () => {
      const before = await state();
      const changed = await page.evaluate(async () => {
        const stepper = document.getElementById('stepper');
        const firstValue = () => [...stepper.shadowRoot.querySelectorAll('attn-heatmap')].at(-1).matrix.data[0];
        const old = firstValue();
        stepper.steps = window.recompute(11);
        await stepper.updateComplete;
        return { index: stepper.index, changed: firstValue() !== old };
      });
      assert.deepEqual(changed, { index: before.index, changed: true });
      const clamped = await page.evaluate(async () => {
        const stepper = document.getElementById('stepper');
        stepper.steps = stepper.steps.slice(0, 3);
        await stepper.updateComplete;
        const index = stepper.index;
        stepper.steps = window.recompute(1);
        await stepper.updateComplete;
        return index;
      });
      assert.equal(clamped, 2);
      assert.deepEqual(await changes(), [], 'no step-change for a change the page made');
    });

    test('a tensor call\'s trace (mha.trace on (2, 4, 8)): each step drawn as its rows with its shape as a tuple in the caption', async () => {
      const seen = await page.evaluate(async () => {
        const stepper = document.getElementById('stepper');
        const saved = { steps: stepper.steps, labels: stepper.labels };
        Object.assign(stepper, { labels: null, steps: window.tensorTrace() });
        const shown = [];
        for (const id of ['qkv', 'qkv.permute', 'weights']) {
          stepper.index = stepper.steps.findIndex((s) => s.id === id);
          await stepper.updateComplete;
          await new Promise(requestAnimationFrame);
          const [heatmap] = stepper.shadowRoot.querySelectorAll('attn-heatmap');
          shown.push({ id, caption: heatmap.caption, rows: heatmap.matrix.rows, cols: heatmap.matrix.cols,
            first: heatmap.matrix.data[0], expected: stepper.steps[stepper.index].tensors[Object.keys(stepper.steps[stepper.index].tensors)[0]].data[0] });
        }
        const problem = stepper.shadowRoot.querySelector('.problem');
        const result = { shown, problem: problem.hidden ? null : problem.textContent };
        Object.assign(stepper, saved);
        await stepper.updateComplete;
        return result;
      });
      assert.equal(seen.problem, null);
      assert.deepEqual(seen.shown.map(({ id, caption, rows, cols }) => ({ id, caption, rows, cols })), [
        { id: 'qkv', caption: 'qkv  (2, 4, 24), drawn as 8 rows of 24', rows: 8, cols: 24 },
        { id: 'qkv.permute', caption: 'qkv  (3, 2, 2, 4, 4), drawn as 48 rows of 4', rows: 48, cols: 4 },
        { id: 'weights', caption: 'weights  (2, 2, 4, 4), drawn as 16 rows of 4', rows: 16, cols: 4 },
      ]);
      for (const s of seen.shown) assert.equal(s.first, s.expected, `${s.id}: the step's own numbers`);
    });

    test('decimals, show-values and no-export on the stepper reach every heatmap it draws', async () => {
      const seen = await page.evaluate(async () => {
        const stepper = document.getElementById('stepper');
        const read = () => [...stepper.shadowRoot.querySelectorAll('attn-heatmap')].map((h) => ({
          decimals: h.decimals, showValues: h.showValues, noExport: h.hasAttribute('no-export') }));
        const before = read();
        stepper.setAttribute('decimals', '4');
        stepper.showValues = true;
        stepper.setAttribute('no-export', '');
        await stepper.updateComplete;
        const after = read();
        stepper.removeAttribute('decimals');
        stepper.removeAttribute('show-values');
        stepper.removeAttribute('no-export');
        await stepper.updateComplete;
        return { before, after, reset: read() };
      });
      assert.ok(seen.after.length > 0);
      for (const h of seen.before) assert.deepEqual(h, { decimals: h.decimals === 0 ? 0 : 2, showValues: 'auto', noExport: false });
      for (const h of seen.after) assert.deepEqual(h, { decimals: h.decimals === 0 ? 0 : 4, showValues: true, noExport: true });
      assert.deepEqual(seen.reset, seen.before);
    });

    test('head="1" shows the shared steps and head 1 only; palettes reach the heatmaps; wrong settings are reported', async () => {
      const seen = await page.evaluate(async () => {
        const stepper = document.getElementById('stepper');
        const errors = [];
        const logged = console.error;
        console.error = (error) => errors.push(String(error));
        const palettes = () => [...stepper.shadowRoot.querySelectorAll('attn-heatmap')].map((h) => [h.caption.split(' ')[0], h.palette]);
        const problem = () => {
          const p = stepper.shadowRoot.querySelector('.problem');
          return p.hidden ? null : p.textContent;
        };
        stepper.index = 0;
        stepper.head = 1;
        await stepper.updateComplete;
        const ids = stepper.shownSteps.map((s) => s.id);
        const count = stepper.shadowRoot.querySelector('.count').textContent;
        stepper.index = ids.indexOf('head1.weights');
        stepper.setAttribute('palette', 'cividis');
        stepper.setAttribute('signed-palette', 'PuOr');
        await stepper.updateComplete;
        const themed = palettes();
        stepper.setAttribute('palette', 'RdBu');
        await stepper.updateComplete;
        const diverging = { problem: problem(), heatmaps: palettes().length };
        stepper.removeAttribute('palette');
        stepper.head = 5;
        await stepper.updateComplete;
        const missing = { problem: problem(), heatmaps: palettes().length };
        stepper.head = null;
        stepper.removeAttribute('signed-palette');
        stepper.index = 0;
        await stepper.updateComplete;
        console.error = logged;
        return { ids, count, themed, diverging, missing, errors, restored: { problem: problem(), n: stepper.shownSteps.length } };
      });
      const shared = data.steps.filter((id) => !/(^|\.)head\d+(\.|$)/.test(id));
      const ofHead1 = data.steps.filter((id) => /(^|\.)head1(\.|$)/.test(id));
      assert.ok(shared.length > 0 && ofHead1.length > 0);
      assert.deepEqual(seen.ids, data.steps.filter((id) => shared.includes(id) || ofHead1.includes(id)), 'in trace order');
      assert.equal(seen.count, `Step 1 of ${shared.length + ofHead1.length}`);
      assert.deepEqual(Object.fromEntries(seen.themed), { masked_scores: 'PuOr', weights: 'cividis' });
      assert.match(seen.diverging.problem, /palette="RdBu" must be a sequential palette/);
      assert.equal(seen.diverging.heatmaps, 0, 'no figure drawn with a palette the stepper refused');
      assert.match(seen.missing.problem, /head="5" but the attention has 2 heads/);
      assert.equal(seen.missing.heatmaps, 0);
      assert.equal(seen.errors.length, 2, 'each refused setting logged once');
      assert.ok(seen.errors.every((e) => e.startsWith('AttnLabError')), seen.errors.join('\n'));
      assert.deepEqual(seen.restored, { problem: null, n: data.steps.length });
    });
  });

  test('axe-core finds no serious or critical violation', async () => {
    await page.evaluate((i) => { document.getElementById('stepper').index = i; }, data.steps.indexOf('head0.masked_scores'));
    await page.addScriptTag({ path: join(repo, 'node_modules/axe-core/axe.min.js') });
    const violations = await page.evaluate(async () => (await window.axe.run(document)).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} (${v.nodes.map((node) => node.target.join(' ')).join('; ')})`));
    assert.deepEqual(violations, []);
  });

  test('screenshots at 1280 px and 390 px, no horizontal scrolling on the phone', async () => {
    mkdirSync(screenshots, { recursive: true });
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(screenshots, 'components.png'), fullPage: true });
    const phone = await open(browser, server.url + PAGE, { viewport: { width: 390, height: 844 } });
    await phone.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const widths = await phone.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, viewport: window.innerWidth }));
    await phone.page.screenshot({ path: join(screenshots, 'components-390.png'), fullPage: true });
    await phone.page.addScriptTag({ path: join(repo, 'node_modules/axe-core/axe.min.js') });
    const violations = await phone.page.evaluate(async () => (await window.axe.run(document)).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id));
    await phone.page.close();
    assert.ok(widths.scroll <= widths.viewport, `page is ${widths.scroll} px wide in a ${widths.viewport} px viewport`);
    assert.deepEqual(violations, []);
    assert.deepEqual([...phone.errors, ...phone.dialogs], []);
  });

  // The time is printed for the record (bench/ measures speed); a test that asserted it would fail on a
  // loaded machine without anything being wrong.
  test('a new 32×32 matrix repaints in place: the SVG is reused, not rebuilt', async () => {
    const timing = await page.evaluate(async () => {
      const size = 32;
      const tokens = Array.from({ length: size }, (_, i) => `tok${i}`);
      // Softmax rows of pseudo-random scores (a fixed LCG: the numbers do not matter, only the work).
      let seed = 1;
      const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      const matrices = Array.from({ length: 12 }, () => {
        const data = new Float32Array(size * size);
        for (let r = 0; r < size; r++) {
          let sum = 0;
          for (let c = 0; c < size; c++) sum += (data[r * size + c] = Math.exp(3 * random()));
          for (let c = 0; c < size; c++) data[r * size + c] /= sum;
        }
        return { rows: size, cols: size, data };
      });
      const box = document.createElement('div');
      box.style.cssText = 'display: grid; grid-template-columns: repeat(4, 1fr); gap: 8px';
      document.body.append(box);
      const maps = Array.from({ length: 8 }, () => box.appendChild(Object.assign(document.createElement('attn-heatmap'),
        { matrix: matrices[0], rowLabels: tokens, colLabels: tokens, domain: [0, 1] })));
      await new Promise(requestAnimationFrame);
      const skeleton = maps[0].shadowRoot.querySelector('svg .hit');
      // One update: set the property, render, and let the browser recompute styles and layout
      // (reading a computed style and a box forces both); painting is the compositor's and not timed.
      const update = (heatmaps, k) => {
        const t0 = performance.now();
        for (const h of heatmaps) {
          h.matrix = matrices[k % matrices.length];
          h.renderNow();
        }
        for (const h of heatmaps) {
          getComputedStyle(h.shadowRoot.querySelector('svg .hit')).fill;
          h.getBoundingClientRect();
        }
        return performance.now() - t0;
      };
      const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      const one = [];
      const eight = [];
      for (let k = 1; k <= 60; k++) one.push(update([maps[0]], k));
      for (let k = 1; k <= 60; k++) eight.push(update(maps, k));
      // Then in real frames: 8 heatmaps updated in every requestAnimationFrame for 60 frames.
      const frames = [];
      await new Promise((resolve) => {
        let k = 0;
        let last = performance.now();
        const tick = (now) => {
          frames.push(now - last);
          last = now;
          for (const h of maps) h.matrix = matrices[k % matrices.length];
          if (++k < 60) requestAnimationFrame(tick);
          else resolve();
        };
        requestAnimationFrame(tick);
      });
      const reused = maps[0].shadowRoot.querySelector('svg .hit') === skeleton;
      box.remove();
      return { one: median(one), eight: median(eight), eightMax: Math.max(...eight), frames: median(frames.slice(1)), reused };
    });
    console.log(`# 32×32 heatmap update (median of 60, script + style + layout): one ${timing.one.toFixed(2)} ms, `
      + `eight ${timing.eight.toFixed(2)} ms (max ${timing.eightMax.toFixed(2)} ms); `
      + `median frame while updating 8 per frame: ${timing.frames.toFixed(1)} ms`);
    assert.ok(timing.reused, 'the SVG was reused, not rebuilt');
  });

  test('no console errors and no dialogs on the whole run', () => {
    assert.deepEqual(errors, []);
    assert.deepEqual(dialogs, []);
  });

  // Every wrong setting is named — thrown by a property setter, or shown in the element in place of the
  // picture and logged once with console.error — and never replaced by a default. A page of its own,
  // since these are meant to log errors.
  test('wrong input is an error naming the setting, never a silent substitute', async () => {
    const tab = await open(browser, server.url + PAGE, { viewport: { width: 900, height: 700 } });
    const results = await tab.page.evaluate(async () => {
      const out = {};
      const problemOf = async (element) => {
        await element.updateComplete;
        const note = element.shadowRoot.querySelector('.problem');
        return note.hidden ? null : note.textContent;
      };
      const thrown = (fn) => { try { fn(); return null; } catch (e) { return `${e.name}: ${e.message}`; } };
      const m = { rows: 2, cols: 3, data: [0.1, 0.2, 0.7, 0.3, 0.3, 0.4] };
      const heatmap = () => { const h = document.createElement('attn-heatmap'); document.body.append(h); h.matrix = m; return h; };

      let h = heatmap();
      h.rowLabels = ['a', 'b', 'c'];
      out.rowLabels = await problemOf(h);
      h.rowLabels = ['a', 'b'];
      out.fixed = await problemOf(h);
      h.colLabels = 'abc';
      out.colLabels = await problemOf(h);
      h = heatmap();
      h.setAttribute('palette', 'rainbow');
      out.palette = await problemOf(h);
      h = heatmap();
      h.setAttribute('decimals', 'abc');
      out.decimals = await problemOf(h);
      h = heatmap();
      out.reversed = thrown(() => { h.domain = [1, 0]; });
      out.zeroWidth = thrown(() => { h.domain = [0.5, 0.5]; });
      out.domainNull = thrown(() => { h.domain = null; });
      // 'data' asks for the data's own range: the largest value takes the palette's end.
      const ranged = heatmap();
      ranged.domain = 'data';
      await ranged.updateComplete;
      const file = new DOMParser().parseFromString(ranged.toSVG(), 'image/svg+xml');
      out.dataFills = [...file.querySelectorAll('g.cells rect')].map((c) => c.getAttribute('fill'));
      out.strings = thrown(() => { h.matrix = { rows: 1, cols: 2, data: [0.5, 'e'] }; });
      out.nan = thrown(() => { h.matrix = { rows: 2, cols: 2, data: new Float32Array([0.5, 0.5, NaN, 1]) }; });
      out.masked = thrown(() => { h.matrix = { rows: 1, cols: 2, data: [-Infinity, 1] }; });

      const pe = document.createElement('pe-plot');
      document.body.append(pe);
      pe.matrix = { rows: 4, cols: 8, data: Array.from({ length: 32 }, (_, i) => Math.sin(i)) };
      pe.dims = [0, 9, 12];
      out.dims = await problemOf(pe);
      pe.dims = [0, 1];
      out.dimsFixed = await problemOf(pe);
      out.dimsType = thrown(() => { pe.dims = [0.5]; });
      pe.setAttribute('mode', 'bars');
      out.mode = await problemOf(pe);
      // The stepper names itself for its own attributes, once; a one-head trace has head 0 only.
      const oneHead = document.createElement('attn-stepper');
      document.body.append(oneHead);
      oneHead.steps = [{ id: 'scores', title: 'Scores', explanation: 'QKᵀ', tensors: { scores: m } }];
      oneHead.setAttribute('decimals', 'abc');
      out.stepperDecimals = await problemOf(oneHead);
      out.stepperHeatmaps = oneHead.shadowRoot.querySelectorAll('attn-heatmap').length;
      oneHead.removeAttribute('decimals');
      oneHead.setAttribute('head', '1');
      out.stepperHead = await problemOf(oneHead);
      oneHead.setAttribute('head', '0');
      out.stepperHead0 = await problemOf(oneHead);
      out.stepsString = thrown(() => { oneHead.steps = 'hello'; });
      out.stepsEmptyStep = thrown(() => { oneHead.steps = [{}]; });
      out.stepsNoTensors = thrown(() => { oneHead.steps = [{ title: 'Scores', explanation: 'QKᵀ', tensors: {} }]; });
      oneHead.removeAttribute('head');
      oneHead.labels = { rows: ['a', 'b', 'c'] };
      out.stepperLabels = await problemOf(oneHead);
      oneHead.labels = { rows: ['a', 'b'], cols: ['x', 'y', 'z'] };
      out.stepperLabelsFixed = await problemOf(oneHead);
      out.peNaN = thrown(() => { pe.matrix = { rows: 2, cols: 2, data: [0, 1, NaN, 1] }; });
      out.peInfinity = thrown(() => { pe.matrix = { rows: 2, cols: 2, data: [0, 1, 0, Infinity] }; });
      // positionalEncoding(4, 4): positions 0 … 3, whole-number ticks only
      const short = document.createElement('pe-plot');
      document.body.append(short);
      short.matrix = { rows: 4, cols: 4, data: Array.from({ length: 16 }, (_, i) => Math.sin(i)) };
      await new Promise(requestAnimationFrame);
      out.shortTicks = [...short.shadowRoot.querySelectorAll('.x-ticks text')].map((t) => t.textContent);
      return out;
    });
    assert.equal(results.rowLabels, '<attn-heatmap>.rowLabels has 3 labels but the matrix has 2 rows');
    assert.equal(results.fixed, null, 'a right-length list brings the picture back');
    assert.equal(results.colLabels, '<attn-heatmap>.colLabels has a string but the matrix has 3 columns');
    assert.equal(results.palette, '<attn-heatmap> palette="rainbow" is not one of YlOrRd, cividis, viridis, RdBu, PuOr');
    assert.equal(results.decimals, '<attn-heatmap> decimals="abc" must be a whole number from 0 to 10');
    assert.equal(results.reversed, 'AttnLabError: <attn-heatmap>.domain must be [min, max] with finite min < max, \'data\' for the data\'s range, or null for the default; got [1, 0]');
    assert.match(results.zeroWidth, /got \[0\.5, 0\.5\]$/);
    assert.equal(results.domainNull, null);
    // m = [0.1, 0.2, 0.7, 0.3, 0.3, 0.4]: with domain 'data', 0.1 is the start and 0.7 the end
    assert.equal(results.dataFills[0], interpolateYlOrRd(0));
    assert.equal(results.dataFills[2], interpolateYlOrRd(1));
    assert.equal(results.dataFills[1], interpolateYlOrRd((Math.fround(0.2) - Math.fround(0.1)) / (Math.fround(0.7) - Math.fround(0.1))));
    assert.equal(results.strings, 'AttnLabError: <attn-heatmap>.matrix.data[1] must be a number, got "e" (string)');
    assert.equal(results.dims, '<pe-plot>.dims asks for dimensions 9, 12 but the table has 8 (0 … 7)');
    assert.equal(results.dimsFixed, null);
    assert.match(results.dimsType, /^AttnLabError: <pe-plot>\.dims must be a list of whole numbers/);
    assert.equal(results.mode, '<pe-plot> mode="bars" must be "curves" or "heatmap"');
    assert.equal(results.nan, 'AttnLabError: <attn-heatmap>.matrix holds NaN at row 1, column 0: a NaN has no colour (−∞ and +∞ are drawn, as masked and saturated cells)');
    assert.equal(results.masked, null, '−∞ is a masked cell, drawn');
    assert.equal(results.peNaN, 'AttnLabError: <pe-plot>.matrix holds NaN at row 1, column 0: every value must be finite');
    assert.equal(results.peInfinity, 'AttnLabError: <pe-plot>.matrix holds Infinity at row 1, column 1: every value must be finite');
    assert.deepEqual(results.shortTicks, ['0', '1', '2', '3']);
    assert.equal(results.stepperDecimals, '<attn-stepper> decimals="abc" must be a whole number from 0 to 10');
    assert.equal(results.stepperHeatmaps, 0, 'no heatmap drawn with the refused setting, so none reports it again');
    assert.equal(results.stepperHead, '<attn-stepper> head="1" but the attention has 1 head (only 0)');
    assert.equal(results.stepperHead0, null);
    assert.equal(results.stepsString, 'AttnLabError: <attn-stepper>.steps must be an array of steps { title, explanation, tensors } (as lab.traceAttention returns), got the string "hello"');
    assert.equal(results.stepsEmptyStep, 'AttnLabError: <attn-stepper>.steps[0].title must be a string, got undefined');
    assert.equal(results.stepsNoTensors, 'AttnLabError: <attn-stepper>.steps[0].tensors must be an object of one or more { rows, cols, data } matrices, got object');
    assert.equal(results.stepperLabels, '<attn-stepper>.labels.rows has 3 labels but the trace has 2 query tokens');
    assert.equal(results.stepperLabelsFixed, null);
    assert.equal(tab.errors.filter((e) => e.includes('decimals="abc"')).length, 2, 'logged once for the heatmap, once for the stepper');
    assert.equal(tab.errors.filter((e) => e.includes('<attn-heatmap> decimals="abc"')).length, 1);
    // Each message shown was also logged, once.
    const logged = tab.errors.filter((e) => e.includes('AttnLabError'));
    for (const shown of [results.rowLabels, results.colLabels, results.palette, results.decimals, results.dims, results.mode]) {
      assert.equal(logged.filter((e) => e.includes(shown)).length, 1, `${shown} in ${logged.join(' | ')}`);
    }
    await tab.page.close();
  });

  test('a page with no code: matrix and labels from a child <script type="application/json">', async () => {
    const page = await browser.newPage();
    const logged = [];
    page.on('console', (m) => { if (m.type() === 'error') logged.push(m.text()); });
    await page.goto(`${server.url}/tests/e2e/pages/json-data.html`);
    await page.waitForFunction(() => document.getElementById('static').matrix && document.getElementById('pe').matrix);
    const shown = await page.evaluate(async () => {
      const h = document.getElementById('static');
      await h.updateComplete;
      return { data: Array.from(h.matrix.data), rows: h.rowLabels, cols: h.colLabels, domain: h.domain,
        texts: [...h.shadowRoot.querySelectorAll('.values text')].map((t) => t.textContent),
        peDims: document.getElementById('pe').dims, broken: document.getElementById('broken').matrix };
    });
    assert.deepEqual(shown.data, [0.5, 0.25, 0.25, 0, 0.5, 0.5]);
    assert.deepEqual([shown.rows, shown.cols, shown.domain], [['cat', 'sat'], ['the', 'cat', 'sat'], [0, 1]]);
    assert.deepEqual(shown.texts, ['0.5', '0.3', '0.3', '0.0', '0.5', '0.5']);  // decimals="1"
    assert.deepEqual(shown.peDims, [0, 1]);
    assert.equal(shown.broken, null, 'a block with an unknown key sets nothing');
    assert.equal(logged.length, 1, logged.join(' | '));
    assert.match(logged[0], /<attn-heatmap>: its JSON: unknown property "rowlabels" — did you mean "rowLabels"\? \(it takes matrix, rowLabels, colLabels, domain, highlight\)/);
    await page.close();
  });

  test('linked heatmaps share a hover; cell-leave fires when the pointer leaves the grid', async () => {
    const tab = await open(browser, server.url + PAGE, { viewport: { width: 900, height: 900 } });
    await tab.page.evaluate(async () => {
      document.body.replaceChildren();
      const m = (seed) => ({ rows: 3, cols: 3, data: Array.from({ length: 9 }, (_, i) => ((i + seed) % 4) / 4) });
      window.left = [];
      for (const [id, seed] of [['a', 0], ['b', 1], ['c', 2]]) {
        const h = document.createElement('attn-heatmap');
        h.id = id;
        if (id !== 'c') h.setAttribute('link', 'heads');  // c is not linked
        h.matrix = m(seed);
        h.addEventListener('cell-leave', (e) => window.left.push([id, e.detail.row, e.detail.col]));
        document.body.append(h);
        await h.updateComplete;
      }
    });
    const ring = (id) => tab.page.evaluate((i) => {
      const g = document.getElementById(i).shadowRoot.querySelector('.linked-ring');
      return { display: g.getAttribute('display'), y: g.lastElementChild.getAttribute('y') };
    }, id);
    const rowTop = (id, row) => tab.page.evaluate(([i, r]) => {
      const h = document.getElementById(i).shadowRoot;
      const hit = h.querySelector('.hit');
      return String(Number(hit.getAttribute('y')) + (r * Number(hit.getAttribute('height'))) / 3);
    }, [id, row]);
    await pointAt(tab.page.locator('#a'), 2, 1, 'hover');
    const b = await ring('b');
    assert.equal(b.display, 'inline');
    assert.ok(Math.abs(Number(b.y) - Number(await rowTop('b', 2))) < 0.51, `${b.y} vs ${await rowTop('b', 2)}`);
    assert.equal((await ring('c')).display, 'none', 'c has no link attribute');
    assert.equal((await ring('a')).display, 'none', 'the hovered heatmap shows its own hover ring, not the linked one');
    await tab.page.mouse.move(890, 890);
    assert.equal((await ring('b')).display, 'none');
    assert.deepEqual(await tab.page.evaluate(() => window.left), [['a', 2, 1]]);
    assert.deepEqual([...tab.errors, ...tab.dialogs], []);
    await tab.page.close();
  });

  test('fit="width" grows a small heatmap to its container; the natural size does not', async () => {
    const tab = await open(browser, server.url + PAGE, { viewport: { width: 1000, height: 800 } });
    const widths = await tab.page.evaluate(async () => {
      document.body.replaceChildren();
      const out = {};
      for (const fit of ['natural', 'width']) {
        const box = document.createElement('div');
        box.style.width = '700px';
        const h = document.createElement('attn-heatmap');
        h.setAttribute('fit', fit);
        h.matrix = { rows: 5, cols: 5, data: Array.from({ length: 25 }, (_, i) => i / 25) };
        box.append(h);
        document.body.append(box);
        await h.updateComplete;
        out[fit] = h.shadowRoot.querySelector('svg[role=grid]').getBoundingClientRect().width;
      }
      return out;
    });
    assert.ok(widths.natural < 400, `natural ${widths.natural}`);
    assert.ok(Math.abs(widths.width - 700) < 2, `fit=width ${widths.width}`);
    assert.deepEqual([...tab.errors, ...tab.dialogs], []);
    await tab.page.close();
  });
});
