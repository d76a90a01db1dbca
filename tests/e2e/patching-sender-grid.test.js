// The patching lesson's grid of heads picks the sender (issue 51, item 6): at 390 px with touch a tapped head
// becomes path patching's sender (the URL, the Sender pickers), it is outlined in the grid, and both prompts'
// maps draw its attention (the package's, computed here in Node); by the keyboard alone, Enter on a cell of
// the grid does the same and the focus stays in the grid. The grid's tooltip names a head as a head ("L0H3"),
// not as a path ("0 → 3"). Waits for states, never for time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { PRESETS } from '../../site/src/lessons/patching/parts.js';
import { heatmapData, openLesson, openSiteWithModel, tabUntil, urlParam } from './lesson-page.js';

const [INDUCTION] = PRESETS;
const HEADS = 'Share of the clean answer restored by putting back one head';
const swept = (page) => page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'done'
  && document.querySelector('.path-readout').textContent !== '', null, { timeout: 60000 });
const close = (a, b, tolerance = 1e-5) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= tolerance);

// In the page: the grid of heads (found through the shadow roots by its caption) as `grid` in `expression`.
// An expression, not a function: the page's Content-Security-Policy refuses eval.
const GRID = `(() => {
  const all = [];
  const walk = (root) => root.querySelectorAll('*').forEach((n) => { if (n.tagName === 'ATTN-HEATMAP') all.push(n); if (n.shadowRoot) walk(n.shadowRoot); });
  walk(document);
  return all.find((h) => String(h.caption).startsWith(${JSON.stringify(HEADS)}));
})()`;
const onGrid = (page, expression) => page.evaluate(`((grid) => ${expression})(${GRID})`);
const FOCUSED = `(${GRID}) === document.activeElement`;

describe('the patching lesson: a head of the grid becomes the sender', () => {
  let site, browser, model, tokenizer, url;

  before(async () => {
    ({ site, browser, url, model, tokenizer } = await openSiteWithModel('patching'));
  });
  after(async () => {
    await site?.close();
  });

  // The sender as the page shows it: URL, pickers, the grid's outline, both prompts' maps holding its attention.
  async function assertSender(page, sender) {
    const name = `L${sender.layer}H${sender.head}`;
    await page.waitForFunction(([l, h]) => new URLSearchParams(location.search).get('layer') === String(l)
      && new URLSearchParams(location.search).get('head') === String(h), [sender.layer, sender.head]);
    await swept(page);
    assert.deepEqual(await page.$$eval('[aria-label="Sender head"] select', (s) => s.map((x) => Number(x.value))), [sender.layer, sender.head]);
    const outlined = await onGrid(page, 'grid.highlight');
    assert.deepEqual(outlined, { cells: [[sender.layer, sender.head]] });
    for (const [side, text] of [['clean', INDUCTION.clean], ['corrupted', INDUCTION.corrupted]]) {
      const drawn = await heatmapData(page, `${name}’s attention on the ${side} prompt`);
      assert.ok(drawn, `no map of ${name}’s attention on the ${side} prompt`);
      const { attention } = model.forward(tokenizer.encode(text), { attention: true, logits: 'none' });
      assert.ok(close(drawn.data, Array.from(attention[sender.layer][sender.head].data)), `${name} on the ${side} prompt`);
    }
    assert.equal(await urlParam(page, 'clean'), INDUCTION.clean);
  }

  // The tooltip's second line: where the grid says the cell is.
  const tooltipWhere = (page) => onGrid(page, "grid.shadowRoot.querySelector('.tooltip').textContent");

  test('at 390 px with touch: a tapped head is the sender, outlined, drawn on both prompts; its tooltip says L0H3', async () => {
    const { page, problems } = await openLesson(browser, url, { phone: true });
    await swept(page);
    const shown = await page.$$eval('[aria-label="Sender head"] select', (s) => s.map((x) => Number(x.value)));
    const sender = { layer: 0, head: shown[0] === 0 && shown[1] === 3 ? 2 : 3 };
    // The centre of the head's cell, from the grid's own box (the heatmap has no element per cell).
    const at = await onGrid(page, `(() => {
      const hit = grid.shadowRoot.querySelector('.hit');
      hit.scrollIntoView({ block: 'center' });
      const box = hit.getBoundingClientRect();
      return { x: box.left + ((${sender.head} + 0.5) / grid.matrix.cols) * box.width,
        y: box.top + ((${sender.layer} + 0.5) / grid.matrix.rows) * box.height };
    })()`);
    await page.touchscreen.tap(at.x, at.y);
    await assertSender(page, sender);
    const where = await tooltipWhere(page);
    assert.match(where, new RegExp(`L${sender.layer}H${sender.head}`), `the tooltip reads ${JSON.stringify(where)}`);
    assert.doesNotMatch(where, /→/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('by the keyboard alone: Enter on a cell of the grid makes that head the sender; the focus stays in the grid', async () => {
    const { page, problems } = await openLesson(browser, url);
    await swept(page);
    await tabUntil(page, FOCUSED);
    // The grid's active cell starts at L0H0: two right and one down is L1H2.
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    assert.match(await tooltipWhere(page), /L1H2/);
    await page.keyboard.press('Enter');
    await assertSender(page, { layer: 1, head: 2 });
    assert.ok(await page.evaluate(FOCUSED), 'the focus left the grid of heads');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
