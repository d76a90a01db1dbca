// "The logit lens" in headless Chromium: no console error or serious axe violation, it fits a phone; every
// cell of the grid names the token the package's logitLens favours there (computed here in Node); a
// position chosen by touch at 390 px, or by the keyboard alone, moves the URL and the point-by-point
// chart, whose probabilities and ranks are the package's; a target that is not one token is refused in the
// learner's words. Screenshots: test-output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { pointLabel } from '../../site/src/lens-points.js';
import { checkLessonLayout, openLesson, openSiteWithModel, SCREENSHOTS } from './lesson-page.js';

const PROMPT = 'Thou shalt love thy neighbour as';

// The grid's favoured ids, row by row (the package's <attn-logit-lens>, read in its shadow root), and the
// chart's rows as the page prints them.
const gridIds = (page) => page.$$eval('attn-logit-lens tr', (rows) => rows.slice(1).map((r) =>
  Array.from(r.querySelectorAll('.cell'), (b) => Number(b.dataset.id))));
// The text of the lens header that has the keyboard focus (inside the element's shadow root), or ''.
const focusedHeader = (page) => page.evaluate(() => {
  const inside = document.activeElement?.localName === 'attn-logit-lens' ? document.activeElement.shadowRoot.activeElement : null;
  return inside?.closest('th[scope="col"]') ? inside.textContent : '';
});
const chart = (page) => page.$$eval('.panel .bars li', (items) => items.map((li) => ({
  label: li.querySelector('.bar-label').textContent, value: li.querySelector('.bar-value').textContent })));

describe('the logit lens lesson', () => {
  let site, browser, model, tokenizer;
  let url;

  before(async () => {
    ({ site, browser, url, model, tokenizer } = await openSiteWithModel('logit-lens'));
  });
  after(async () => {
    await site?.close();
  });

  const ids = () => Array.from(tokenizer.encode(PROMPT));
  // The chart's rows for `position` and `target` as the package computes them: "1 resid_mid · rank 1".
  const expectedChart = (position, target) => model.logitLens(ids(), { position, k: 1, target }).rows
    .map((row) => `${pointLabel(row.point)} · rank ${row.target.rank}`);

  test('no console error or serious axe violation, fits a phone; every cell is the package\'s favourite', async () => {
    const { page, problems } = await openLesson(browser, url);
    const lens = model.logitLens(ids(), { k: 1 });
    assert.deepEqual(await gridIds(page), lens.cells.map((row) => row.map((cell) => cell.top[0].id)));
    // the default: the last position, following the model's own prediction there (" thyself")
    const own = lens.cells.at(-1).at(-1).top[0].id;
    assert.equal(tokenizer.decode([own]), ' thyself');
    assert.deepEqual((await chart(page)).map((r) => r.label), expectedChart(ids().length - 1, own));
    assert.match(await page.textContent('.explain[aria-live]'), /first the favourite at 1 resid_mid/);
    // the Try-this: a wrong guess is refused naming the answer, the right one accepted
    await page.selectOption('label:has-text("First leads at") select', { label: '0 resid_mid' });
    await page.click('.exercise button:has-text("Check")');
    assert.match(await page.textContent('.exercise [role="status"]'), /^Not there: it first leads at 1 resid_mid; at 0 resid_mid it is ranked \d+\.$/);
    await page.selectOption('label:has-text("First leads at") select', { label: '1 resid_mid' });
    await page.click('.exercise button:has-text("Check")');
    assert.equal(await page.textContent('.exercise [role="status"]'), 'Right: it first leads at 1 resid_mid.');
    await checkLessonLayout(browser, { page, problems }, url, `${SCREENSHOTS}logit-lens`);
  });

  test('at 390 px with touch, tapping a cell chooses its position: the URL and the chart follow', async () => {
    const { page, problems } = await openLesson(browser, url, { phone: true });
    // the cell of the last row at position 3 (" thy")
    const cell = page.locator('attn-logit-lens tr').last().locator('.cell').nth(3);
    await cell.scrollIntoViewIfNeeded();
    await cell.tap();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('position') === '3');
    const own = model.logitLens(ids(), { k: 1 }).cells.at(-1)[3].top[0].id;
    await page.waitForFunction((first) => document.querySelector('.panel .bars li .bar-label')?.textContent === first,
      expectedChart(3, own)[0]);
    assert.deepEqual((await chart(page)).map((r) => r.label), expectedChart(3, own));
    assert.equal(await page.$eval('attn-logit-lens th.chosen button', (b) => b.textContent), `3: ${tokenizer.tokenString(ids()[3]).replaceAll(' ', '·')}`);
    assert.equal(await page.$eval('attn-logit-lens th.chosen button', (b) => b.getAttribute('aria-pressed')), 'true');
    await page.screenshot({ path: `${SCREENSHOTS}logit-lens-390px-touch.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('by the keyboard alone: Tab to the grid (one stop), the arrows to a position\'s header, Enter chooses it; a target of two tokens is refused in words', async () => {
    const { page, problems } = await openLesson(browser, url);
    let focused = '';
    for (let i = 0; i < 60 && !focused; i++) {
      await page.keyboard.press('Tab');
      focused = await focusedHeader(page);
    }
    assert.ok(focused, 'Tab never reached the lens grid (its chosen position\'s header)');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    focused = await focusedHeader(page);
    assert.ok(focused.startsWith('1:'), `Home, → should reach position 1's header, got ${focused}`);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('position') === '1');
    assert.equal((await focusedHeader(page)).startsWith('1:'), true, 'the focus left the header it chose');

    // a target the learner types: one token is followed; two are refused, naming the split
    await page.fill('label:has-text("Token to follow") input, label:has-text("Token to follow") textarea', ' neighbour');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('target') === ' neighbour');
    const [neighbour] = tokenizer.encode(' neighbour');
    await page.waitForFunction((first) => document.querySelector('.panel .bars li .bar-label')?.textContent === first,
      expectedChart(1, neighbour)[0]);
    assert.deepEqual((await chart(page)).map((r) => r.label), expectedChart(1, neighbour));
    await page.fill('label:has-text("Token to follow") input, label:has-text("Token to follow") textarea', ' neighbourhood');
    await page.waitForFunction(() => /is not one token/.test(document.body.textContent));
    assert.match(await page.textContent('body'), /“\u2068 neighbourhood\u2069” is not one token: the tokenizer splits it into 3, “\u2068·neighbour\u2069” \+ “\u2068ho\u2069” \+ “\u2068od\u2069”/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
