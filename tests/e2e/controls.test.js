// Every control keeps its state and its keyboard focus (issue 41, item 4): each lesson's controls are
// driven with the keyboard (focused, then changed with keys), and after every change the focused element
// is still that control (the same element, not a rebuilt twin), and the control's value, the URL's query
// parameter and what the model read (a figure's caption, the page's readout) agree. Empty prompts say
// what the lesson reads instead. Waits are for states (a URL parameter, a text), never for time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { init } from '../../web/index.js';
import { openLesson, openSite, urlParam } from './lesson-page.js';

// Marks a control and focuses it: a control rebuilt by the change has no mark, so focusKept says no.
async function focusControl(locator) {
  await locator.evaluate((node) => { node.dataset.probe = 'kept'; });
  await locator.focus();
}
const focusKept = (page) => page.evaluate(() => document.activeElement?.dataset.probe === 'kept' && document.activeElement.isConnected);

// Resolves once the URL's parameter `key` differs from `from` (the page writes the URL after a change);
// → its new value.
async function urlChanged(page, key, from) {
  await page.waitForFunction(([k, v]) => new URLSearchParams(location.search).get(k) !== v, [key, from]);
  return urlParam(page, key);
}

// Every <attn-heatmap>'s caption (shadow roots searched too).
const captions = (page) => page.evaluate(() => {
  const all = [];
  const walk = (root) => root.querySelectorAll('*').forEach((n) => { if (n.tagName === 'ATTN-HEATMAP') all.push(String(n.caption)); if (n.shadowRoot) walk(n.shadowRoot); });
  walk(document);
  return all;
});
const captionMatching = async (page, pattern) => (await captions(page)).find((c) => pattern.test(c));

// Presses `key` on a focused control, waits for the URL's `param` to change; → the control's value and
// the URL's, after checking the focus stayed on it.
async function change(page, control, key, param) {
  await focusControl(control);
  const before = await urlParam(page, param);
  await page.keyboard.press(key);
  const url = await urlChanged(page, param, before);
  assert.ok(await focusKept(page), `the focus stays on the control after ${key} (changing ${param})`);
  return { value: await control.inputValue(), url };
}

// The control of the field labelled `label` (exactly: a field's accessible name also holds its hint and
// a select's options), and the hint under it.
const fieldOf = (page, label) => page.locator('label.field').filter({ has: page.locator('.field-label').getByText(label, { exact: true }) });
const control = (page, label) => fieldOf(page, label).locator('input, select, textarea').first();
const hintUnder = (page, label) => fieldOf(page, label).locator('.field-hint').textContent();

