// The interpretability figures (<attn-logit-lens>, <attn-attribution>, web/dist/components.js) in headless
// Chromium on tests/e2e/pages/interp-figures.html, with data written here: every lens cell names the token
// and probability it was given, on the palette's colour evaluated here by d3-scale-chromatic; rows are
// labelled as written out by hand; a position chosen by the keyboard or the pointer fires position-change
// and keeps the focus through a redraw; the bars' widths and zero line are where |value| / range puts them
// (computed by hand below); a row chosen fires item-select; wrong input names the property; a dark page
// and the theme's custom properties reach both. Screenshots: test-output/screenshots/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { interpolateViridis, interpolateYlOrRd } from 'd3-scale-chromatic';

import { launch, open } from './browser.js';
import { axeViolations } from './lesson-page.js';
import { serve } from './static-server.js';

const repo = new URL('../../', import.meta.url).pathname;
const screenshots = join(repo, 'test-output/screenshots');
const PAGE = '/tests/e2e/pages/interp-figures.html';

// A two-block model's lens over four tokens, written out: cells[point][position] = [favoured id, probability].
const POINTS = ['blocks.0.hook_resid_pre', 'blocks.0.hook_resid_mid', 'blocks.1.hook_resid_pre', 'blocks.1.hook_resid_mid',
  'blocks.1.hook_resid_post'];
const POINT_LABELS = ['0 resid_pre', '0 resid_mid', '1 resid_pre', '1 resid_mid', '1 resid_post'];
const TOKENS = ['The', ' cat', ' sat', ' on'];
const VOCABULARY = ['The', ' cat', ' sat', ' on', ' the', ' mat', '.'];
const TOP = [
  [[0, 0.91], [1, 0.62], [2, 0.55], [3, 0.4]],
  [[0, 0.5], [1, 0.3], [4, 0.12], [4, 0.25]],
  [[1, 0.05], [2, 0.2], [3, 0.33], [4, 0.6]],
  [[1, 0.15], [2, 0.45], [3, 0.71], [5, 0.02]],
  [[1, 0.3], [2, 0.75], [3, 0.83], [4, 1]],
];
// As model.logitLens(ids, { k: 2 }) shapes it: a second-ranked token in each cell, which is not drawn.
const lensOf = (top) => ({ points: POINTS, positions: [0, 1, 2, 3],
  cells: top.map((row) => row.map(([id, probability]) => ({ top: [{ id, probability }, { id: 6, probability: 0.01 }] }))) });

// Signed parts; by hand: the largest reach below 0 is 1 and above 0 is 3, so the track spans 4 units with
// 0 at 1/4 of it; a bar's width is |value| / 4 of the track, starting at 1/4 (positive) or ending there.
const ITEMS = [
  { key: 'L1H0', label: 'L1H0', value: 3 },
  { key: 'embed', label: 'embed', value: -1, selectable: false },
  { key: 'L0H1', label: 'L0H1', value: 1.5, text: 'one and a half' },
  { key: 'L0H0', label: 'L0H0', value: -0.5 },
  { key: 'mlp', label: 'L0 mlp_out', value: 0.25 },
];
const ZERO = 0.25;
const BARS = [[0.25, 0.75], [0, 0.25], [0.25, 0.375], [0.125, 0.125], [0.25, 0.0625]]; // [left, width] as shares of the track

