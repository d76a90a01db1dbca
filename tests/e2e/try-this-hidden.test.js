// Try-this answers stay hidden until Check (issue 51, item 6): in every lesson whose figures or readouts would
// give a Try-this's answer away (the logit lens's chart sat right under its button), that answer is out of sight
// and out of the accessibility tree (display: none) once the page has computed it, with a line saying what
// Check will show; Check — a tap at 390 px with touch, Enter on the keyboard on a desktop — gives the verdict and
// shows the answer. Induction forming's answer needs a trained model: before one, Check says so and the chart
// stays hidden (its reveal after the phase change: induction-forming-lesson.test.js). Waits for states, never for time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { checkTryThis, openLesson, openSite, tabUntil } from './lesson-page.js';

// slug → what the page shows once the answer is computed (evaluated in the page): every hidden answer holds its
// text, and a lesson whose answer comes from a sweep has finished it. Functions: the page's Content-Security-Policy
// refuses a string to evaluate while waiting.
const computed = () => [...document.querySelectorAll('.try-answer')].every((n) => n.textContent.trim() !== '');
const swept = () => [...document.querySelectorAll('.try-answer')].every((n) => n.textContent.trim() !== '')
  && document.querySelector('.sweep')?.dataset.state === 'done';
// The caches have read the whole passage: the table says which run it holds once that run is final.
const cachesRead = () => [...document.querySelectorAll('.try-answer')].every((n) => n.textContent.trim() !== '')
  && Boolean(document.querySelector('.cache-table')?.dataset.run);
const LESSONS = {
  'logit-lens': computed,
  attribution: computed,
  'induction-circuit': computed,
  patching: swept,
  rotary: computed,
  'windows-and-sinks': cachesRead,
};

// In the page: each answer's state — hidden and out of the layout (so out of the accessibility tree), or shown
// with a size — and whether its line ("Answer the Try-this …") is shown.
const answers = (page) => page.$$eval('.try-answer', (nodes) => nodes.map((n) => ({
  hidden: n.hidden && getComputedStyle(n).display === 'none' && !document.body.innerText.includes(n.innerText || '\u0000'),
  shownWithSize: !n.hidden && n.getBoundingClientRect().height > 0,
  noteShown: !n.previousElementSibling.hidden && n.previousElementSibling.classList.contains('try-answer-note'),
})));

describe('Try-this answers are hidden until Check', () => {
  let site;
  before(async () => {
    site = await openSite();
  });
  after(async () => {
    await site?.close();
  });

  for (const [slug, ready] of Object.entries(LESSONS)) {
    for (const way of ['390 px with touch', 'keyboard']) {
      test(`${slug}, ${way}: the answer is computed but hidden; Check gives the verdict and shows it`, async () => {
        const url = `${site.server.url}/lessons/${slug}.html`;
        const { page, problems } = await openLesson(site.browser, url, way === 'keyboard' ? {} : { phone: true });
        await page.waitForFunction(ready, null, { timeout: 120000 });
        const before = await answers(page);
        assert.ok(before.length > 0, 'no answer is kept for after Check');
        for (const a of before) {
          assert.ok(a.hidden, `an answer is on show before Check: ${JSON.stringify(a)}`);
          assert.ok(a.noteShown, 'no line says what Check will show');
        }
        assert.equal(await page.textContent('section.exercise [role=status]'), '');
        // A typed answer is typed first (rotary's number of tokens): Check without one only asks for it.
        if (await page.locator('section.exercise input').count()) {
          if (way === 'keyboard') await tabUntil(page, () => document.activeElement?.matches('section.exercise input'));
          else await page.locator('section.exercise input').tap();
          await page.keyboard.type('10');
        }
        await checkTryThis(page, way === 'keyboard' ? { keyboard: true } : { tap: true });
        assert.notEqual(await page.textContent('section.exercise [role=status]'), '');
        for (const a of await answers(page)) {
          assert.ok(a.shownWithSize && !a.noteShown, `an answer is still hidden after Check: ${JSON.stringify(a)}`);
        }
        assert.deepEqual(problems, []);
        await page.close();
      });
    }
  }

  test('induction-forming, 390 px with touch: the previous-token chart is hidden; Check before any training says so and keeps it hidden', async () => {
    const { page, problems } = await openLesson(site.browser, `${site.server.url}/lessons/induction-forming.html`, { phone: true });
    const [answer] = await answers(page);
    assert.ok(answer?.hidden && answer.noteShown, `the previous-token chart is on show before Check: ${JSON.stringify(answer)}`);
    await page.locator('section.exercise button', { hasText: 'Check' }).tap();
    await page.waitForFunction(() => document.querySelector('section.exercise [role=status]').textContent !== '');
    assert.match(await page.textContent('section.exercise [role=status]'), /train the two-layer model until the phase change/);
    assert.ok((await answers(page))[0].hidden, 'the chart showed without a verdict');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
