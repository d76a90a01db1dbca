// Linked views (issue 29.11), in headless Chromium on tests/e2e/pages/linked-views.html: a model view,
// a head view, coloured tokens and a heatmap in link group "g", three more views in group "other",
// and no code on the page beyond handing them their data. A query row or a head hovered or picked in
// one view of a group must show in the others and in no view of the other group. What each view shows
// is read as the reader sees it: the rows marked on the model view's thumbnails (their position), the
// token with aria-selected in the head view and the coloured tokens, the heatmap's outlined row, the
// head buttons with aria-pressed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { launch, open } from './browser.js';
import { serve } from './static-server.js';

const repo = new URL('../../', import.meta.url).pathname;
const PAGE = '/tests/e2e/pages/linked-views.html';
const N = 5; // tokens on the page
const NONE = Array(6).fill(null); // no row marked on any of the model view's 2 × 3 thumbnails
const marked = (row) => Array(6).fill(row);

// What every view shows. model: the row each thumbnail marks (from where the mark is drawn), the
// pressed thumbnails; heads, colors: the query token with aria-selected="true" (null: none), the
// pressed head button; map: the row the dashed linked outline sits on; query: each `query` attribute.
const readViews = (page) => page.evaluate((n) => {
  const root = (id) => document.getElementById(id).shadowRoot;
  const selected = (id) => {
    const i = [...root(id).querySelectorAll('[role=option]')].findIndex((o) => o.getAttribute('aria-selected') === 'true');
    return i < 0 ? null : i;
  };
  const pressedHead = (id) => {
    const i = [...root(id).querySelectorAll('[part=picker] button')].findIndex((b) => b.getAttribute('aria-pressed') === 'true');
    return i < 0 ? null : i;
  };
  const ring = (id) => {
    const g = root(id).querySelector('.linked-ring');
    if (g.getAttribute('display') === 'none') return null;
    const hit = root(id).querySelector('.hit');
    return Math.round((Number(g.lastElementChild.getAttribute('y')) - Number(hit.getAttribute('y'))) / (Number(hit.getAttribute('height')) / n));
  };
  const marks = [...root('model').querySelectorAll('.mark')].map((mark) => {
    if (mark.hidden || getComputedStyle(mark).display === 'none') return null;
    const thumb = mark.parentElement.getBoundingClientRect();
    const box = mark.getBoundingClientRect();
    return Math.floor(((box.top + box.height / 2 - thumb.top - 4) / (thumb.height - 8)) * n);
  });
  const query = Object.fromEntries(['model', 'heads', 'colors', 'other-colors', 'other-heads']
    .map((id) => [id, document.getElementById(id).getAttribute('query')]));
  return {
    model: marks,
    pressed: [...root('model').querySelectorAll('[part=thumb][aria-pressed=true]')].map((t) => t.getAttribute('aria-label')),
    heads: selected('heads'), headsHead: pressedHead('heads'), colors: selected('colors'), map: ring('map'),
    other: { heads: selected('other-heads'), headsHead: pressedHead('other-heads'), colors: selected('other-colors'), map: ring('other-map') },
    query,
  };
}, N);

const OTHER_UNTOUCHED = { heads: null, headsHead: 0, colors: null, map: null };

// The centre of the index-th node matching `selector` in a view's shadow root, scrolled into view.
const centre = (page, id, selector, index) => page.evaluate(([id, selector, index]) => {
  const node = document.getElementById(id).shadowRoot.querySelectorAll(selector)[index];
  node.scrollIntoView({ block: 'center' });
  const box = node.getBoundingClientRect();
  return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
}, [id, selector, index]);

// Hovers query row `row` of the model view's thumbnail (layer, head).
async function hoverThumb(page, layer, head, row) {
  const thumb = page.locator('#model [part=thumb]').nth(layer * 3 + head);
  await thumb.scrollIntoViewIfNeeded();
  const box = await thumb.boundingBox();
  await thumb.hover({ position: { x: box.width / 2, y: 4 + ((row + 0.5) / N) * (box.height - 8) } });
}

// The head view's query tokens are the right-aligned texts left of its lines (a hit area lies over them).
const queryToken = (page, id, i) => centre(page, id, 'text.token[text-anchor=end]', i);

const away = (page) => page.mouse.move(1, 1);
const events = (page) => page.evaluate(() => window.seen.splice(0));

