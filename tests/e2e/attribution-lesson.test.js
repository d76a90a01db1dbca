// "Who wrote this logit" in headless Chromium: it loads the GPT module and attnlab-kjv only, has no console
// error or serious axe violation and fits a phone; the sum it shows is the package's (computed here in
// Node) beside the model's own logit difference; a head's bar chosen by touch at 390 px, or by the keyboard
// alone, shows that head's attention from the last position; a target that is not one token is refused
// in the learner's words; the Try-this accepts the strongest head only. Screenshots: test-output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { checkLessonLayout, checkTryThis, openLesson, openSiteWithModel, SCREENSHOTS, urlParam } from './lesson-page.js';

const PROMPT = 'Thou shalt love thy neighbour as';

// The page's diverging bars (the package's <attn-attribution>, read in its shadow root): each row's label,
// printed value, and whether it is a pressed button.
const rows = (page) => page.$$eval('attn-attribution .row', (nodes) => nodes.map((n) => ({
  label: n.querySelector('.label').textContent, value: n.querySelector('.value').textContent,
  button: n.tagName === 'BUTTON', pressed: n.getAttribute('aria-pressed') === 'true' })));
// The element with the keyboard focus, inside shadow roots too: its text (a row's accessible name,
// "L2H1: +0.126") or an attribute's value.
const focusedAttribute = (page, attribute) => page.evaluate((name) => {
  let node = document.activeElement;
  while (node?.shadowRoot?.activeElement) node = node.shadowRoot.activeElement;
  return (name === 'text' ? node?.textContent : node?.getAttribute(name)) ?? '';
}, attribute);
// The attention bars' values as the page prints them (percentages) and their token labels.
const attentionShown = (page) => page.$$eval('.bars li', (items) => items.map((li) => ({
  label: li.querySelector('.bar-label').textContent, value: li.querySelector('.bar-value').textContent })));
const percent = (p) => (p * 100 >= 0.1 ? `${(p * 100).toFixed(1)}%` : `${Number((p * 100).toPrecision(2))}%`);

