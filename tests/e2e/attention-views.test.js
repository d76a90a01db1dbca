// The attention views (<attn-model-view>, <attn-head-view>, <attn-token-colors>) and the components'
// theming, in headless Chromium on tests/e2e/pages/attention-views.html: colours checked against
// d3-scale-chromatic evaluated here in Node, linked hover, keyboard, wrong input named, and a dark
// page (prefers-color-scheme: dark) whose labels and exported files keep a real contrast ratio.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { interpolateYlOrRd } from 'd3-scale-chromatic';

import { launch, open } from './browser.js';
import { serve } from './static-server.js';

const repo = new URL('../../', import.meta.url).pathname;
const screenshots = join(repo, 'test-output/screenshots');
const PAGE = '/tests/e2e/pages/attention-views.html';
const axePath = join(repo, 'node_modules/axe-core/axe.min.js');

// [r, g, b, alpha] (0–255, 0–1) of a computed CSS colour: "#rrggbb", "rgb(…)", "rgba(…)", or
// "color(srgb r g b / a)" (what Chromium computes for color-mix()).
function channels(c) {
  if (c.startsWith('#')) return [...[1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)), 1];
  const numbers = c.match(/[\d.]+/g).map(Number);
  if (c.startsWith('color(srgb')) return [...numbers.slice(0, 3).map((v) => v * 255), numbers[3] ?? 1];
  return [...numbers.slice(0, 3), numbers[3] ?? 1];
}
// WCAG 2 contrast of colour `a` as seen over the opaque `b` (a translucent ink is composited first).
const luminance = (rgb) => {
  const [r, g, b] = rgb.map((v) => { const s = v / 255; return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a, b) => {
  const under = channels(b).slice(0, 3);
  const [r, g, bl, alpha] = channels(a);
  const over = [r, g, bl].map((v, k) => alpha * v + (1 - alpha) * under[k]);
  const [hi, lo] = [luminance(over), luminance(under)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
const near = (a, b, tol) => channels(a).every((v, k) => Math.abs(v - channels(b)[k]) <= tol);

const axe = async (page) => {
  await page.addScriptTag({ path: axePath });
  return page.evaluate(async () => (await window.axe.run(document)).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((node) => node.target.join(' ')).join('; ')})`));
};

describe('attention views and themes in Chromium', () => {
  let server;
  let browser;

  before(async () => {
    server = await serve(repo);
    browser = await launch();
    mkdirSync(screenshots, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const openPage = (options = {}) => open(browser, server.url + PAGE, { viewport: { width: 1280, height: 900 }, ...options });

  // A tap is a touch pointer that leaves as soon as it lifts: the token tapped must stay picked.
  test('head view and token colours: a tap at 390 px picks the token under the finger, and so does a click', async () => {
    for (const touch of [true, false]) {
      const { page, errors } = await open(browser, server.url + PAGE, { viewport: { width: 390, height: 844 }, touch });
      await page.evaluate(() => {
        window.picked = { heads: [], colors: [] };
        document.getElementById('heads').addEventListener('query-change', (e) => window.picked.heads.push(e.detail.query));
        document.getElementById('colors').addEventListener('query-change', (e) => window.picked.colors.push(e.detail.query));
      });
      const centre = (id, selector, index) => page.evaluate(([id, selector, index]) => {
        const node = document.getElementById(id).shadowRoot.querySelectorAll(selector)[index];
        node.scrollIntoView({ block: 'center' });
        const box = node.getBoundingClientRect();
        return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
      }, [id, selector, index]);
      const press = async ({ x, y }) => {
        if (touch) await page.touchscreen.tap(x, y);
        else await page.mouse.click(x, y);
      };
      // the head view's query tokens are the right-aligned texts left of the lines (text-anchor end)
      await press(await centre('heads', 'text.token[text-anchor=end]', 3));
      const heads = await page.evaluate(() => ({
        heads: window.picked.heads.at(-1),
        active: [...document.getElementById('heads').shadowRoot.querySelectorAll('text.token[text-anchor=end]')]
          .findIndex((t) => t.classList.contains('active-token')),
      }));
      await press(await centre('colors', '.token', 4));
      const state = { ...heads, colors: await page.evaluate(() => window.picked.colors.at(-1)) };
      assert.equal(state.colors, 4, `${touch ? 'tap' : 'click'}: token colours picked ${state.colors}`);
      assert.equal(state.heads, 3, `${touch ? 'tap' : 'click'}: head view picked ${state.heads}`);
      assert.equal(state.active, 3);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('model view: one thumbnail per layer and head in the weight colours; a hover marks the row in all; a click enlarges', async () => {
    const { page, errors } = await openPage();
    const model = page.locator('#model');
    const shown = await model.evaluate((element) => {
      const thumbs = [...element.shadowRoot.querySelectorAll('[part=thumb]')];
      // The canvas pixel of every weight of layer 2, head 3 (the last thumbnail).
      const canvas = thumbs.at(-1).querySelector('canvas');
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      return { count: thumbs.length, labels: thumbs.map((t) => t.getAttribute('aria-label')),
        pixels: Array.from({ length: canvas.width * canvas.height }, (_, i) => `rgb(${pixels[4 * i]}, ${pixels[4 * i + 1]}, ${pixels[4 * i + 2]})`),
        weights: Array.from(window.attention[2][3].data) };
    });
    assert.equal(shown.count, 3 * 4);
    assert.equal(shown.labels[5], 'Enlarge layer 1, head 1');
    // Thumbnails colour from 256 steps of the scale: within one step of the exact colour.
    shown.weights.forEach((w, i) => assert.ok(near(shown.pixels[i], interpolateYlOrRd(w), 3), `weight ${w}: ${shown.pixels[i]} vs ${interpolateYlOrRd(w)}`));

    const thumb = model.locator('[part=thumb]').nth(1);  // layer 0, head 1
    const box = await thumb.boundingBox();
    await thumb.hover({ position: { x: box.width / 2, y: 4 + ((5.5 / 12) * (box.height - 8)) } });  // query row 5
    const marks = await model.evaluate((element) => [...element.shadowRoot.querySelectorAll('.mark')]
      .map((m) => (m.hidden ? null : m.getBoundingClientRect().top - m.parentElement.getBoundingClientRect().top)));
    assert.ok(marks.every((top) => top !== null), 'the row is marked in every head');
    assert.ok(marks.every((top) => Math.abs(top - marks[0]) < 1.5), `the same row everywhere: ${marks}`);
    await thumb.click();
    const enlarged = await model.evaluate((element) => {
      const h = element.shadowRoot.querySelector('attn-heatmap');
      return { hidden: h.hidden, data: Array.from(h.matrix.data), rows: h.rowLabels, caption: h.caption, palette: h.palette, domain: h.domain,
        highlight: h.highlight, selected: element.selected };
    });
    const expected = await page.evaluate(() => Array.from(window.attention[0][1].data));
    assert.deepEqual(enlarged.data, expected);
    assert.equal(enlarged.rows[1], 'animal');
    assert.equal(enlarged.caption, 'Layer 0, head 1: 12 × 12 weights');
    assert.deepEqual([enlarged.palette, enlarged.domain], ['YlOrRd', [0, 1]], 'the site\'s weight scale');
    assert.deepEqual(enlarged.highlight, { rows: [5] }, 'the hovered row is outlined in the enlarged head too');
    assert.deepEqual(enlarged.selected, { layer: 0, head: 1 });
    const events = await page.evaluate(() => window.seen);
    assert.ok(events.some((e) => e.type === 'row-hover' && e.row === 5));
    assert.deepEqual(events.filter((e) => e.type === 'head-select').map((e) => [e.layer, e.head]), [[0, 1]]);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('model view: one (batch, heads, n, n) weights tensor per layer; the batch attribute picks the sequence drawn', async () => {
    const { page, errors } = await openPage();
    const seen = await page.evaluate(async () => {
      const view = document.createElement('attn-model-view');
      document.body.append(view);
      // Two layers of (2, 2, 3, 3): every row of layer l, batch item b, head h is one-hot at key (l + b + h) % 3.
      const layer = (l) => ({ shape: [2, 2, 3, 3], data: Float32Array.from({ length: 36 }, (_, i) => {
        const [b, h, col] = [Math.floor(i / 18), Math.floor(i / 9) % 2, i % 3];
        return col === (l + b + h) % 3 ? 1 : 0;
      }) });
      view.attention = [layer(0), layer(1)];
      view.selected = { layer: 1, head: 0 };
      const enlarged = async () => {
        await view.updateComplete;
        const h = view.shadowRoot.querySelector('attn-heatmap');
        await h.updateComplete;
        const problem = view.shadowRoot.querySelector('.problem');
        return { data: Array.from(h.matrix.data), thumbs: view.shadowRoot.querySelectorAll('[part=thumb]').length,
          problem: problem.hidden ? null : problem.textContent };
      };
      const first = await enlarged();
      view.setAttribute('batch', '1');
      const second = await enlarged();
      const logged = console.error;
      console.error = () => {};
      view.setAttribute('batch', '2');
      const outside = await enlarged();
      console.error = logged;
      let refused = '';
      try {
        view.attention = [{ shape: [2, 3, 3], data: new Float32Array(18) }];
      } catch (error) {
        refused = error.message;
      }
      view.remove();
      return { first, second, outside, given: view.attention.length, refused };
    });
    const oneHot = (col) => [0, 1, 2].flatMap(() => [0, 1, 2].map((c) => (c === col ? 1 : 0)));
    assert.deepEqual(seen.first, { data: oneHot(1), thumbs: 4, problem: null }, 'layer 1, head 0 of batch item 0: key (1 + 0 + 0) % 3');
    assert.deepEqual(seen.second.data, oneHot(2), 'batch item 1: key (1 + 1 + 0) % 3');
    assert.equal(seen.outside.problem, '<attn-model-view> batch="2" but the attention has 2 sequences in the batch (0 … 1)');
    assert.equal(seen.given, 2, 'attention returns the tensors as given');
    assert.match(seen.refused, /^<attn-model-view>\.attention\[0\] must be a weights tensor \(batch, heads, n, n\), got shape \(2, 3, 3\)$/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('model view: keyboard — one tab stop, arrows between heads, Enter enlarges; the enlarged grid marks its row in every head', async () => {
    const { page, errors } = await openPage();
    await page.locator('#model [part=thumb]').first().focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    const state = await page.evaluate(() => {
      const root = document.getElementById('model').shadowRoot;
      return { selected: document.getElementById('model').selected, focused: root.activeElement?.getAttribute('aria-label'),
        tabStops: [...root.querySelectorAll('[part=thumb]')].filter((t) => t.tabIndex === 0).length };
    });
    assert.deepEqual(state.selected, { layer: 1, head: 2 });
    assert.equal(state.focused, 'Enlarge layer 1, head 2');
    assert.equal(state.tabStops, 1);
    await page.evaluate(() => document.getElementById('model').shadowRoot.querySelector('attn-heatmap').focus());
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const marked = await page.evaluate(() => [...document.getElementById('model').shadowRoot.querySelectorAll('.mark')].filter((m) => !m.hidden).length);
    assert.equal(marked, 12, 'query row 2, chosen in the enlarged head, is marked in all 12 heads');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('head view: a line per weight with opacity = weight; hovering a query leaves its lines and prints its weights; the picker switches heads', async () => {
    const { page, errors } = await openPage();
    const view = page.locator('#heads');
    // The lines are drawn as one path per opacity: [opacity, number of lines] of each path, sorted.
    const read = () => view.evaluate((element) => {
      const paths = [...element.shadowRoot.querySelectorAll('svg g path')];
      const values = [...element.shadowRoot.querySelectorAll('svg text[font-size]')].map((t) => t.textContent);
      const lines = paths.map((p) => [Number(p.getAttribute('stroke-opacity')), p.getAttribute('d').split('M').length - 1]);
      return { lines: lines.sort((a, b) => a[0] - b[0]), shown: lines.reduce((sum, [, count]) => sum + count, 0), values };
    });
    // What the paths should be for these weights: each weight ≥ 0.01 a line, its opacity the weight to 2 decimals.
    const expected = (ws) => {
      const counts = new Map();
      for (const w of ws.filter((x) => x >= 0.01)) counts.set(Math.round(w * 100) / 100, (counts.get(Math.round(w * 100) / 100) ?? 0) + 1);
      return [...counts].sort((a, b) => a[0] - b[0]);
    };
    const weights = await page.evaluate(() => window.attention.map((layer) => layer.map((m) => Array.from(m.data))));
    const drawn = (head) => weights[1][head].filter((w) => w >= 0.01);
    let shown = await read();
    assert.deepEqual(shown.lines, expected(weights[1][0]));
    assert.equal(shown.shown, drawn(0).length, 'all lines while nothing is chosen');
    const box = await view.locator('svg[role=listbox]').boundingBox();
    await page.mouse.move(box.x + 10, box.y + ((4 + 3.5 * 20) / Number(await view.evaluate((e) => e.shadowRoot.querySelector('svg').viewBox.baseVal.height))) * box.height);
    shown = await read();
    const row3 = weights[1][0].slice(3 * 12, 4 * 12);
    assert.equal(shown.shown, row3.filter((w) => w >= 0.01).length, 'only query 3’s lines');
    assert.deepEqual(shown.lines, expected(row3));
    assert.deepEqual(shown.values, row3.map((w) => w.toFixed(2)));
    await page.mouse.move(0, 0);
    await view.getByRole('button', { name: 'Head 2' }).click();
    shown = await read();
    assert.deepEqual(shown.lines, expected(weights[1][2]));
    await view.locator('svg[role=listbox]').focus();
    await page.keyboard.press('ArrowDown');
    const active = await view.evaluate((e) => {
      const svg = e.shadowRoot.querySelector('svg[role=listbox]');
      return e.shadowRoot.getElementById(svg.getAttribute('aria-activedescendant')).getAttribute('aria-label');
    });
    assert.match(active, /^animal: most weight on /);
    const events = await page.evaluate(() => window.seen.filter((e) => e.id === 'heads'));
    assert.ok(events.some((e) => e.type === 'head-select' && e.head === 2));
    assert.ok(events.some((e) => e.type === 'query-change' && e.query === 3));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('coloured tokens: every token shaded by the weight it receives from the chosen one; hover and keys choose', async () => {
    const { page, errors } = await openPage();
    const view = page.locator('#colors');
    const read = () => view.evaluate((element) => [...element.shadowRoot.querySelectorAll('[part=token]')].map((s) => getComputedStyle(s).backgroundColor));
    const weights = await page.evaluate(() => Array.from(window.attention[2][1].data));
    const row = (i) => weights.slice(i * 12, (i + 1) * 12);
    assert.deepEqual(await read(), row(8).map((w) => interpolateYlOrRd(w)), 'query="8": the weights from “ it”');
    await view.locator('[part=token]').nth(7).hover();
    assert.deepEqual(await read(), row(7).map((w) => interpolateYlOrRd(w)));
    const readout = await view.evaluate((e) => e.shadowRoot.querySelector('.readout').textContent);
    assert.match(readout, /^From “because”: most weight on /);
    await page.mouse.move(0, 0);
    await view.locator('[role=listbox]').focus();
    await page.keyboard.press('End');
    assert.deepEqual(await read(), row(11).map((w) => interpolateYlOrRd(w)));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('wrong input is an error naming the setting', async () => {
    const { page, errors } = await openPage();
    const results = await page.evaluate(async () => {
      const thrown = (fn) => { try { fn(); return null; } catch (e) { return `${e.name}: ${e.message}`; } };
      const problem = async (element) => { await element.updateComplete; const p = element.shadowRoot.querySelector('.problem'); return p.hidden ? null : p.textContent; };
      const w = { rows: 2, cols: 2, data: [1, 0, 0.5, 0.5] };
      const model = document.createElement('attn-model-view');
      const heads = document.createElement('attn-head-view');
      const colors = document.createElement('attn-token-colors');
      document.body.append(model, heads, colors);
      const out = {
        notNested: thrown(() => { model.attention = [w, w]; }),
        ragged: thrown(() => { model.attention = [[w, w], [w]]; }),
        scores: thrown(() => { heads.attention = { rows: 2, cols: 2, data: [1, 0, -3, 4] }; }),
        notSquare: thrown(() => { colors.attention = { rows: 1, cols: 2, data: [0.5, 0.5] }; }),
        tokens: thrown(() => { colors.tokens = 'the cat'; }),
        undefinedAttention: thrown(() => { model.attention = undefined; }),
        nullAttention: thrown(() => { model.attention = null; }),
      };
      model.attention = [[w, w]];
      model.setAttribute('layer', '3');
      model.setAttribute('head', '0');
      out.layer = await problem(model);
      heads.attention = [w, w];
      heads.tokens = ['a', 'b', 'c'];
      out.count = await problem(heads);
      colors.attention = w;
      colors.setAttribute('query', 'x');
      out.query = await problem(colors);
      return out;
    });
    assert.match(results.notNested, /^AttnLabError: <attn-model-view>\.attention must be Matrix\[layer\]\[head\]/);
    assert.equal(results.ragged, 'AttnLabError: <attn-model-view>.attention[1] has 1 head but layer 0 has 2');
    assert.equal(results.scores, 'AttnLabError: <attn-head-view>.attention holds -3 at row 1, column 0: attention weights are in [0, 1] (draw scores with <attn-heatmap palette="RdBu">)');
    assert.equal(results.notSquare, 'AttnLabError: <attn-token-colors>.attention must be square (queries × keys over the same tokens), got 1×2');
    assert.equal(results.tokens, 'AttnLabError: <attn-token-colors>.tokens must be a list of strings (one per token) or null, got string');
    assert.equal(results.layer, '<attn-model-view> layer="3" but the attention has 1 layer (only 0)');
    assert.equal(results.undefinedAttention, 'AttnLabError: <attn-model-view>.attention is undefined: give Matrix[layer][head], as '
      + 'GPTModel.forward(ids, { attention: true }) returns it (without attention: true, forward returns no attention), or null for none');
    assert.equal(results.nullAttention, null, 'null clears the view');
    assert.equal(results.count, '<attn-head-view>.tokens has 3 labels but the attention is 2×2');
    assert.equal(results.query, '<attn-token-colors> query="x" must be a whole number');
    for (const shown of [results.layer, results.count, results.query]) assert.equal(errors.filter((e) => e.includes(shown)).length, 1, shown);
    await page.close();
  });

  test('the head view draws cross-attention: target words on the left, source words on the right', async () => {
    const { page, errors } = await openPage();
    const results = await page.evaluate(async () => {
      const view = document.createElement('attn-head-view');
      document.body.append(view);
      const problem = () => { const p = view.shadowRoot.querySelector('.problem'); return p.hidden ? null : p.textContent; };
      view.attention = { rows: 3, cols: 2, data: [0.9, 0.1, 0.2, 0.8, 0.5, 0.5] };
      await view.updateComplete;
      const withoutKeys = problem();
      view.tokens = ['<s>', 'le', 'chat'];
      view.keyTokens = ['the', 'cat'];
      view.setAttribute('query', '1');
      await view.updateComplete;
      const texts = [...view.shadowRoot.querySelectorAll('text.token')].map((t) => t.textContent);
      const values = [...view.shadowRoot.querySelectorAll('text:not(.token)')].map((t) => t.textContent).filter(Boolean);
      const lines = [...view.shadowRoot.querySelectorAll('g[stroke] path')].map((p) => p.getAttribute('stroke-opacity')).sort();
      const option = view.shadowRoot.querySelector('#q1').getAttribute('aria-label');
      view.keyTokens = ['the', 'cat', 'sat'];
      await view.updateComplete;
      return { withoutKeys, texts, values, lines, option, keyCount: problem() };
    });
    assert.equal(results.withoutKeys, '<attn-head-view>.attention is 3×2: queries and keys differ, so give keyTokens (the 2 keys\' labels)');
    assert.deepEqual(results.texts, ['the', 'cat', '<s>', 'le', 'chat'], 'the two source words as keys, the three target words as queries');
    assert.deepEqual(results.values, ['0.20', '0.80'], "query 'le' prints its weight beside each source word");
    assert.deepEqual(results.lines, ['0.2', '0.8'], 'one line per source word, opacity = weight');
    assert.equal(results.option, 'le: most weight on cat 0.80, the 0.20');
    assert.equal(results.keyCount, '<attn-head-view>.keyTokens has 3 labels but the attention is 3×2');
    assert.equal(errors.filter((e) => e.includes('keyTokens has 3')).length, 1);
    await page.close();
  });

  test('the model view draws an encoder–decoder\'s cross-attention: target rows, source columns', async () => {
    const { page } = await openPage();
    const results = await page.evaluate(async () => {
      const view = document.createElement('attn-model-view');
      document.body.append(view);
      const problem = () => { const p = view.shadowRoot.querySelector('.problem'); return p.hidden ? null : p.textContent; };
      const m = { rows: 3, cols: 2, data: [0.9, 0.1, 0.2, 0.8, 0.5, 0.5] };
      view.attention = [[m], [m]];
      await view.updateComplete;
      const withoutKeys = problem();
      Object.assign(view, { tokens: ['<s>', 'le', 'chat'], keyTokens: ['the', 'cat'] });
      view.selected = { layer: 1, head: 0 };
      await view.updateComplete;
      const canvas = view.shadowRoot.querySelector('canvas');
      const enlarged = view.shadowRoot.querySelector('attn-heatmap');
      return { withoutKeys, after: problem(), canvas: [canvas.width, canvas.height], rowLabels: enlarged.rowLabels,
        colLabels: enlarged.colLabels, caption: enlarged.getAttribute('caption') };
    });
    assert.equal(results.withoutKeys, '<attn-model-view>.attention is 3×2: queries and keys differ, so give keyTokens (the 2 keys\' labels)');
    assert.equal(results.after, null);
    assert.deepEqual(results.canvas, [2, 3], 'one pixel per weight: 2 columns (source), 3 rows (target)');
    assert.deepEqual(results.rowLabels, ['<s>', 'le', 'chat']);
    assert.deepEqual(results.colLabels, ['the', 'cat']);
    assert.equal(results.caption, 'Layer 1, head 0: 3 × 2 weights');
    await page.close();
  });

  // The page follows prefers-color-scheme with its own colours and sets nothing on the components.
  // A dark page that sets only color and background (no color-scheme, no --attnlab-* variables):
  // the chosen head's button, and every other state of the head buttons, stays readable.
  test('a page that sets only color and background: the head buttons read in every state', async () => {
    const { page, errors } = await openPage();
    await page.addStyleTag({ content: 'body { color: #eee; background: #111; }' });
    const states = await page.evaluate(async () => {
      const view = document.getElementById('heads');
      view.setAttribute('head', '1');
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const page = getComputedStyle(document.body).backgroundColor;
      return [...view.shadowRoot.querySelectorAll('.picker button')].map((b) => {
        const style = getComputedStyle(b);
        return { pressed: b.getAttribute('aria-pressed'), text: style.color, background: style.backgroundColor, page };
      });
    });
    assert.ok(states.some((s) => s.pressed === 'true'), 'a head is chosen');
    for (const s of states) {
      // the button's background (translucent) over the page's, then the text over that
      const [r, g, b, a] = channels(s.background);
      const under = channels(s.page);
      const behind = `rgb(${[r, g, b].map((v, k) => a * v + (1 - a) * under[k]).join(', ')})`;
      assert.ok(contrast(s.text, behind) >= 4.5, `${s.pressed === 'true' ? 'chosen' : 'other'} head: ${s.text} on ${behind} is ${contrast(s.text, behind).toFixed(2)}:1`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  for (const scheme of ['light', 'dark']) {
    test(`a ${scheme} page: labels read on the page's background (contrast ≥ 4.5), exports keep them legible, axe passes, screenshots`, async () => {
      const { page, errors } = await openPage({ colorScheme: scheme });
      await page.evaluate(() => { document.getElementById('model').selected = { layer: 1, head: 2 }; });
      const found = await page.evaluate(async () => {
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const background = getComputedStyle(document.body).backgroundColor;
        const fill = (node) => getComputedStyle(node).fill;
        const shadow = (id) => document.getElementById(id).shadowRoot;
        const heatmapSvg = shadow('heatmap').querySelector('svg[role=grid]');
        const model = shadow('model');
        const inks = {
          'heatmap axis label': fill(heatmapSvg.querySelector('[part=labels] text')),
          'heatmap legend tick': fill(heatmapSvg.querySelector('[part=legend] text')),
          'pe-plot tick': fill(shadow('pe').querySelector('[part=axes] text')),
          'model view title': getComputedStyle(model.querySelector('.title')).color,
          'model view legend': fill(model.querySelector('[part=legend] text')),
          'enlarged head label': fill(model.querySelector('attn-heatmap').shadowRoot.querySelector('[part=labels] text')),
          'head view token': fill(shadow('heads').querySelector('[part=labels] text')),
          'caption': getComputedStyle(shadow('heatmap').querySelector('[part=caption]')).color,
          'export button': getComputedStyle(shadow('heatmap').querySelector('[part=button]')).color,
        };
        // The exported file: its background rect and the labels' fill, resolved into the file.
        const file = new DOMParser().parseFromString(document.getElementById('heatmap').toSVG(), 'image/svg+xml');
        const pe = new DOMParser().parseFromString(document.getElementById('pe').toSVG(), 'image/svg+xml');
        return { background, inks,
          file: { background: file.querySelector('svg > rect').getAttribute('fill'), labels: file.querySelector('[part=labels]').getAttribute('fill') },
          pe: { background: pe.querySelector('svg > rect').getAttribute('fill'), text: pe.querySelector('svg').getAttribute('fill') } };
      });
      assert.equal(found.background, scheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)');
      for (const [what, ink] of Object.entries(found.inks)) {
        assert.ok(contrast(ink, found.background) >= 4.5, `${what}: ${ink} on ${found.background} is ${contrast(ink, found.background).toFixed(2)}:1`);
      }
      assert.equal(found.file.background, scheme === 'dark' ? '#0d1117' : '#ffffff', 'the file is painted in the page\'s background');
      assert.ok(contrast(found.file.labels, found.file.background) >= 4.5, `exported labels ${found.file.labels} on ${found.file.background}`);
      assert.ok(contrast(found.pe.text, found.pe.background) >= 4.5, `exported plot text ${found.pe.text} on ${found.pe.background}`);
      assert.deepEqual(await axe(page), []);
      const stem = scheme === 'dark' ? 'attention-views-dark' : 'attention-views';
      await page.screenshot({ path: join(screenshots, `${stem}.png`), fullPage: true });
      const phone = await openPage({ colorScheme: scheme, viewport: { width: 390, height: 844 } });
      await phone.page.evaluate(() => { document.getElementById('model').selected = { layer: 1, head: 2 }; });
      await phone.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const widths = await phone.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, viewport: window.innerWidth }));
      await phone.page.screenshot({ path: join(screenshots, `${stem}-390.png`), fullPage: true });
      assert.ok(widths.scroll <= widths.viewport, `page is ${widths.scroll} px wide in a ${widths.viewport} px viewport`);
      assert.deepEqual([...errors, ...phone.errors], []);
      await phone.page.close();
      await page.close();
    });
  }
});