describe('controls keep their state and focus', () => {
  let site;
  let server;
  let browser;
  let model;
  let tokenizer;
  let lab;

  before(async () => {
    site = await openSite();
    ({ server, browser } = site);
    lab = await init({ simd: true });
    ({ model, tokenizer } = await lab.loadBuiltinModel());
  });

  after(async () => {
    await site?.close();
  });

  const lesson = (slug, query = '') => openLesson(browser, `${server.url}/lessons/${slug}.html${query}`);

  test('cross-attention: the French position slider, the head and the held-out sentence', async () => {
    const { page, problems } = await lesson('cross-attention');
    const step = await change(page, page.getByRole('slider', { name: 'French position' }), 'ArrowRight', 'step');
    assert.equal(step.value, step.url);
    assert.ok(await captionMatching(page, new RegExp(`the cross-attention row of French position ${Number(step.url)}$`)), 'the row shown is the step chosen');

    const head = await change(page, control(page, 'Cross-attention head (aligned: how often its largest weight is on the right English word, in held-out sentences)'), 'ArrowDown', 'head');
    const [layer, h] = head.value.split(':');
    assert.deepEqual([layer, h], [await urlParam(page, 'layer'), head.url]);
    assert.ok(await captionMatching(page, new RegExp(`^Layer ${layer}, head ${h}: cross-attention weights`)));

    const example = control(page, 'Held-out sentence');
    const held = await change(page, example, 'ArrowDown', 'example');
    assert.equal(held.value, held.url);
    const english = await example.evaluate((s) => s.selectedOptions[0].textContent);
    assert.match(await page.textContent('body'), new RegExp(`“${english}” → the model writes`), 'the gold check is of the sentence chosen');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('tokens: an example fills the box, the piece and the merges keep their focus', async () => {
    const { page, problems } = await lesson('tokens');
    const text = control(page, 'Text');
    const examples = control(page, 'Try');
    const first = await urlParam(page, 'text');
    await focusControl(examples);
    await page.keyboard.press('ArrowDown');  // the first example (the default text)
    await page.keyboard.press('ArrowDown');  // the second
    const chosen = await examples.inputValue();
    assert.notEqual(chosen, first);
    assert.equal(await urlChanged(page, 'text', first), chosen);
    assert.ok(await focusKept(page));
    assert.equal(await text.inputValue(), chosen, 'the box shows the example the URL and the model read');
    assert.match(await page.textContent('.explain'), new RegExp(`^${[...chosen].length} characters`));

    const piece = await change(page, control(page, 'Piece'), 'ArrowDown', 'piece');
    assert.equal(piece.value, piece.url);
    const chips = () => page.locator('ul[aria-label="The piece’s tokens at this step"] li').count();
    const merges = page.getByRole('slider', { name: 'Merges applied' });
    const before = { chips: await chips(), value: Number(await merges.inputValue()) };
    assert.ok(before.value > 0, 'this piece has merges to step back through');
    const merged = await change(page, merges, 'ArrowLeft', 'step');
    assert.equal(merged.value, merged.url);
    assert.equal(Number(merged.value), before.value - 1);
    assert.equal(await chips(), before.chips + 1, 'one merge undone: one token more');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the "it" sentence: its four selects', async () => {
    const { page, problems } = await lesson('it-sentence');
    for (const [label, param] of [['Frame', 'frame'], ['First noun', 'first'], ['Second noun', 'second'], ['Adjective', 'adjective']]) {
      const { value, url } = await change(page, control(page, label), 'ArrowDown', param);
      assert.equal(value, url, label);
      const shown = Object.fromEntries(await Promise.all(['frame', 'first', 'second', 'adjective'].map(async (p) => [p, await urlParam(page, p)])));
      const selects = {
        frame: await control(page, 'Frame').inputValue(), first: await control(page, 'First noun').inputValue(),
        second: await control(page, 'Second noun').inputValue(), adjective: await control(page, 'Adjective').inputValue(),
      };
      assert.deepEqual(selects, shown, `after ${label}: every select shows the URL's choice`);
      const sentence = await page.textContent('.feedback');
      for (const word of [shown.first, shown.second, shown.adjective]) assert.ok(sentence.includes(word), `the model reads “${word}”: ${sentence}`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  for (const [slug, pattern] of [['kv-cache', (l, h) => new RegExp(`^K cache, layer ${l}, head ${h}:`)],
    ['head-jobs', (l, h) => new RegExp(`^Layer ${l}, head ${h} on \\d+ random tokens`)]]) {
    test(`${slug}: the Layer and Head selects`, async () => {
      const { page, problems } = await lesson(slug);
      for (const [label, param] of [['Layer', 'layer'], ['Head', 'head']]) {
        const { value, url } = await change(page, control(page, label), 'ArrowDown', param);
        assert.equal(value, url, label);
        const [l, h] = [await control(page, 'Layer').inputValue(), await control(page, 'Head').inputValue()];
        assert.equal(await urlParam(page, 'layer'), l);
        assert.ok(await captionMatching(page, pattern(l, h)), `the figure shows layer ${l}, head ${h}`);
      }
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  test('next token: Draw again moves the seed box too; Append keeps box, URL and model one text, newline included', async () => {
    // A verse's end: the model's most likely next token is a line break (checked here in Node).
    const prompt = 'And God said, Let there be light: and there was light.';
    const greedy = (text) => {
      const p = lab.sample(model.forward(tokenizer.encode(text), { logits: 'last' }).logits.data, { temperature: 1 }).probabilities;
      return p.reduce((best, x, i) => (x > p[best] ? i : best), 0);
    };
    assert.equal(tokenizer.decode([greedy(prompt)]), '\n', 'the test\'s prompt: a line break comes next');
    const { page, problems } = await lesson('next-token', `?temperature=0&prompt=${encodeURIComponent(prompt)}`);
    const box = control(page, 'Prompt');

    const again = page.getByRole('button', { name: 'Draw again (next seed)' });
    await focusControl(again);
    await page.keyboard.press('Enter');
    assert.equal(await urlChanged(page, 'seed', '0'), '1');
    assert.ok(await focusKept(page));
    assert.equal(await control(page, 'Seed').inputValue(), '1', 'the seed box shows the seed drawn with');
    assert.match(await page.textContent('.readout'), /^Seed 1 draws/);

    const append = page.getByRole('button', { name: 'Append the drawn token to the prompt' });
    await focusControl(append);
    await page.keyboard.press('Enter');
    const url = await urlChanged(page, 'prompt', prompt);
    assert.ok(await focusKept(page));
    assert.equal(url, `${prompt}\n`);
    assert.equal(await box.inputValue(), url, 'the box shows the line break the URL holds');
    assert.match(await page.textContent('.explain'), new RegExp(`^${tokenizer.encode(url).length} prompt tokens`), 'the model reads the same text');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('next token: Append refuses past the 300 characters the box holds, so the link still reproduces the view', async () => {
    const prompt = 'And God said, Let there be light: and there was light. '.repeat(6).slice(0, 300);
    const { page, problems } = await lesson('next-token', `?prompt=${encodeURIComponent(prompt)}`);
    const append = page.getByRole('button', { name: 'Append the drawn token to the prompt' });
    assert.equal(await append.getAttribute('aria-disabled'), 'true');
    assert.match(await page.textContent('body'), /The prompt box holds 300 characters/);
    await focusControl(append);
    await page.keyboard.press('Enter');
    // Then another change the page does act on: once it shows, the Append before it was handled.
    await page.getByRole('button', { name: 'Draw again (next seed)' }).press('Enter');
    await urlChanged(page, 'seed', '0');
    assert.equal(await urlParam(page, 'prompt'), prompt);
    assert.equal(await control(page, 'Prompt').inputValue(), prompt);
    assert.deepEqual(problems, []);
    await page.close();
  });

  for (const [slug, label] of [['next-token', 'Prompt'], ['ablation', 'Prompt'], ['all-heads', 'Prompt'],
    ['head-jobs', 'Prompt (for previous-token and first-token)'], ['kv-cache', 'Prompt']]) {
    test(`${slug}: an empty prompt says what the model reads instead`, async () => {
      const { page, problems } = await lesson(slug, '?prompt=');
      assert.equal(await control(page, label).inputValue(), '');
      assert.match(await hintUnder(page, label), /^No text in the box: the model reads “[^”]+” instead\.$/);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  test('exercises: New numbers keeps its focus', async () => {
    const { page, problems } = await lesson('exercises');
    const button = page.getByRole('button', { name: 'New numbers' });
    await focusControl(button);
    const before = await urlParam(page, 'seed');
    await page.keyboard.press('Enter');
    const seed = await urlChanged(page, 'seed', before);
    assert.ok(await focusKept(page));
    assert.match(await page.textContent('body'), new RegExp(`Numbers from seed ${seed} \\(`));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('step by step: an edited cell, then Tab, leaves the focus in the next cell', async () => {
    const { page, problems } = await lesson('step-by-step');
    const first = page.getByLabel(/^X row 0 .* column 0$/);
    await first.fill('0.5');
    await page.keyboard.press('Tab');
    assert.match(await urlChanged(page, 'edits', ''), /^X\.0\.0=0\.5$/);
    assert.match(await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? ''), /^X row 0 .* column 1$/,
      'the focus is in the next cell');
    assert.equal(Number(await first.inputValue()), 0.5);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('scaling: dragging the custom divisor shows "custom" in the Scale select', async () => {
    const { page, problems } = await lesson('scaling');
    const { value, url } = await change(page, page.getByRole('slider', { name: /^Custom divisor/ }), 'ArrowRight', 'custom');
    assert.equal(value, url);
    assert.equal(await urlParam(page, 'scale'), 'custom');
    assert.equal(await control(page, 'Scale').inputValue(), 'custom');
    assert.match(await page.textContent('.explain'), new RegExp(`scale 1/${url}:`));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