describe('the attribution lesson', () => {
  let site, browser, model, tokenizer;
  let url;

  before(async () => {
    ({ site, browser, url, model, tokenizer } = await openSiteWithModel('attribution'));
  });
  after(async () => {
    await site?.close();
  });

  // What the page should show for a head: its attention row from the last position, as Node computes it.
  const expectedAttention = (ids, layer, head) => {
    const m = model.forward(ids, { attention: true, logits: 'none' }).attention[layer][head];
    const last = ids.length - 1;
    return Array.from(ids, (id, j) => percent(m.data[last * m.cols + j]));
  };
  const ids = () => Array.from(tokenizer.encode(PROMPT));

  test('loads the model on demand, no console error, no serious axe violation, fits a phone', async () => {
    const { page, problems, fetched } = await openLesson(browser, url);
    const strip = (name) => name.replace(/-[\w-]{8}\.(\w+)$/, '.$1');
    assert.deepEqual(fetched.filter((f) => f.endsWith('.wasm')).map(strip).sort(), ['attnlab-gpt-simd-mt.wasm', 'attnlab-simd-mt.wasm']);
    assert.deepEqual(fetched.filter((f) => /\.(safetensors|json|txt|jsonl)$/.test(f)).map(strip).sort(), ['merges.txt', 'model.safetensors', 'vocab.json']);
    await checkLessonLayout(browser, { page, problems }, url, `${SCREENSHOTS}attribution`);
  });

  test('the sum shown is the package\'s, beside the model\'s own logit difference; every part has its bar, in either order', async () => {
    const { page, problems } = await openLesson(browser, url);
    const [target] = tokenizer.encode(' thyself'), [baseline] = tokenizer.encode(' himself');
    const result = model.directLogitAttribution(ids(), { target, baseline });
    const logits = model.forward(ids(), { logits: 'last' }).logits.data;
    await checkTryThis(page);  // the bars answer the Try-this: shown once it is checked
    const shown = await page.$eval('.dla-sums', (n) => ({ sum: Number(n.dataset.sum), logit: Number(n.dataset.logit), text: n.textContent }));
    assert.ok(Math.abs(shown.sum - result.sum) < 1e-5, `page ${shown.sum}, package ${result.sum}`);
    assert.ok(Math.abs(shown.logit - (logits[target] - logits[baseline])) < 1e-5);
    assert.ok(shown.text.includes(result.sum.toFixed(4).replace('-', '−')), shown.text);
    assert.ok(shown.text.includes((logits[target] - logits[baseline]).toFixed(4).replace('-', '−')), shown.text);

    // largest first by default; 4 layers × (4 heads + b_O + mlp_out) + embed, pos_embed, ln_final.b
    const sorted = [...result.terms].sort((a, b) => b.value - a.value).map((t) => t.label);
    assert.deepEqual((await rows(page)).map((r) => r.label), sorted);
    assert.equal(sorted.length, 27);
    await page.selectOption('label:has-text("Order") select', 'model');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('order') === 'model');
    const inModelOrder = await rows(page);
    assert.deepEqual(inModelOrder.map((r) => r.label), result.terms.map((t) => t.label));
    assert.deepEqual(inModelOrder.map((r) => r.button), result.terms.map((t) => t.part === 'head'));
    const sign = (x) => `${x > 0 ? '+' : ''}${x.toFixed(3).replace('-', '−')}`;
    assert.deepEqual(inModelOrder.map((r) => r.value), result.terms.map((t) => sign(t.value)));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('an earlier position: its sum is the package\'s there, and a head\'s attention runs up to that token only', async () => {
    const { page, problems } = await openLesson(browser, url);
    await page.fill('label:has-text("Target token") input', ' thy');
    await page.fill('label:has-text("Against") input', ' the');
    await page.selectOption('label:has-text("Predicting the token after") select', '2');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('position') === '2');
    const [target] = tokenizer.encode(' thy'), [baseline] = tokenizer.encode(' the');
    const { sum } = model.directLogitAttribution(ids(), { target, baseline, position: 2 });
    const all = model.forward(ids()).logits;
    const own = all.data[2 * all.cols + target] - all.data[2 * all.cols + baseline];
    await checkTryThis(page);
    const shown = await page.$eval('.dla-sums', (n) => ({ sum: Number(n.dataset.sum), logit: Number(n.dataset.logit) }));
    assert.ok(Math.abs(shown.sum - sum) < 1e-5 && Math.abs(shown.logit - own) < 1e-5, `${JSON.stringify(shown)} vs ${sum}, ${own}`);
    assert.equal((await attentionShown(page)).length, 3);
    // A hostile target is refused as text: nothing injected, the split shown
    await page.fill('label:has-text("Target token") input', '<img src=x onerror=alert(1)>\u202E');
    await page.waitForFunction(() => !document.querySelector('.error').hidden);
    assert.equal(await page.locator('.error img').count(), 0);
    assert.match(await page.textContent('.error'), /is not one token: the tokenizer splits it into \d+/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('at 390 px with touch, tapping a head\'s bar shows its attention from the last position, tokens labelled', async () => {
    const { page, problems } = await openLesson(browser, url, { phone: true });
    await checkTryThis(page, { tap: true });
    const row = page.locator('attn-attribution button.row', { hasText: 'L1H2' });
    const panelInView = () => page.evaluate(() => {
      const { top, bottom } = document.querySelector('.bars-figure:has(.bars)').getBoundingClientRect();
      return bottom > 0 && top < window.innerHeight;
    });
    await row.scrollIntoViewIfNeeded();
    assert.equal(await panelInView(), false, 'the attention panel is already in view: the tap proves nothing');
    await row.tap();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('layer') === '1');
    assert.equal(await urlParam(page, 'head'), '2');
    assert.equal(await row.getAttribute('aria-pressed'), 'true');
    // the attention panel, below every bar on a phone, was brought into view by the tap
    await page.waitForFunction(() => {
      const { top, bottom } = document.querySelector('.bars-figure:has(.bars)').getBoundingClientRect();
      return bottom > 0 && top < window.innerHeight;
    }, null, { timeout: 5000 });
    const shown = await attentionShown(page);
    assert.deepEqual(shown.map((r) => r.value), expectedAttention(ids(), 1, 2));
    assert.deepEqual(shown.map((r) => r.label), ids().map((id, j) => `${j}: ${tokenizer.tokenString(id).replaceAll(' ', '·')}`));
    assert.ok((await page.textContent('.bars-figure:has(.bars) figcaption')).startsWith('L1H2'));
    await page.screenshot({ path: `${SCREENSHOTS}attribution-390px-touch.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('by the keyboard alone: Tab to a head\'s bar, Enter shows its attention, focus stays on it', async () => {
    const { page, problems } = await openLesson(browser, url);
    const focusedLabel = () => focusedAttribute(page, 'text');
    await checkTryThis(page, { keyboard: true });
    let focused = '';
    for (let i = 0; i < 200 && !focused.startsWith('L2H1:'); i++) {
      await page.keyboard.press('Tab');
      focused = await focusedLabel();
    }
    assert.ok(focused.startsWith('L2H1:'), 'Tab never reached L2H1\'s bar');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('layer') === '2');
    assert.equal(await urlParam(page, 'head'), '1');
    assert.deepEqual((await attentionShown(page)).map((r) => r.value), expectedAttention(ids(), 2, 1));
    assert.ok((await focusedLabel()).startsWith('L2H1:'));
    assert.equal(await focusedAttribute(page, 'aria-pressed'), 'true');
    // Space on the next head's bar (one Tab on, in the default order) chooses it instead
    await page.keyboard.press('Tab');
    const next = await focusedLabel();
    const [, l, h] = /^L(\d+)H(\d+):/.exec(next) ?? [];
    assert.ok(l !== undefined, `Tab went to ${next}, not a head's bar`);
    await page.keyboard.press('Space');
    await page.waitForFunction(([a, b]) => new URLSearchParams(location.search).get('layer') === a
      && new URLSearchParams(location.search).get('head') === b, [l, h]);
    assert.deepEqual((await attentionShown(page)).map((r) => r.value), expectedAttention(ids(), Number(l), Number(h)));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a target that is not one token is refused, showing how the tokenizer splits it; the Try-this checks a guess', async () => {
    const { page, problems } = await openLesson(browser, url);
    await page.fill('label:has-text("Target token") input', ' neighbourhood');
    const split = Array.from(tokenizer.encode(' neighbourhood'), (id) => tokenizer.tokenString(id));
    assert.ok(split.length > 1);
    await page.waitForFunction(() => !document.querySelector('.error').hidden);
    const message = await page.textContent('.error');
    assert.ok(message.includes(`splits it into ${split.length}`), message);
    for (const piece of split) assert.ok(message.includes(piece), `${message} does not show “${piece}”`);
    await page.fill('label:has-text("Target token") input', ' thyself');
    await page.waitForFunction(() => document.querySelector('.error').hidden);

    // The strongest head, from the package's terms: accepted; any other head: refused, naming the strongest.
    const [target] = tokenizer.encode(' thyself'), [baseline] = tokenizer.encode(' himself');
    const heads = model.directLogitAttribution(ids(), { target, baseline }).terms.filter((t) => t.part === 'head');
    const best = heads.reduce((a, t) => (t.value > a.value ? t : a));
    const other = heads.find((t) => t !== best);
    const exercise = page.locator('section.exercise');
    const guess = async ({ layer, head }) => {
      await exercise.locator('label:has-text("Layer") select').selectOption(String(layer));
      await exercise.locator('label:has-text("Head") select').selectOption(String(head));
      await exercise.locator('button', { hasText: 'Check' }).click();
      return exercise.locator('[role=status]').textContent();
    };
    assert.match(await guess(best), new RegExp(`^Right: ${best.label}`));
    assert.match(await guess(other), new RegExp(`^Not this one: ${other.label}.*${best.label}`));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
