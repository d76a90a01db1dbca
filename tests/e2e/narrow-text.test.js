// At a phone's 390 px no text of a lesson's controls or figures is cut (issue 41, item 5): the text a
// closed select shows fits inside it, and every text of a figure (a heatmap's labels and titles, a
// chart's legend) lies inside the figure's drawing; and no callout is drawn empty (a bar with no words). Measured in the page by the browser: a select
// against the same select at its natural width, a figure's texts by their boxes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { openLesson, openSite } from './lesson-page.js';

const LESSONS = ['why-attention', 'step-by-step', 'scaling', 'self-attention', 'multi-head', 'shapes', 'cross-attention',
  'masking', 'positions', 'encoder', 'watch-it-learn', 'exercises', 'tokens', 'next-token', 'kv-cache', 'all-heads',
  'head-jobs', 'ablation', 'it-sentence', 'your-model', 'attribution', 'patching', 'induction-circuit',
  'induction-forming'];

// → descriptions of the selects narrower than they would be to show their chosen text whole: the same
// select with only that option, at its natural width (the browser's own measure, arrow and padding
// included).
const cutSelects = (page) => page.evaluate(() => [...document.querySelectorAll('select')].filter((s) => s.checkVisibility()).flatMap((s) => {
  const probe = s.cloneNode(false);
  probe.append(new Option(s.selectedOptions[0]?.textContent ?? ''));
  Object.assign(probe.style, { position: 'absolute', visibility: 'hidden', width: 'auto', maxWidth: 'none', minWidth: '0' });
  s.parentElement.append(probe);
  const needed = probe.getBoundingClientRect().width;
  probe.remove();
  const shown = s.getBoundingClientRect().width;
  return shown + 0.5 < needed ? [`“${probe.options[0].text}”: needs ${Math.round(needed)} px, shown in ${Math.round(shown)} px`] : [];
}));

// → descriptions of the texts drawn (partly) outside their figure's <svg>, shadow roots searched too.
const cutFigureTexts = (page) => page.evaluate(() => {
  const out = [];
  const walk = (root) => root.querySelectorAll('*').forEach((n) => {
    if (n.tagName === 'svg' && n.checkVisibility()) {
      const box = n.getBoundingClientRect();
      for (const t of n.querySelectorAll('text')) {
        const r = t.getBoundingClientRect();
        if (!r.width || !t.textContent.trim()) continue;
        if (r.top < box.top - 1 || r.bottom > box.bottom + 1 || r.left < box.left - 1 || r.right > box.right + 1) {
          out.push(`“${t.textContent}” at ${Math.round(r.left - box.left)}, ${Math.round(r.top - box.top)} (${Math.round(r.width)}×${Math.round(r.height)}) ` +
            `in a ${Math.round(box.width)}×${Math.round(box.height)} figure`);
        }
      }
    }
    if (n.shadowRoot) walk(n.shadowRoot);
  });
  walk(document);
  return out;
});

// → descriptions of the boxes drawn with nothing in them: a border or a background around no text.
const emptyCallouts = (page) => page.evaluate(() => [...document.querySelectorAll('main p, main div')].filter((n) => n.checkVisibility() &&
  n.textContent.trim() === '' && n.children.length === 0 &&
  (parseFloat(getComputedStyle(n).borderLeftWidth) > 0 || getComputedStyle(n).backgroundColor !== 'rgba(0, 0, 0, 0)'))
  .map((n) => `${n.tagName.toLowerCase()}.${n.className}, ${Math.round(n.getBoundingClientRect().height)} px tall`));

describe('a lesson\'s words on a phone: none cut, no empty callout', () => {
  let site;

  before(async () => {
    site = await openSite();
  });

  after(async () => {
    await site?.close();
  });

  for (const slug of LESSONS) {
    test(`${slug} at 390 px: every select's chosen text and every figure's text is whole; no empty callout`, async () => {
      const { page, problems } = await openLesson(site.browser, `${site.server.url}/lessons/${slug}.html`, { width: 390, height: 844 });
      assert.deepEqual(await cutSelects(page), []);
      assert.deepEqual(await cutFigureTexts(page), []);
      assert.deepEqual(await emptyCallouts(page), []);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
});