describe('linked views in Chromium', () => {
  let server;
  let browser;

  before(async () => {
    server = await serve(repo);
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const openPage = () => open(browser, server.url + PAGE, { viewport: { width: 1280, height: 900 } });

  test('a row hovered in the model view shows in every view of its group and in no other; row-hover names its layer and head', async () => {
    const { page, errors, dialogs } = await openPage();
    await events(page);
    await hoverThumb(page, 1, 2, 3);
    let shown = await readViews(page);
    assert.deepEqual(shown.model, marked(3), 'the row is marked in every head');
    assert.equal(shown.heads, 3, 'the head view shows query 3');
    assert.equal(shown.colors, 3, 'the coloured tokens show query 3');
    assert.equal(shown.map, 3, 'the heatmap outlines row 3');
    assert.deepEqual(shown.other, OTHER_UNTOUCHED, 'group "other" is not affected');
    const hovers = (await events(page)).filter((e) => e.type === 'row-hover');
    assert.deepEqual(hovers, [{ type: 'row-hover', id: 'model', row: 3, layer: 1, head: 2 }], 'one event, from the view under the pointer');

    await hoverThumb(page, 0, 1, 3);
    assert.deepEqual((await events(page)).filter((e) => e.type === 'row-hover'), [{ type: 'row-hover', id: 'model', row: 3, layer: 0, head: 1 }],
      'the same row in another head is another hover');

    await away(page);
    shown = await readViews(page);
    assert.deepEqual([shown.model, shown.heads, shown.colors, shown.map], [NONE, null, null, null], 'the hover ended everywhere');
    assert.deepEqual((await events(page)).filter((e) => e.type === 'row-hover'), [{ type: 'row-hover', id: 'model', row: null, layer: null, head: null }]);
    assert.deepEqual([...errors, ...dialogs], []);
    await page.close();
  });

  test('a token hovered in the coloured tokens, the head view or a heatmap shows in the other views of its group', async () => {
    const { page, errors, dialogs } = await openPage();
    await events(page);
    await page.locator('#colors [part=token]').nth(2).hover();
    let shown = await readViews(page);
    assert.deepEqual([shown.model, shown.heads, shown.colors, shown.map], [marked(2), 2, 2, 2]);
    assert.deepEqual(shown.other, OTHER_UNTOUCHED);

    const { x, y } = await queryToken(page, 'heads', 4);
    await page.mouse.move(x, y);
    shown = await readViews(page);
    assert.deepEqual([shown.model, shown.heads, shown.colors, shown.map], [marked(4), 4, 4, 4]);
    assert.deepEqual(shown.other, OTHER_UNTOUCHED);

    const grid = page.locator('#map svg .hit');
    await grid.scrollIntoViewIfNeeded();
    const box = await grid.boundingBox();
    await grid.hover({ position: { x: box.width / 2, y: (1.5 / N) * box.height } });
    shown = await readViews(page);
    assert.deepEqual([shown.model, shown.heads, shown.colors], [marked(1), 1, 1], 'a heatmap\'s hovered row shows in the views');
    assert.deepEqual(shown.other, OTHER_UNTOUCHED);

    // The coloured tokens know no layer or head; the head view knows its head, and its layer attribute.
    const hovers = (await events(page)).filter((e) => e.type === 'row-hover').map(({ id, row, layer, head }) => [id, row, layer, head]);
    assert.deepEqual(hovers, [['colors', 2, null, null], ['colors', null, null, null], ['heads', 4, 1, 0], ['heads', null, null, null]]);
    await away(page);
    shown = await readViews(page);
    assert.deepEqual([shown.model, shown.heads, shown.colors, shown.map], [NONE, null, null, null]);
    assert.deepEqual([...errors, ...dialogs], []);
    await page.close();
  });

  test('a picked token stays shown in every view of its group after the pointer and the focus leave; keys move it; Escape clears it', async () => {
    const { page, errors, dialogs } = await openPage();
    await page.locator('#colors [part=token]').nth(3).click();
    await away(page);
    await page.locator('h1').click(); // the focus leaves the tokens
    let shown = await readViews(page);
    assert.deepEqual([shown.model, shown.heads, shown.colors, shown.map], [marked(3), 3, 3, 3]);
    assert.deepEqual(shown.query, { model: '3', heads: '3', colors: '3', 'other-colors': null, 'other-heads': null },
      'the pick is every linked view\'s query');
    assert.deepEqual(shown.other, OTHER_UNTOUCHED);

    // The keyboard in the head view continues from the pick.
    await page.locator('#heads svg[role=listbox]').focus();
    await page.keyboard.press('ArrowDown');
    shown = await readViews(page);
    assert.deepEqual([shown.model, shown.heads, shown.colors, shown.map], [marked(4), 4, 4, 4]);

    await page.keyboard.press('Escape');
    shown = await readViews(page);
    assert.deepEqual([shown.model, shown.heads, shown.colors, shown.map], [NONE, null, null, null]);
    assert.deepEqual(shown.query, { model: null, heads: null, colors: null, 'other-colors': null, 'other-heads': null });

    // A cell picked in the heatmap (a click) is kept as well.
    const grid = page.locator('#map svg .hit');
    const box = await grid.boundingBox();
    await grid.click({ position: { x: box.width / 2, y: (2.5 / N) * box.height } });
    await away(page);
    shown = await readViews(page);
    assert.deepEqual([shown.model, shown.heads, shown.colors], [marked(2), 2, 2]);
    assert.deepEqual(shown.other, OTHER_UNTOUCHED);
    assert.deepEqual([...errors, ...dialogs], []);
    await page.close();
  });

  test('a head picked in the model view is shown by the head view of that layer; one picked in the head view by the model view', async () => {
    const { page, errors, dialogs } = await openPage();
    await page.locator('#model [part=thumb]').nth(1 * 3 + 2).click();
    let shown = await readViews(page);
    assert.deepEqual(shown.pressed, ['Enlarge layer 1, head 2']);
    assert.equal(shown.headsHead, 2, 'the head view of layer 1 shows head 2');
    assert.equal(shown.other.headsHead, 0, 'group "other" is not affected');

    await page.locator('#model [part=thumb]').nth(0 * 3 + 1).click();
    shown = await readViews(page);
    assert.deepEqual(shown.pressed, ['Enlarge layer 0, head 1']);
    assert.equal(shown.headsHead, 2, 'a head of layer 0 is not one of the head view\'s (layer="1")');

    await page.locator('#heads').getByRole('button', { name: 'Head 0' }).click();
    shown = await readViews(page);
    assert.deepEqual(shown.pressed, ['Enlarge layer 1, head 0'], 'the model view enlarges the head view\'s head');
    assert.deepEqual(await page.evaluate(() => document.getElementById('model').selected), { layer: 1, head: 0 });
    assert.equal(shown.other.headsHead, 0);
    const picks = (await events(page)).filter((e) => e.type === 'head-select').map(({ id, layer, head }) => [id, layer, head]);
    assert.deepEqual(picks, [['model', 1, 2], ['model', 0, 1], ['heads', undefined, 0]], 'head-select from the view the reader used only');
    assert.deepEqual([...errors, ...dialogs], []);
    await page.close();
  });

  test('query and link are properties that reflect their attributes', async () => {
    const { page, errors, dialogs } = await openPage();
    const set = await page.evaluate(async () => {
      const colors = document.getElementById('other-colors');
      const model = document.getElementById('model');
      const out = { before: [colors.query, colors.link, model.query, model.link, document.getElementById('map').link] };
      colors.query = 2;
      model.query = 4;
      document.getElementById('heads').query = 1;
      out.attributes = [colors.getAttribute('query'), model.getAttribute('query'), document.getElementById('heads').getAttribute('query')];
      out.read = [colors.query, model.query];
      colors.setAttribute('query', '1');
      out.fromAttribute = colors.query;
      await Promise.all([colors.updateComplete, model.updateComplete]);
      return out;
    });
    assert.deepEqual(set.before, [null, 'other', null, 'g', 'g']);
    assert.deepEqual(set.attributes, ['2', '4', '1']);
    assert.deepEqual(set.read, [2, 4]);
    assert.equal(set.fromAttribute, 1);
    let shown = await readViews(page);
    assert.equal(shown.other.colors, 1, 'query="1" shows token 1');
    assert.deepEqual(shown.model, marked(4), 'model.query = 4 marks row 4 in every head');
    assert.equal(shown.heads, 1);

    // Moving a view into group "g" by its property: it follows g's hover; out of every group: it does not.
    const link = await page.evaluate(() => {
      const colors = document.getElementById('other-colors');
      colors.query = null;
      colors.link = 'g';
      return [colors.getAttribute('link'), colors.link, colors.hasAttribute('query')];
    });
    assert.deepEqual(link, ['g', 'g', false]);
    await hoverThumb(page, 0, 0, 2);
    shown = await readViews(page);
    assert.equal(shown.other.colors, 2, 'link = "g" joined the group');
    assert.equal(shown.other.map, null, 'its old group stays unaffected');
    await away(page);
    assert.equal(await page.evaluate(() => { const c = document.getElementById('other-colors'); c.link = null; return c.hasAttribute('link'); }), false);
    await hoverThumb(page, 0, 0, 3);
    shown = await readViews(page);
    assert.equal(shown.other.colors, null, 'link = null left the group');
    assert.equal(shown.colors, 3);
    assert.deepEqual([...errors, ...dialogs], []);
    await page.close();
  });
});
