// The teaching site in headless Chromium: every lesson loads without console errors and passes axe,
// its numbers are the package's numbers, and the interactions the lessons promise work. Screenshots
// of every lesson (desktop and 390 px phone width) go to test-output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { LESSONS as ALL_LESSONS } from '../../site/src/lessons.js';
import { init } from '../../web/index.js';
import { axeViolations, checkLessonLayout, heatmapData, openLesson, openSite, SCREENSHOTS } from './lesson-page.js';

const shots = SCREENSHOTS;
// The mechanism lessons (the trained-model lessons: trained-lessons.test.js).
const LESSONS = ['why-attention', 'step-by-step', 'scaling', 'self-attention', 'multi-head', 'shapes', 'cross-attention',
  'masking', 'positions', 'encoder', 'watch-it-learn', 'exercises'];
const TRAINED_LESSONS = ['tokens', 'next-token', 'kv-cache', 'all-heads', 'head-jobs', 'ablation', 'it-sentence', 'your-model'];
// Part three, why the model says what it says (each page's own browser tests: attribution-lesson.test.js, …).
const WHY_LESSONS = ['logit-lens', 'attribution', 'patching', 'induction-circuit', 'induction-forming'];
// Part four, attention in today's models (each page's own browser tests: shared-kv-lesson.test.js, …), in the
// order lessons.js gives as its lessons arrive.
const MODERN_LESSONS = ALL_LESSONS.filter((l) => l.part === 'modern').map((l) => l.slug);

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

  test('the home page: one first click, every lesson, live figures when in view, progress kept locally', async () => {
    // 700 px tall: part 1's figure is in view (with the 200 px margin), part 2's far below it.
    const context = await browser.newContext({ viewport: { width: 1200, height: 700 } });
    const page = await context.newPage();
    const problems = [];
    const fetched = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
    page.on('request', (r) => fetched.push(new URL(r.url()).pathname.split('/').pop()));
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    const start = page.locator('a.start');
    assert.equal(await start.textContent(), 'Start with lesson 1: Why attention →');
    const links = await page.$$eval('.lesson-list a', (as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(links, [...LESSONS, ...TRAINED_LESSONS, ...WHY_LESSONS, ...MODERN_LESSONS].map((l) => `./lessons/${l}.html`));
    assert.deepEqual(await page.$$eval('.part h2', (hs) => hs.map((h) => h.textContent)),
      ['Part 1: The mechanism', 'Part 2: Inside a trained model', 'Part 3: Why the model says what it says', 'Part 4: Attention in today’s models']);
    // Part 1's figure is in view: computed by the package. Part 2's model is fetched only once scrolled to.
    await page.waitForSelector('.part-mechanism attn-heatmap');
    const weights = await heatmapData(page, 'Self-attention weights');
    for (let i = 0; i < weights.rows; i++) {
      const row = weights.data.slice(i * weights.cols, (i + 1) * weights.cols).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(row - 1) < 1e-5, `row ${i} sums to ${row}`);
    }
    assert.ok(!fetched.some((f) => f.endsWith('.safetensors')), 'the model is not fetched before its figure is in view');
    assert.ok(!fetched.some((f) => f.startsWith('katex') || f.startsWith('typeset')), 'the home page loads no KaTeX');
    await page.screenshot({ path: `${shots}home.png`, fullPage: true });
    await page.locator('.part-trained .preview').scrollIntoViewIfNeeded();
    await page.waitForSelector('.part-trained .bars li');
    const next = await page.$$eval('.part-trained .bar-label', (ls) => ls.map((l) => l.textContent));
    assert.equal(next[0], '·thyself', `“Thou shalt love thy neighbour as thyself”, seven times in the Bible: ${next.join(' ')}`);
    // Part four's figure: attnlab-kjv-llama's first-layer patterns on the same prompt, one per query head, each
    // framed in the colour of the key/value head it reads; the package's numbers.
    await page.locator('.part-modern .preview').scrollIntoViewIfNeeded();
    await page.waitForSelector('.part-modern attn-heatmap');
    const llama = await lab.loadBuiltinLlama();
    const { numHeads, numKeyValueHeads } = llama.model.config;
    const ids = Array.from(llama.tokenizer.encode('Thou shalt love thy neighbour as'));
    const pattern = llama.model.runWithCache(ids, { names: ['blocks.0.attn.hook_pattern'] }).cache.get('blocks.0.attn.hook_pattern').data;
    const t = ids.length;
    for (let h = 0; h < numHeads; h++) {
      const g = Math.floor(h / (numHeads / numKeyValueHeads));
      const shown = await heatmapData(page, `Query head ${h}, reading key/value head ${g}`);
      assert.ok(shown, `part four's figure has no heatmap for query head ${h}`);
      assert.ok(shown.data.every((x, i) => Math.abs(x - pattern[h * t * t + i]) <= 1e-6), `query head ${h}'s pattern is the package's`);
    }
    assert.deepEqual(await page.$$eval('.part-modern .head-panel', (ps) => ps.map((p) => [...p.classList].find((c) => /^kv-group-\d$/.test(c)))),
      Array.from({ length: numHeads }, (_, h) => `kv-group-${Math.floor(h / (numHeads / numKeyValueHeads)) % 4}`));
    // Progress: open lesson 1, come back — it is ticked and the first click continues with lesson 2.
    await start.click();
    await page.waitForFunction(() => document.body.dataset.ready === 'true' && location.pathname.endsWith('why-attention.html'));
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    assert.equal(await page.locator('a.start').textContent(), 'Continue with lesson 2: Scaled dot-product attention, step by step →');
    assert.equal(await page.locator('.lesson-list li.opened').count(), 1);
    assert.match(await page.textContent('.progress'), new RegExp(`opened 1 of ${ALL_LESSONS.length} lessons`));
    await page.getByRole('button', { name: 'Forget my progress' }).click();
    assert.equal(await page.locator('.lesson-list li.opened').count(), 0);
    assert.deepEqual(await axeViolations(page), []);
    await page.setViewportSize({ width: 390, height: 844 });
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll at 390 px');
    await page.screenshot({ path: `${shots}home-390px.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  });

  for (const lesson of LESSONS) {
    test(`lesson ${lesson}: loads, no console error, no serious axe violation, fits a phone`, async () => {
      const { page, problems, wasm } = await open(browser, `${server.url}/lessons/${lesson}.html`);
      // The main module, threaded (the page is cross-origin isolated and Chromium has SIMD); the
      // training module only where a lesson trains; lesson 1 the referent module (the trained "it"
      // model) alone, no main module; the encoder–decoder module only in the cross-attention lesson
      // (the trained translator). (Sorted: a lesson's own module is asked for beside the main one,
      // so either may come first.)
      assert.deepEqual(wasm.map((name) => name.replace(/-[\w-]{8}\.wasm$/, '.wasm')).sort(),
        { 'watch-it-learn': ['attnlab-simd-mt.wasm', 'attnlab-train-simd.wasm'],
          'why-attention': ['attnlab-referent-simd.wasm'],
          'cross-attention': ['attnlab-seq2seq-simd.wasm', 'attnlab-simd-mt.wasm'] }[lesson] ?? ['attnlab-simd-mt.wasm']);
      const defined = await page.evaluate(() => ['attn-heatmap', 'attn-stepper', 'pe-plot'].every((t) => customElements.get(t)));
      assert.ok(defined, 'the components are registered');
      await checkLessonLayout(browser, { page, problems }, `${server.url}/lessons/${lesson}.html`, `${shots}${lesson}`);
    });
  }

  test('the cross-attention lesson asks for its model\'s module and weights while the main module is still on its way', async () => {
    // The main (threaded) module's .wasm is held back for a second: the encoder–decoder module's .wasm and
    // the model's weights must be requested before it arrives (prefetch, and the HTML's preloads), not
    // after the main module loads. (Lesson 1 fetches no main module at all: first-view.test.js.)
    const page = await browser.newPage();
    const requested = [];
    let mainDelivered = null;
    page.on('request', (r) => requested.push([new URL(r.url()).pathname.split('/').pop(), Date.now()]));
    await page.route(/attnlab-simd-mt-[\w-]+\.wasm$/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      mainDelivered = Date.now();
      await route.continue();
    });
    await page.goto(`${server.url}/lessons/cross-attention.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
    const at = (pattern) => requested.find(([name]) => pattern.test(name))?.[1];
    assert.ok(mainDelivered, 'the main module was requested');
    assert.ok(at(/^attnlab-seq2seq-simd-.*\.wasm$/) < mainDelivered, 'the translator\'s module was asked for before the main module arrived');
    assert.ok(at(/^model-.*\.safetensors$/) < mainDelivered, 'the weights were asked for before the main module arrived');
    assert.equal(requested.filter(([name]) => /^attnlab-seq2seq-simd-.*\.wasm$/.test(name)).length, 1, 'fetched once');
    await page.close();
  });

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

  test('shapes: every step\'s shape, the padding mask, the weights the package computes for the batch item and head picked, the exercise', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/shapes.html?first=the+cat+sat+down&second=dogs+bark&seed=3`);
    const steps = await page.locator('.shape-steps li code').allTextContents();
    assert.deepEqual(steps, ['(2, 4, 8)', '(2, 4, 24)', '(2, 4, 3, 2, 4)', '(3, 2, 2, 4, 4)', '(2, 2, 4, 4)', '(2, 2, 4, 4)',
      '(2, 2, 4, 4)', '(2, 2, 4, 4)', '(2, 4, 2, 4)', '(2, 4, 8)', '(2, 4, 8)']);
    assert.match(await page.getByText('key_padding_mask (2, 4) =').textContent(), /= \[\[0, 0, 0, 0\], \[0, 0, 1, 1\]\]/);
    // The layer in one call, computed here in Node: sentence 2 (batch item 1), head 0.
    const padded = [['the', 'cat', 'sat', 'down'], ['dogs', 'bark', '<pad>', '<pad>']];
    const rows = padded.map((t) => lab.embedTokens(t, 8, { seed: 3 }));
    const x = lab.tensor([2, 4, 8], [...rows[0].data, ...rows[1].data]);
    const mha = new lab.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 3 });
    const { weights } = mha.forward(x, x, x, { causal: true, keyPaddingMask: lab.tensor([2, 4], [0, 0, 0, 0, 0, 0, 1, 1]) });
    mha.dispose();
    const shown = () => page.evaluate(() => {
      const map = [...document.querySelectorAll('attn-heatmap')].find((h) => h.caption === 'weights');
      return { shape: map.matrix.shape, data: Array.from(map.matrix.data), batch: map.batch, head: map.head, rowLabels: map.rowLabels,
        caption: map.shadowRoot.querySelector('figcaption').textContent };
    });
    const first = await shown();
    assert.deepEqual(first.shape, [2, 2, 4, 4]);
    assert.deepEqual(first.data, Array.from(weights.data), 'the weights tensor is the package\'s');
    assert.deepEqual([first.batch, first.head, first.caption], [1, 0, 'weights — batch 1, head 0 of (2, 2, 4, 4)']);
    assert.deepEqual(first.rowLabels, padded[1]);
    // Sentence 1's (batch item 1's) padded keys get weight 0 from every query of head 0.
    const slice = first.data.slice(32, 48);
    assert.deepEqual([0, 1, 2, 3].flatMap((q) => [slice[q * 4 + 2], slice[q * 4 + 3]]), new Array(8).fill(0));
    assert.match(await page.getByText('Check: the layer in one call').textContent(), /equal to these step-by-step ones, number for number/);
    // Head 3 does not exist with 2 heads: the page draws head 1 and says so beside the control.
    await page.locator('label.field').filter({ has: page.locator('.field-label', { hasText: /^Head$/ }) }).locator('select').selectOption('3');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('head') === '3');
    assert.equal(await page.locator('.field-hint.notice-inline').filter({ hasText: 'no head 3' }).textContent(), 'With 2 heads there is no head 3: showing head 1.');
    assert.equal((await shown()).head, 1);
    const exercise = await page.getByText('x = randn(2, 10, 512) through 8 heads').textContent();
    assert.match(exercise, /output \(2, 10, 512\), weights \(2, 8, 10, 10\)/);
    const difference = Number(/largest difference is ([\d.e+-]+)/.exec(exercise)[1]);
    assert.ok(difference <= 1e-6, exercise);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a sentence the lesson cannot use as typed is said under its box: empty, too many tokens, too long to hold', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/step-by-step.html`);
    const box = page.getByLabel('Sentence (up to 10 tokens)');
    const hint = box.locator('xpath=..').locator('.field-hint');
    await box.fill('   ');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('sentence') === '   ');
    assert.equal(await hint.textContent(), 'No words in the box: the lesson shows “the cat sat on the mat” instead.');
    assert.ok(await hint.isVisible());
    const fifteen = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen';
    await box.fill(fifteen);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('sentence')?.endsWith('fifteen'));
    assert.equal(await hint.textContent(), 'The lesson uses the first 10 of these 15 tokens.');
    await box.fill('the cat sat');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('sentence') === 'the cat sat');
    assert.ok(await hint.isHidden(), 'nothing to say: no note');
    // A paste longer than the box holds (200 characters) is cut, and the box says by how much.
    const self = await open(browser, `${server.url}/lessons/self-attention.html`);
    const long = 'word '.repeat(50);  // 250 characters
    const selfBox = self.page.getByLabel('Your sentence (up to 32 tokens)');
    await selfBox.fill(long);
    assert.equal((await selfBox.inputValue()).length, 200);
    assert.match(await selfBox.locator('xpath=..').locator('.field-hint').textContent(),
      /^The box holds 200 characters: the last 50 were left out\. The lesson uses the first 32 of these 40 tokens\.$/);
    assert.deepEqual([...problems, ...self.problems], []);
    await page.close();
    await self.page.close();
  });

  test('multi-head: the trained model\'s heads beside the random ones, its numbers the package\'s', async () => {
    const sentence = 'In the beginning God created the heaven and the earth.';
    const { page, problems } = await open(browser, `${server.url}/lessons/multi-head.html?sentence=${encodeURIComponent(sentence)}`);
    assert.equal(await heatmapData(page, 'Trained: layer 0, head 0'), null, 'the 5 MB model waits to be asked for');
    await page.getByRole('button', { name: /Load attnlab’s trained model/ }).click();
    await page.waitForFunction(() => document.querySelector('.trained-heads attn-heatmap')?.matrix);
    const { model, tokenizer } = await lab.loadBuiltinModel();
    const ids = tokenizer.encode(sentence);
    const { attention } = model.forward(ids, { attention: true, logits: 'none' });
    const { numHeads } = model.config;
    for (const layer of [0, 2]) {
      if (layer > 0) {
        await page.getByLabel('Layer of the trained model').selectOption(String(layer));
        await page.waitForFunction((l) => new URLSearchParams(location.search).get('layer') === String(l), layer);
      }
      for (let h = 0; h < numHeads; h++) {
        const shown = await heatmapData(page, `Trained: layer ${layer}, head ${h}`);
        assert.deepEqual(shown.data, Array.from(attention[layer][h].data), `layer ${layer}, head ${h}`);
        assert.equal(shown.rowLabels.length, ids.length);
      }
    }
    assert.match(await page.textContent('.trained-heads'), /its largest weight is on the previous token in \d+% of rows/);
    model.dispose();
    tokenizer.dispose();
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('masking: 0 real tokens is honoured (weights 0, not NaN); a value the page cannot use is changed and said beside the box', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/masking.html?mask=padding`);
    const box = page.getByLabel('Real tokens (padding mask)');
    await box.fill('0');
    await box.dispatchEvent('change');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('valid') === '0');
    assert.match(await page.textContent('main'), /Every key is padding: .* every weight (is )?exactly 0\.0/);
    const weights = await page.evaluate(() => Array.from(document.querySelectorAll('attn-heatmap')[1].matrix.data));
    assert.ok(weights.every((w) => w === 0), 'every weight 0');
    // The mask is printed as the 0s and 1s it is, not 0.00 and 1.00.
    const maskTexts = await page.evaluate(() => [...document.querySelectorAll('attn-heatmap')[0].shadowRoot.querySelectorAll('.values text')]
      .map((t) => t.textContent));
    assert.ok(maskTexts.length > 0 && maskTexts.every((t) => t === '0' || t === '1'), maskTexts.join(' '));
    await box.fill('40');
    await box.dispatchEvent('change');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('valid') === '32');
    assert.match(await page.textContent('.notice-inline'), /“40” is not a whole number from 0 to 32: using 32\./);
    assert.equal(await box.inputValue(), '32');
    await box.fill('20');
    await box.dispatchEvent('change');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('valid') === '20');
    assert.match(await page.textContent('.notice-inline'), /The sentence has (\d+) tokens, so all \1 are real \(you asked for 20\)\./);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('exercises: "New numbers" moves to the next seed, in the URL, and the questions get that seed\'s numbers', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/exercises.html?seed=3`);
    const first = await page.evaluate(() => Array.from(document.querySelector('attn-heatmap')?.matrix?.data ?? []));
    await page.getByRole('button', { name: 'New numbers' }).click();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('seed') === '4');
    assert.match(await page.textContent('main'), /Numbers from seed 4/);
    const second = await page.evaluate(() => Array.from(document.querySelector('attn-heatmap')?.matrix?.data ?? []));
    assert.ok(second.length > 0 && second.some((v, i) => v !== first[i]), 'other numbers');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('step by step: ← → walk the steps from the page, as the intro says, but not while typing', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/step-by-step.html`);
    const status = () => page.evaluate(() => document.querySelector('attn-stepper').index);
    await page.locator('main p').first().click();  // focus on the page itself, not the stepper
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal(await status(), 2);
    await page.keyboard.press('ArrowLeft');
    assert.equal(await status(), 1);
    await page.getByLabel(/^Sentence/).focus();
    await page.keyboard.press('ArrowRight');  // moves the caret, not the steps
    assert.equal(await status(), 1);
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
    assert.match(await page.textContent('.explain'), /^score\[\d+\]\[\d+\] = q_\d+·k_\d+ .* = −?\d+\.\d{4}\. \(q and k are shown rounded to 2 decimals; /);
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
    await page.locator('label.field', { hasText: 'Mask' }).locator('select').selectOption('none');
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

  test('multi-head: an indivisible d_model is one message, and no figure of the previous setting stays', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/multi-head.html`);
    await page.waitForFunction(() => document.querySelectorAll('attn-heatmap').length === 5);  // 4 heads + the average
    await page.getByLabel('d_model').selectOption('12');
    await page.getByLabel('num_heads').selectOption('8');
    const error = await page.textContent('.error');
    assert.equal(error, 'd_model = 12 cannot be split into 8 equal heads: 12 / 8 = 1.5 is not a whole number. ' +
      'Pick a num_heads that divides 12: 1, 2, 3, 4 or 6.');
    await page.getByLabel('d_model').selectOption('32');
    await page.getByLabel('num_heads').selectOption('3');
    assert.match(await page.textContent('.error'), /32 \/ 3 = 10\.67 is not a whole number/, 'no 10.666666666666666');
    // The PyTorch snippet follows the controls: after a refused setting it says it is the last one that ran.
    assert.equal(await page.locator('.code-stale:visible').count(), 2, 'both snippets, PyTorch and attnlab, follow the controls');
    assert.match(await page.locator('.code-stale:visible').first().textContent(), /Not your current setting/);
    await page.getByLabel('d_model').selectOption('12');
    await page.getByLabel('num_heads').selectOption('8');
    // One message on the page (not a second copy of it), and nothing drawn for d_model 32 remains visible.
    const visible = await page.evaluate(() => [...document.querySelectorAll('attn-heatmap, .shapes')].filter((e) => e.checkVisibility()).length);
    assert.equal(visible, 0);
    assert.equal(await page.locator('text=/not a whole number/').count(), 1);
    assert.ok(await page.getByLabel('num_heads').isVisible(), 'the controls stay, to fix the setting');
    await page.getByLabel('num_heads').selectOption('4');
    assert.equal(await page.locator('.error').isVisible(), false);
    assert.equal(await page.locator('.code-stale:visible').count(), 0, 'the snippet matches the controls again');
    assert.match(await page.textContent('.code'), /d_model = 12  # page setting: dModel\nnum_heads = 4  # page setting: heads/);
    assert.equal(await page.evaluate(() => [...document.querySelectorAll('attn-heatmap')].filter((e) => e.checkVisibility()).length), 5);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('step by step: a refused number, the mask toggle and edits in the URL', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/step-by-step.html?step=2`);
    const stepper = () => page.evaluate(() => { const s = document.querySelector('attn-stepper'); return { index: s.index, id: s.steps[s.index].id }; });
    const x = page.getByLabel('Q row 0 (the) column 0', { exact: true });
    // A number float32 cannot hold is refused where it was typed: the cell is marked, one message beside
    // the grid says which number is still used, and the stepper stays usable with the accepted numbers.
    const before = await page.evaluate(() => document.querySelector('attn-stepper').steps.find((s) => s.id === 'q').tensors.Q.data[0]);
    await x.fill('1e39');
    await x.dispatchEvent('change');
    assert.match(await page.textContent('.matrix-editor .cell-error'), /too large for float32 \(at most ±3\.4e38\): the steps still use −?\d+\.\d\d until/);
    assert.equal(await page.locator('text=/too large for float32/').count(), 1);
    assert.equal(await x.getAttribute('aria-invalid'), 'true', 'the cell is marked where it is');
    assert.ok(await page.locator('attn-stepper').isVisible(), 'the stepper stays');
    await page.locator('attn-stepper').getByRole('button', { name: /next/i }).click();
    assert.equal(await page.evaluate(() => document.querySelector('attn-stepper').index), 3, 'and still walks the steps');
    await page.locator('attn-stepper').getByRole('button', { name: /prev/i }).click();
    assert.equal(await page.evaluate(() => document.querySelector('attn-stepper').steps.find((s) => s.id === 'q').tensors.Q.data[0]), before);
    // An accepted edit clears the mark, goes into the URL, and the link reproduces it.
    await x.fill('2.5');
    await x.dispatchEvent('change');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('edits') === 'Q.0.0=2.5');
    assert.equal(await page.getByLabel('Q row 0 (the) column 0', { exact: true }).getAttribute('aria-invalid'), null);
    const link = page.url();
    // Turning the causal mask on adds a step before the softmax; the step on screen stays the Q step.
    const nextButton = page.locator('attn-stepper').getByRole('button', { name: /next/i });
    for (let i = 0; i < 6; i++) await nextButton.click();
    const shown = await stepper();
    await page.locator('label.field', { hasText: 'Mask' }).locator('select').selectOption('causal');
    assert.equal((await stepper()).id, shown.id);
    await page.locator('label.field', { hasText: 'Mask' }).locator('select').selectOption('none');
    assert.equal((await stepper()).id, shown.id);
    const again = await open(browser, link);
    assert.equal(await again.page.evaluate(() => document.querySelector('attn-stepper').steps.find((s) => s.id === 'q').tensors.Q.data[0]), 2.5);
    assert.equal(await again.page.inputValue('input[aria-label="Q row 0 (the) column 0"]'), '2.50');
    assert.deepEqual([...problems, ...again.problems], []);
    await again.page.close();
    await page.close();
  });

  test('step by step: a 0/1 mask prints as 0 and 1, and the formulas name no bias the layer lacks', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/step-by-step.html?mask=causal`);
    const steps = await page.evaluate(() => document.querySelector('attn-stepper').steps.map((s) => ({ id: s.id, explanation: s.explanation })));
    for (const { id, explanation } of steps) assert.doesNotMatch(explanation, /b_[qkvo]/, id);
    const maskIndex = steps.findIndex((s) => s.id === 'masked_scores');
    const next = page.locator('attn-stepper').getByRole('button', { name: /next/i });
    for (let i = 0; i < maskIndex; i++) await next.click();
    const maskMap = page.locator('attn-stepper attn-heatmap').first();
    const texts = await maskMap.evaluate((h) => [...h.shadowRoot.querySelectorAll('text')].map((t) => t.textContent));
    assert.ok(texts.includes('0') && texts.includes('1'), texts.join(' '));
    assert.ok(!texts.includes('1.00') && !texts.includes('0.00'), texts.join(' '));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('scaling: the table is an average over many draws and agrees with the theory', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/scaling.html`);
    const rows = await page.$$eval('table.data tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.equal(rows.length, 5);
    assert.match(await page.textContent('.lesson-body'), /200 independent draws/);
    const meanOf = (text) => Number(text.split('±')[0].replace('−', '-'));
    for (const [dk, rawSpread, rawWeight, scaledSpread, scaledWeight] of rows) {
      // Var(q·k) = d_k for N(0, 1) entries: the spread is √d_k unscaled, 1 scaled (200 draws × 5 keys: within 10%).
      assert.ok(Math.abs(Number(rawSpread) / Math.sqrt(Number(dk)) - 1) < 0.1, `d_k ${dk}: spread ${rawSpread}`);
      assert.ok(Math.abs(Number(scaledSpread) - 1) < 0.1, `d_k ${dk}: scaled spread ${scaledSpread}`);
      // Scaled, the expected largest of 5 weights is the same for every d_k (about 0.5 for N(0, 1) scores).
      assert.ok(meanOf(scaledWeight) > 0.4 && meanOf(scaledWeight) < 0.6, `d_k ${dk}: ${scaledWeight}`);
      assert.match(rawWeight, /^\d\.\d+ ± \d\.\d+$/);
    }
    assert.ok(meanOf(rows[4][2]) > 0.9, `unscaled at d_k 1024: ${rows[4][2]}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('line charts: 12 px text on a 390 px phone, labelled axes, loss and accuracy on separate axes', async () => {
    for (const slug of ['scaling', 'positions', 'watch-it-learn', 'head-jobs']) {
      const { page, problems } = await open(browser, `${server.url}/lessons/${slug}.html`, { width: 390, height: 844 });
      if (slug === 'watch-it-learn') await page.waitForSelector('svg.line-chart');
      const charts = await page.$$eval('svg.line-chart', (svgs) => svgs.map((svg) => {
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        const px = Number.parseFloat(getComputedStyle(svg).fontSize) * scale;
        const box = svg.getBoundingClientRect();
        const outside = [...svg.querySelectorAll('text')].filter((t) => {
          const r = t.getBoundingClientRect();
          return r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1;
        }).map((t) => t.textContent);
        return { px, outside, texts: [...svg.querySelectorAll('text')].map((t) => t.textContent), label: svg.getAttribute('aria-label') };
      }));
      assert.ok(charts.length > 0, slug);
      for (const chart of charts) {
        assert.ok(chart.px >= 11.5, `${slug}: “${chart.label}” text is ${chart.px.toFixed(1)} px`);
        assert.deepEqual(chart.outside, [], `${slug}: “${chart.label}”: text cut off at the chart's edge`);
        assert.ok(chart.texts.some((t) => /\(.+\)/.test(t)), `${slug}: an axis label with its unit: ${chart.texts.join(' | ')}`);
      }
      if (slug === 'watch-it-learn') {
        assert.ok(charts[0].texts.includes('loss (nats)') && charts[0].texts.includes('accuracy (0–1)'), charts[0].texts.join(' | '));
      }
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  test('touch targets at 390 px are at least 24 × 24 px: the previous and next lessons and the code\'s file links (issue 51.6)', async () => {
    for (const slug of ['step-by-step', 'patching']) {
      const { page, problems } = await open(browser, `${server.url}/lessons/${slug}.html`, { width: 390, height: 844 });
      const small = await page.$$eval('.lesson-nav a, .code-file a', (links) => links.map((a) => {
        const r = a.getBoundingClientRect();
        return { text: a.textContent, width: r.width, height: r.height };
      }).filter((r) => r.width < 24 || r.height < 24));
      assert.deepEqual(small, [], `${slug}: targets under 24 px`);
      assert.ok(await page.$$eval('.code-file a', (links) => links.length) > 0, `${slug} has file links`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  test('encoder: a block diagram highlights the part of the layer each step is in; "Input X" is shown once', async () => {
    const { page, problems } = await open(browser, `${server.url}/lessons/encoder.html`);
    const titles = await page.evaluate(() => document.querySelector('attn-stepper').steps.map((s) => s.title));
    assert.equal(titles.filter((t) => t === 'Input X').length, 1, titles.join(' | '));
    const active = () => page.$eval('.block-diagram li.active', (li) => li.textContent);
    assert.match(await active(), /^Input X$/);
    await page.getByRole('button', { name: /^Feed-forward/ }).click();
    assert.equal(await page.evaluate(() => { const s = document.querySelector('attn-stepper'); return s.steps[s.index].id; }), 'ffn.linear1');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('step') !== '0');
    const next = page.locator('attn-stepper').getByRole('button', { name: /next/i });
    await next.click();
    assert.match(await active(), /^Feed-forward.*step 2 of 3: GELU$/);
    assert.equal(await page.locator('.block-diagram [aria-current="step"]').count(), 1);
    // Pre-norm: the norm comes first, and the attention's input is the normed X.
    await page.locator('label.field', { hasText: 'Layout' }).locator('select').selectOption('pre');
    const parts = await page.$$eval('.block-diagram .block-name', (ns) => ns.map((n) => n.textContent));
    assert.deepEqual(parts.slice(0, 3), ['Input X', 'Norm', 'Multi-head attention']);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('sentence lessons offer the trained GPT\'s BPE tokens; the word splitter keeps U.S.A. and 3.14 whole', async () => {
    const sentence = 'The U.S.A. paid 3.14 dollars';
    const words = await open(browser, `${server.url}/lessons/self-attention.html?sentence=${encodeURIComponent(sentence)}`);
    assert.deepEqual(await words.page.$$eval('.tokens li', (l) => l.map((x) => x.textContent)), ['the', 'u.s.a.', 'paid', '3.14', 'dollars']);
    await words.page.locator('label.field', { hasText: 'Tokens' }).locator('select').selectOption('bpe');
    await words.page.waitForFunction(() => new URLSearchParams(location.search).get('tokens') === 'bpe');
    const bpe = await (await init({ simd: true })).loadBuiltinTokenizer();
    // The tokenizer's own pieces, spaces shown as "·" as in the trained-model lessons.
    const expected = Array.from(bpe.encode(sentence), (id) => new TextDecoder().decode(bpe.tokenBytes(id)).replaceAll(' ', '·'));
    await words.page.waitForFunction((n) => document.querySelectorAll('.tokens li').length === n, expected.length);
    assert.deepEqual(await words.page.$$eval('.tokens li', (l) => l.map((x) => x.textContent)), expected);
    const map = await heatmapData(words.page, 'Attention weights');
    assert.deepEqual(map.rowLabels, expected);
    assert.deepEqual(words.problems, []);
    await words.page.close();
  });

  test('snippets quote what the page runs: the task\'s learning rate, the layer\'s sizes', async () => {
    const learn = await open(browser, `${server.url}/lessons/watch-it-learn.html?task=coreference&seed=4`);
    const code = () => learn.page.$$eval('.code code', (cs) => cs.map((c) => c.textContent).join('\n'));
    assert.match(await code(), /lr = 0\.001  # page setting: lr/);
    assert.match(await code(), /task: 'coreference', dModel: 32, numHeads: 2, layers: 1, lr: 0\.001, seed: 4/);
    await learn.page.locator('select').first().selectOption('copy');
    assert.match(await code(), /lr = 0\.003  # page setting: lr/);
    await learn.page.close();
    const mh = await open(browser, `${server.url}/lessons/multi-head.html?dModel=16&heads=2&mask=causal`);
    const mhCode = await mh.page.$$eval('.code code', (cs) => cs.map((c) => c.textContent).join('\n'));
    assert.match(mhCode, /d_model = 16  # page setting: dModel\nnum_heads = 2  # page setting: heads\ncausal = True/);
    assert.match(mhCode, /dModel: 16, numHeads: 2, seed: 0.*causal: true/s);
    assert.deepEqual([...learn.problems, ...mh.problems], []);
    await mh.page.close();
  });
});