// "#rrggbb" or "rgb(r, g, b)" → "rgb(r, g, b)", as getComputedStyle writes colours.
const rgb = (c) => (c.startsWith('#') ? `rgb(${[1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)).join(', ')})` : c);
const luminance = (c) => {
  const [r, g, b] = c.match(/\d+/g).slice(0, 3).map((v) => { const s = v / 255; return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

// What the lens shows, read in its shadow root.
const readLens = (page) => page.evaluate(() => {
  const root = document.getElementById('lens').shadowRoot;
  const rows = [...root.querySelectorAll('tr')];
  return {
    headers: [...rows[0].querySelectorAll('th[scope="col"] button')].map((b) => ({ text: b.textContent, pressed: b.getAttribute('aria-pressed') })),
    pointLabels: rows.slice(1).map((r) => r.querySelector('th').textContent),
    cells: rows.slice(1).map((r) => [...r.querySelectorAll('.cell')].map((b) => ({
      text: b.querySelector('bdi').textContent, id: Number(b.dataset.id), probability: Number(b.dataset.probability),
      label: b.getAttribute('aria-label'), background: getComputedStyle(b).backgroundColor, color: getComputedStyle(b).color,
      chosen: b.parentElement.classList.contains('chosen') }))),
    legend: root.querySelectorAll('svg[part="legend"] stop').length,
    problem: root.querySelector('.problem').hidden ? null : root.querySelector('.problem').textContent,
  };
});

// The deepest focused element's text and a marker the test may have put on it.
const focused = (page) => page.evaluate(() => {
  let node = document.activeElement;
  while (node?.shadowRoot?.activeElement) node = node.shadowRoot.activeElement;
  return { text: node?.textContent ?? '', marker: node?.dataset.marker ?? null, label: node?.getAttribute('aria-label') ?? null };
});
// Presses Tab until the focused element's text is `text` (at most `limit` times) → what has the focus.
async function tabTo(page, text, limit = 40) {
  let shown = await focused(page);
  for (let i = 0; i < limit && shown.text !== text; i++) {
    await page.keyboard.press('Tab');
    shown = await focused(page);
  }
  return shown;
}
const markFocused = (page) => page.evaluate(() => {
  let node = document.activeElement;
  while (node?.shadowRoot?.activeElement) node = node.shadowRoot.activeElement;
  node.dataset.marker = 'kept';
});

describe('<attn-logit-lens> and <attn-attribution> in Chromium', () => {
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

  // The page with the test's data set: the lens (its tokens, the vocabulary naming ids) and the bars.
  const openPage = async (options = {}) => {
    const opened = await open(browser, server.url + PAGE, { viewport: { width: 1280, height: 900 }, ...options });
    await opened.page.evaluate(async ([lens, tokens, vocabulary, items]) => {
      Object.assign(document.getElementById('lens'), { lens, tokens, tokenText: vocabulary });
      document.getElementById('bars').items = items;
      await Promise.all(['lens', 'bars'].map((id) => document.getElementById(id).updateComplete));
    }, [lensOf(TOP), TOKENS, VOCABULARY, ITEMS]);
    return opened;
  };

  test('the lens: every cell names its favoured token and probability on the palette\'s colour; rows and columns labelled', async () => {
    const { page, errors } = await openPage();
    const shown = await readLens(page);
    assert.equal(shown.problem, null);
    assert.deepEqual(shown.pointLabels, POINT_LABELS);
    assert.deepEqual(shown.headers.map((h) => h.text), ['0: The', '1:  cat', '2:  sat', '3:  on']);
    assert.deepEqual(shown.headers.map((h) => h.pressed), ['false', 'false', 'false', 'false'], 'no position chosen yet');
    assert.ok(shown.legend > 0, 'a legend');
    shown.cells.forEach((row, r) => row.forEach((cell, p) => {
      const [id, probability] = TOP[r][p];
      assert.equal(cell.id, id);
      assert.equal(cell.text, VOCABULARY[id]);
      assert.equal(cell.probability, probability);
      assert.equal(cell.background, rgb(interpolateYlOrRd(probability)), `cell ${r}, ${p}`);
      assert.ok(contrast(cell.color, cell.background) >= 4.5, `text ${cell.color} on ${cell.background}`);
      assert.equal(cell.label, `${POINT_LABELS[r]}, position ${p}: “${VOCABULARY[id]}”, probability ${(probability * 100).toFixed(1)}%`);
    }));
    // Another palette, by its attribute: the colours follow it; no tokenText: ids are shown.
    await page.evaluate(() => {
      const lens = document.getElementById('lens');
      lens.setAttribute('palette', 'viridis');
      lens.tokenText = null;
      return lens.updateComplete;
    });
    const viridis = await readLens(page);
    viridis.cells.forEach((row, r) => row.forEach((cell, p) => {
      assert.equal(cell.background, rgb(interpolateViridis(TOP[r][p][1])));
      assert.equal(cell.text, `#${TOP[r][p][0]}`);
    }));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the lens by the keyboard: Enter on a header and Space on a cell choose their position, fire position-change, keep the focus', async () => {
    const { page, errors } = await openPage();
    // The grid is one tab stop (position 0's header while none is chosen); the arrow keys move inside it.
    assert.equal((await tabTo(page, '0: The')).text, '0: The', 'Tab reaches the grid at position 0\'s header');
    assert.equal(await page.evaluate(() => [...document.getElementById('lens').shadowRoot.querySelectorAll('button')]
      .filter((b) => b.tabIndex === 0).length), 1, 'one button of the grid in the tab order');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal((await focused(page)).text, '2:  sat', '→ → reaches position 2\'s header');
    await page.keyboard.press('Enter');
    assert.deepEqual(await page.evaluate(() => window.seen), [{ type: 'position-change', id: 'lens', position: 2 }]);
    assert.equal(await page.evaluate(() => document.getElementById('lens').getAttribute('position')), '2');
    let lens = await readLens(page);
    assert.deepEqual(lens.headers.map((h) => h.pressed), ['false', 'false', 'true', 'false']);
    assert.deepEqual(lens.cells.map((row) => row.map((c) => c.chosen)), TOP.map(() => [false, false, true, false]));
    // A page redraws with new data and the position it now holds (as the site does): the same button keeps
    // the focus, rewritten in place; setting position from code fires nothing.
    await markFocused(page);
    const next = TOP.map((row) => row.map(([id, p]) => [(id + 1) % 7, p / 2]));
    await page.evaluate(([l]) => { const el = document.getElementById('lens'); Object.assign(el, { lens: l, position: 2 }); return el.updateComplete; }, [lensOf(next)]);
    assert.deepEqual(await focused(page), { text: '2:  sat', marker: 'kept', label: null });
    lens = await readLens(page);
    assert.deepEqual(lens.cells.map((row) => row.map((c) => c.text)), next.map((row) => row.map(([id]) => VOCABULARY[id])));
    assert.equal((await page.evaluate(() => window.seen)).length, 1);
    // ↓ to point 0's cell under the header, Home to position 0: Space chooses position 0.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Home');
    assert.match((await focused(page)).label, /^0 resid_pre, position 0: /);
    await page.keyboard.press('Space');
    assert.deepEqual((await page.evaluate(() => window.seen)).at(-1), { type: 'position-change', id: 'lens', position: 0 });
    assert.match((await focused(page)).label, /^0 resid_pre, position 0: /, 'the cell keeps the focus');
    // End goes to the row's last position; Tab leaves the grid in one press.
    await page.keyboard.press('End');
    assert.match((await focused(page)).label, /^0 resid_pre, position 3: /);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id === 'lens'), false, 'Tab left the grid');
    // A click on a cell of the last row, position 3.
    await page.locator('#lens .cell').nth(4 * 4 + 3).click();
    assert.deepEqual((await page.evaluate(() => window.seen)).at(-1), { type: 'position-change', id: 'lens', position: 3 });
    assert.equal(await page.evaluate(() => document.getElementById('lens').position), 3);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the bars: widths proportional to |value| either side of the zero line, as computed by hand; colours by sign', async () => {
    for (const width of [1280, 390]) {
      const { page, errors } = await openPage({ viewport: { width, height: 900 } });
      const shown = await page.evaluate(() => [...document.getElementById('bars').shadowRoot.querySelectorAll('.row')].map((row) => {
        const track = row.querySelector('.track').getBoundingClientRect();
        const zero = row.querySelector('.zero').getBoundingClientRect();
        const bar = row.querySelector('.bar');
        const box = bar.getBoundingClientRect();
        return { track: [track.left, track.width], zeroCentre: zero.left + zero.width / 2, bar: [box.left, box.width],
          colour: getComputedStyle(bar).backgroundColor, part: bar.getAttribute('part'), label: row.querySelector('.label').textContent,
          value: row.querySelector('.value').textContent, button: row.localName === 'button' };
      }));
      assert.deepEqual(shown.map((r) => r.label), ITEMS.map((i) => i.label), 'the order given');
      assert.deepEqual(shown.map((r) => r.value), ['+3.000', '\u22121.000', 'one and a half', '\u22120.500', '+0.250']);
      assert.deepEqual(shown.map((r) => r.button), [true, false, true, true, true], 'selectable, but not the item that says no');
      shown.forEach((row, i) => {
        const [left, trackWidth] = row.track;
        const [share, size] = BARS[i];
        assert.ok(Math.abs(row.zeroCentre - (left + ZERO * trackWidth)) <= 1, `row ${i}: zero line at ${row.zeroCentre}, track ${left}+${trackWidth}`);
        assert.ok(Math.abs(row.bar[0] - (left + share * trackWidth)) <= 0.5, `row ${i}: bar starts at ${row.bar[0]}`);
        assert.ok(Math.abs(row.bar[1] - size * trackWidth) <= 0.5, `row ${i}: bar ${row.bar[1]} wide of ${trackWidth}`);
        const negative = ITEMS[i].value < 0;
        assert.equal(row.colour, negative ? 'rgb(178, 24, 43)' : 'rgb(33, 102, 172)');
        assert.equal(row.part, negative ? 'bar negative' : 'bar');
      });
      if (width === 390) {
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll at 390 px');
        await page.screenshot({ path: join(screenshots, 'components-interp-390px.png'), fullPage: true });
      } else {
        await page.screenshot({ path: join(screenshots, 'components-interp.png'), fullPage: true });
      }
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('the bars: Enter or a click on a row chooses its key, fires item-select, keeps the focus through a redraw', async () => {
    const { page, errors } = await openPage();
    assert.equal((await tabTo(page, 'L0H1: one and a half')).text, 'L0H1: one and a half',
      'the row\'s text, its accessible name, with a separator only screen readers read');
    await page.keyboard.press('Enter');
    assert.deepEqual(await page.evaluate(() => window.seen), [{ type: 'item-select', id: 'bars', key: 'L0H1', keyboard: true }]);
    const pressed = () => page.evaluate(() => [...document.getElementById('bars').shadowRoot.querySelectorAll('button.row')]
      .map((b) => [b.querySelector('.label').textContent, b.getAttribute('aria-pressed')]));
    assert.deepEqual(await pressed(), [['L1H0', 'false'], ['L0H1', 'true'], ['L0H0', 'false'], ['L0 mlp_out', 'false']]);
    assert.equal(await page.evaluate(() => document.getElementById('bars').getAttribute('chosen')), 'L0H1');
    // New values in the same order: the focused row is the same node, its bar redrawn.
    await markFocused(page);
    await page.evaluate((items) => {
      const bars = document.getElementById('bars');
      bars.items = items.map((item) => ({ ...item, value: item.value * 2, text: undefined }));
      return bars.updateComplete;
    }, ITEMS);
    assert.deepEqual(await focused(page), { text: 'L0H1: +3.000', marker: 'kept', label: null });
    await page.locator('#bars button.row', { hasText: 'L1H0' }).click();
    assert.deepEqual((await page.evaluate(() => window.seen)).at(-1), { type: 'item-select', id: 'bars', key: 'L1H0', keyboard: false });
    assert.equal(await page.evaluate(() => document.getElementById('bars').chosen), 'L1H0');
    // Without `selectable` the rows are text.
    await page.evaluate(() => { const bars = document.getElementById('bars'); bars.selectable = false; return bars.updateComplete; });
    assert.deepEqual(await pressed(), []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('wrong input is an AttnLabError naming the element and property; the last good picture stays', async () => {
    const { page, errors } = await openPage();
    const refused = (script) => page.evaluate((source) => {
      try {
        new Function(source)();
        return 'accepted';
      } catch (error) {
        return `${error.name}: ${error.message}`;
      }
    }, script);
    const badProbability = JSON.stringify(lensOf(TOP.map((row, r) => row.map(([id, p], i) => [id, r === 1 && i === 2 ? 1.5 : p]))));
    assert.equal(await refused(`document.getElementById('lens').lens = ${badProbability}`),
      'AttnLabError: <attn-logit-lens>.lens.cells[1][2].top[0].probability is number 1.5: a probability is a number in [0, 1]');
    const fewRows = JSON.stringify({ ...lensOf(TOP), cells: lensOf(TOP).cells.slice(1) });
    assert.equal(await refused(`document.getElementById('lens').lens = ${fewRows}`),
      'AttnLabError: <attn-logit-lens>.lens.cells has 4 rows but lens.points has 5');
    assert.match(await refused('document.getElementById(\'lens\').lens = { cells: [] }'), /^AttnLabError: <attn-logit-lens>\.lens must be what model\.logitLens\(ids\) returns/);
    assert.match(await refused('document.getElementById(\'lens\').tokenText = 5'), /^AttnLabError: <attn-logit-lens>\.tokenText must be a function/);
    assert.equal(await refused('document.getElementById(\'bars\').items = [{ key: \'a\', label: \'a\', value: 1 }, { key: \'b\', label: \'b\', value: NaN }]'),
      'AttnLabError: <attn-attribution>.items[1].value must be a finite number, got number NaN');
    assert.match(await refused('document.getElementById(\'bars\').items = [{ key: \'a\', label: \'a\', value: 1 }, { key: \'a\', label: \'b\', value: 2 }]'),
      /^AttnLabError: <attn-attribution>\.items\[1\]\.key "a" is also an earlier item's/);
    assert.match(await refused('document.getElementById(\'bars\').items = { a: 1 }'), /^AttnLabError: <attn-attribution>\.items must be a list/);
    // Both still draw what they were last given.
    const lens = await readLens(page);
    assert.deepEqual(lens.cells.map((row) => row.map((c) => c.probability)), TOP.map((row) => row.map(([, p]) => p)));
    assert.equal(await page.evaluate(() => document.getElementById('bars').shadowRoot.querySelectorAll('.row').length), ITEMS.length);
    // Settings known only when drawing are shown in place of the table, and fixing them brings it back.
    const problemAfter = (script) => page.evaluate(async (source) => {
      const el = document.getElementById('lens');
      new Function('el', source)(el);
      await el.updateComplete;
      return el.shadowRoot.querySelector('.problem').hidden ? null : el.shadowRoot.querySelector('.problem').textContent;
    }, script);
    assert.equal(await problemAfter('el.setAttribute(\'palette\', \'RdBu\')'),
      '<attn-logit-lens> palette="RdBu" is not a sequential palette; probabilities are drawn on one of YlOrRd, cividis, viridis');
    assert.equal(await problemAfter('el.removeAttribute(\'palette\'); el.setAttribute(\'position\', \'9\')'),
      '<attn-logit-lens> position="9" is not one of the lens\'s positions (0, 1, 2, 3)');
    assert.equal(await problemAfter('el.removeAttribute(\'position\'); el.tokens = [\'The\', \' cat\']'),
      '<attn-logit-lens>.tokens has 2 labels but the lens reaches position 3');
    assert.equal(await problemAfter('el.tokens = [\'The\', \' cat\', \' sat\', \' on\']'), null);
    // Each problem was logged once as an AttnLabError; nothing else went wrong.
    assert.equal(errors.length, 3, errors.join('\n'));
    assert.ok(errors.every((e) => e.includes('AttnLabError')), errors.join('\n'));
    await page.close();
  });

  test('a dark page reaches both through the inherited colour; the theme\'s custom properties override it', async () => {
    const { page, errors } = await openPage({ colorScheme: 'dark' });
    const inks = () => page.evaluate(() => {
      const lens = document.getElementById('lens').shadowRoot;
      const bars = document.getElementById('bars').shadowRoot;
      const style = (node) => getComputedStyle(node);
      return {
        pointName: style(lens.querySelector('th[scope="row"]')).color,
        pointBackground: style(lens.querySelector('th[scope="row"]')).backgroundColor,
        cellRule: style(lens.querySelector('td')).borderBottomColor,
        barLabel: style(bars.querySelector('.label')).color,
        zeroLine: style(bars.querySelector('.zero')).borderLeftColor,
        rowBorder: style(bars.querySelector('button.row:not([aria-pressed="true"])')).borderTopColor,
      };
    });
    const dark = await inks();
    for (const key of ['pointName', 'barLabel', 'zeroLine']) assert.equal(dark[key], 'rgb(230, 237, 243)', `${key} is the dark page's text colour`);
    assert.ok(contrast(dark.pointName, 'rgb(13, 17, 23)') >= 4.5);
    await page.evaluate(() => {
      for (const id of ['lens', 'bars']) {
        const el = document.getElementById(id);
        el.style.setProperty('--attnlab-text', 'rgb(255, 200, 0)');
        el.style.setProperty('--attnlab-background', 'rgb(32, 32, 32)');
        el.style.setProperty('--attnlab-grid', 'rgb(0, 128, 0)');
      }
    });
    assert.deepEqual(await inks(), {
      pointName: 'rgb(255, 200, 0)', pointBackground: 'rgb(32, 32, 32)', cellRule: 'rgb(0, 128, 0)',
      barLabel: 'rgb(255, 200, 0)', zeroLine: 'rgb(255, 200, 0)', rowBorder: 'rgb(0, 128, 0)',
    });
    await page.screenshot({ path: join(screenshots, 'components-interp-dark.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('axe-core finds no serious or critical violation, light or dark', async () => {
    for (const colorScheme of ['light', 'dark']) {
      const { page } = await openPage({ colorScheme });
      await page.evaluate(() => { document.getElementById('lens').position = 1; document.getElementById('bars').chosen = 'L0H0'; });
      assert.deepEqual(await axeViolations(page), [], colorScheme);
      await page.close();
    }
  });
});
