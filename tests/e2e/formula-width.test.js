// Formulas that fit a phone (issue 53, item 6): at 390 px every lesson's formula lies inside its 358 px
// column — measured by the browser from the boxes KaTeX's lines are drawn in, not from the TeX — so
// nothing is cut at the right edge. A formula made wider than the column (the learner enlarged the
// text) turns into a scroll region the keyboard reaches: focusable, named, with a visible cue.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { LESSONS } from '../../site/src/lessons.js';
import { openSite, SCREENSHOTS } from './lesson-page.js';

// The formula's column and the horizontal extent of what KaTeX drew (each line's .base box), in px
// from the column's left edge; null for a lesson without a formula.
const formulaBox = (page) => page.evaluate(async () => {
  await document.fonts.ready;
  const formula = document.querySelector('main .formula');
  if (!formula) return null;
  const column = formula.getBoundingClientRect();
  const boxes = [...formula.querySelectorAll('.katex-html > .base')].map((b) => b.getBoundingClientRect());
  return {
    column: Math.round(column.width),
    left: Math.min(...boxes.map((b) => b.left)) - column.left,
    right: Math.max(...boxes.map((b) => b.right)) - column.left,
    scrollWidth: formula.scrollWidth,
    clientWidth: formula.clientWidth,
  };
});

// Opens a lesson at a phone's width; its formula is in the page's HTML (typeset at build time), and
// page.js has rebuilt the lesson frame once the body holds the lesson section.
async function openPhone(browser, url) {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('main section.lesson-body') && document.querySelector('main h1'));
  return page;
}

describe('every lesson formula fits a phone\'s column', () => {
  let site;

  before(async () => {
    site = await openSite();
  });

  after(async () => {
    await site?.close();
  });

  test('at 390 px each formula is drawn inside its 358 px column, and none scrolls', async () => {
    const wide = [];
    let measured = 0;
    for (const { slug } of LESSONS) {
      const page = await openPhone(site.browser, `${site.server.url}/lessons/${slug}.html`);
      const box = await formulaBox(page);
      if (box) {
        measured += 1;
        assert.equal(box.column, 358, `${slug}: the column`);
        if (box.left < 0 || box.right > box.column || box.scrollWidth > box.clientWidth) {
          wide.push(`${slug}: drawn from ${Math.round(box.left)} to ${Math.round(box.right)} px in ${box.column} px (scrolls ${box.scrollWidth})`);
        }
        if (['multi-head', 'patching', 'induction-forming'].includes(slug)) {
          await page.locator('main .formula').screenshot({ path: `${SCREENSHOTS}formula-${slug}-390px.png` });
        }
      }
      await page.close();
    }
    assert.ok(measured >= 20, `only ${measured} formulas measured`);
    assert.deepEqual(wide, []);
  });

  test('a formula made wider than the column by larger text scrolls with a cue and takes keyboard focus; at the usual size it does not', async () => {
    const page = await openPhone(site.browser, `${site.server.url}/lessons/multi-head.html`);
    const formula = page.locator('main .formula');
    await page.evaluate(() => document.fonts.ready);
    assert.equal(await formula.getAttribute('tabindex'), null, 'a formula that fits is not a tab stop');
    // The learner's larger text (set through the CSSOM: the site's policy refuses style attributes).
    await page.evaluate(() => { document.documentElement.style.fontSize = '200%'; });
    await page.waitForFunction(() => document.querySelector('main .formula').hasAttribute('data-scrolls'));
    assert.equal(await formula.getAttribute('tabindex'), '0');
    assert.equal(await formula.getAttribute('role'), 'region');
    assert.match(await formula.getAttribute('aria-label'), /scroll it sideways/);
    const cue = await formula.evaluate((f) => getComputedStyle(f, '::before').content);
    assert.match(cue, /Scroll sideways/);
    await formula.screenshot({ path: `${SCREENSHOTS}formula-scrolls-390px.png` });
    // The keyboard reaches it and scrolls it.
    await formula.focus();
    assert.equal(await page.evaluate(() => document.activeElement === document.querySelector('main .formula')), true);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('main .formula').scrollLeft > 0);
    // Back to the usual size: a formula that fits again leaves the tab order.
    await page.evaluate(() => { document.documentElement.style.fontSize = ''; });
    await page.waitForFunction(() => !document.querySelector('main .formula').hasAttribute('data-scrolls'));
    assert.equal(await formula.getAttribute('tabindex'), null);
    await page.close();
  });
});
