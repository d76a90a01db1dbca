// The teaching site in headless Chromium: every lesson loads without console errors and passes axe,
// its numbers are the package's numbers, and the interactions the lessons promise work. Screenshots
// of every lesson (desktop and 390 px phone width) go to test-output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { init } from '../../web/index.js';
import { checkLessonLayout, heatmapData, openLesson, openSite, SCREENSHOTS } from './lesson-page.js';

const shots = SCREENSHOTS;
// The mechanism lessons (the trained-model lessons: trained-lessons.test.js).
const LESSONS = ['why-attention', 'step-by-step', 'scaling', 'self-attention', 'multi-head', 'cross-attention',
  'masking', 'positions', 'encoder', 'watch-it-learn', 'exercises'];
const TRAINED_LESSONS = ['tokens', 'next-token', 'kv-cache', 'all-heads', 'head-jobs', 'ablation', 'it-sentence', 'your-model'];

const open = openLesson;

// A heatmap's matrix as the page holds it, found by its caption (searching shadow roots too).

describe('the site', () => {
  let site;
  let server;
  let browser;
  let lab;

  before(async () => {
    site = await openSite();
    ({ server, browser } = site);
    lab = await init({ simd: true });
  });

  after(async () => {
    await site?.close();
  });

  test('the home page lists every lesson', async () => {
    const { page, problems } = await open(browser, `${server.url}/index.html`);
    const links = await page.$$eval('main a', (as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(links, [...LESSONS, ...TRAINED_LESSONS].map((l) => `./lessons/${l}.html`));
    await page.screenshot({ path: `${shots}home.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  for (const lesson of LESSONS) {
    test(`lesson ${lesson}: loads, no console error, no serious axe violation, fits a phone`, async () => {
      const { page, problems, wasm } = await open(browser, `${server.url}/lessons/${lesson}.html`);
      // The main module (Chromium has SIMD); the training module only where a lesson trains, the GPT
      // module (which holds the trained "it" model) only where lesson 1 shows that model's head.
      assert.deepEqual(wasm.map((name) => name.replace(/-[\w-]{8}\.wasm$/, '.wasm')),
        { 'watch-it-learn': ['attnlab-simd.wasm', 'attnlab-train-simd.wasm'],
          'why-attention': ['attnlab-simd.wasm', 'attnlab-gpt-simd.wasm'] }[lesson] ?? ['attnlab-simd.wasm']);
      const defined = await page.evaluate(() => ['attn-heatmap', 'attn-stepper', 'pe-plot'].every((t) => customElements.get(t)));
      assert.ok(defined, 'the components are registered');
      await checkLessonLayout(browser, { page, problems }, `${server.url}/lessons/${lesson}.html`, `${shots}${lesson}`);
    });
  }

  test('self-attention: the heatmap holds what the package computes, and labels follow the sentence', async () => {
    const sentence = 'the cat sat on the mat';
    const { page, problems } = await open(browser, `${server.url}/lessons/self-attention.html?sentence=${encodeURIComponent(sentence)}&seed=4`);
    const shown = await heatmapData(page, 'Attention weights');
    const tokens = lab.tokenize(sentence);
    const mha = new lab.MultiHeadAttention({ dModel: 16, numHeads: 1, seed: 4 });
    const expected = mha.forward(lab.embedTokens(tokens, 16, { seed: 4 })).weights[0];
    mha.dispose();
    assert.deepEqual(shown.data, Array.from(expected.data));
    assert.deepEqual(shown.rowLabels, tokens);
    await page.fill('input[type="text"]', 'a dog ran home');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('sentence') === 'a dog ran home');
    assert.deepEqual((await heatmapData(page, 'Attention weights')).rowLabels, ['a', 'dog', 'ran', 'home']);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('step by step: Next/Prev and ←/→ walk the trace; editing Q changes everything after it', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/step-by-step.html`);
    const status = () => page.evaluate(() => document.querySelector('attn-stepper').index);
    assert.equal(await status(), 0);
    const next = page.locator('attn-stepper').getByRole('button', { name: /next/i });
    await next.click();
    await next.click();
    assert.equal(await status(), 2);  // the Q step
    await page.waitForFunction(() => new URLSearchParams(location.search).get('step') === '2');
    await page.locator('attn-stepper').getByRole('button', { name: /prev/i }).click();
    assert.equal(await status(), 1);
    await page.locator('attn-stepper').getByRole('button', { name: /next/i }).click();
    const scoresBefore = await page.evaluate(() => document.querySelector('attn-stepper').steps.find((s) => s.id === 'scores').tensors.scores.data[0]);
    const q00 = page.getByLabel('Q row 0 (the) column 0', { exact: true });
    await q00.fill('5');
    await q00.dispatchEvent('change');
    const scoresAfter = await page.evaluate(() => document.querySelector('attn-stepper').steps.find((s) => s.id === 'scores').tensors.scores.data[0]);
    assert.notEqual(scoresAfter, scoresBefore);
    const qShown = await page.evaluate(() => document.querySelector('attn-stepper').steps.find((s) => s.id === 'q').tensors.Q.data[0]);
    assert.equal(qShown, 5);
    // On the scores step, pointing at a score cell explains it as a sum of products.
    const scoresIndex = await page.evaluate(() => document.querySelector('attn-stepper').steps.findIndex((s) => s.id === 'scores'));
    while (await status() < scoresIndex) await next.click();
    await page.locator('attn-stepper attn-heatmap').last().locator('svg').first().hover();
    await page.waitForFunction(() => document.querySelector('.explain')?.textContent.startsWith('score['));
    assert.match(await page.textContent('.explain'), /^score\[\d+\]\[\d+\] = q_\d+·k_\d+ .* = −?\d+\.\d{4}$/);
    await page.locator('attn-stepper').getByRole('button', { name: /prev/i }).click();
    while (await status() > 2) await page.locator('attn-stepper').getByRole('button', { name: /prev/i }).click();
    // Keyboard: focus the stepper's Next button and use the arrow keys.
    await next.focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await status(), 3);
    await page.keyboard.press('ArrowLeft');
    assert.equal(await status(), 2);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('masking: the causal option makes the upper triangle exactly zero', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/masking.html?mask=causal`);
    const w = await heatmapData(page, 'Attention weights');
    for (let i = 0; i < w.rows; i++) for (let j = i + 1; j < w.cols; j++) assert.equal(w.data[i * w.cols + j], 0, `(${i}, ${j})`);
    await page.selectOption('select', 'none');
    const open_ = await heatmapData(page, 'Attention weights');
    assert.ok(open_.data[1] > 0, 'without a mask the first row sees the second key');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('learner text is text: a sentence with markup runs nothing', async () => {
    const hostile = '<img src=x onerror=alert(1)> the cat';
    const { page, problems } = await open(browser, `${server.url}/lessons/self-attention.html?sentence=${encodeURIComponent(hostile)}`);
    const images = await page.evaluate(() => document.querySelectorAll('img').length);
    assert.equal(images, 0);
    const chips = await page.$$eval('.tokens li', (lis) => lis.map((li) => li.textContent));
    assert.deepEqual(chips, lab.tokenize(hostile));
    assert.equal(await page.inputValue('input[type="text"]'), hostile);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('hostile URL values are clamped or rejected with a visible message', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/multi-head.html?heads=99&dModel=abc&seed=-5&mask=evil`);
    const notices = await page.$$eval('.notice', (ns) => ns.map((n) => n.textContent));
    assert.equal(notices.length, 4, notices.join(' | '));
    await page.waitForFunction(() => new URLSearchParams(location.search).get('heads') === '4');
    const params = new URL(page.url()).searchParams;
    assert.deepEqual([params.get('heads'), params.get('dModel'), params.get('seed'), params.get('mask')], ['4', '32', '0', 'none']);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('multi-head: an indivisible d_model explains the rule instead of failing', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/multi-head.html?dModel=12&heads=8`);
    const error = await page.textContent('.error');
    assert.match(error, /d_model = 12 is not divisible by num_heads = 8/);
    assert.match(await page.textContent('.shapes'), /cannot be split into 8 equal heads/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
