// "Your own model" with a Llama-family folder (issue 50, item 5; issue 49, item 2) in headless Chromium:
// web/models/kjv-llama's config.json, model.safetensors and tokenizer.json picked together; the page says,
// before loading, what it needs from config.json and the weights' header, then loads it with progress and
// says its family and shape; the lessons that run on a Llama (lessons.js yourLlama: next token, every head,
// the logit lens, patching) then show the package's numbers for that model — computed here in Node with
// lab.loadBuiltinLlama(), the same weights — at 390 px with touch and on the desktop with the keyboard, axe
// clean, no console error, no task over 200 ms at 4× CPU while the learner acts; a lesson that runs on a GPT
// only says so and runs on attnlab-kjv. A context whose storage refuses: the folder loads, and the page
// says the lessons stay on attnlab's model. A broken folder is named in the learner's words; Cancel stops a load.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { LESSONS } from '../../site/src/lessons.js';
import { NOT_READ, PRESETS, strongestHead } from '../../site/src/lessons/patching/parts.js';
import { tokenLabel } from '../../site/src/token-label.js';
import { init } from '../../web/index.js';
import { axeViolations, heatmapData, longTasks, openLesson, openSite, refusingStorage, SCREENSHOTS } from './lesson-page.js';

const FOLDER = new URL('../../web/models/kjv-llama/', import.meta.url).pathname;
const FILES = ['config.json', 'model.safetensors', 'tokenizer.json'].map((name) => `${FOLDER}${name}`);
const NEXT_PROMPT = 'And God said, Let there be';
const HEADS_PROMPT = 'And God said, Let there be light: and there was light.';
const LENS_PROMPT = 'In the beginning God created the heaven and the';
const [PAIR] = PRESETS;
const close = (a, b, tolerance = 1e-5) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= tolerance);
const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60000 });
const statusText = (page) => page.textContent('[role=status].explain');

describe('your own model: a Llama-family folder, and the lessons that run on it', () => {
  let site, lab, model, tokenizer, label;

  before(async () => {
    site = await openSite();
    lab = await init({ simd: true });
    ({ model, tokenizer } = await lab.loadBuiltinLlama());
    label = (id) => tokenLabel({ tokenBytes: (i) => tokenizer.decodeBytes([i], { skipSpecialTokens: false }) }, id);
  });
  after(async () => {
    await site?.close();
  });

  const url = (slug, query = {}) => `${site.server.url}/lessons/${slug}.html${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`;
  const press = async (page, locator, phone) => {
    if (phone) await locator.tap();
    else {
      await locator.focus();
      await page.keyboard.press('Enter');
    }
  };
  // A select's option `index` chosen with touch (tap, then the option) or with the keyboard (Home, then ↓).
  const choose = async (page, select, index, phone) => {
    if (phone) {
      await select.tap();
      await select.selectOption(String(index));
      return;
    }
    await select.focus();
    await page.keyboard.press('Home');
    for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
  };
  const goTo = async (page, slug, query) => {
    await page.goto(url(slug, query));
    await ready(page);
  };

  // The folder picked and loaded on the your-model page: the advice before, the family and shape after.
  async function pickAndLoad(page, phone) {
    await page.getByLabel('Or its files, picked together').setInputFiles(FILES);
    const advice = page.locator('.folder-advice');
    await advice.waitFor();
    const parameters = model.config.parameterCount;
    assert.match(await advice.textContent(), new RegExp(`^model\\.safetensors has ${parameters.toLocaleString('en')} parameters: loading it takes ` +
      'about [\\d.]+ MiB \\(4 bytes each as float32; its weights are [\\d.]+ MiB on disk in F16, read a piece at a time, not held beside them\\), ' +
      'within the 1 GiB memory budget\\.$'));
    await press(page, page.getByRole('button', { name: 'Load and use this folder' }), phone);
    await page.waitForFunction(() => document.querySelector('[role=status].explain')?.textContent.startsWith('Loaded'), null, { timeout: 60000 });
    const { numLayers, numHeads, numKeyValueHeads, hiddenSize, maxPositionEmbeddings, vocabSize } = model.config;
    return { parameters, shape: `a Llama: ${numLayers} layers × ${numHeads} query heads sharing ${numKeyValueHeads} key/value heads, ` +
      `d_model ${hiddenSize}, context ${maxPositionEmbeddings} tokens, vocabulary ${vocabSize.toLocaleString('en')}` };
  }

  // What each lesson must show, from the package in Node.
  function nextTokenExpected(seed) {
    const ids = tokenizer.encode(NEXT_PROMPT);
    const last = model.forward(ids, { logits: 'last' }).logits.data;
    const p = lab.sample(last, { temperature: 1 }).probabilities;
    const top = Array.from(p.keys()).sort((a, b) => p[b] - p[a] || a - b).slice(0, 10);
    const drawn = lab.sample(last, { temperature: 1, topK: 0, topP: 1, seed }).token;
    return { top: top.map(label), drawn: label(drawn) };
  }

  async function checkNextToken(page, phone) {
    await goTo(page, 'next-token', { prompt: NEXT_PROMPT });
    assert.match(await page.textContent('.notices'), /Running on your model, model\.safetensors \(a Llama: 4 layers/);
    assert.match(await page.textContent('.model-line'), /^Model: model\.safetensors, yours \(a Llama: /);
    const bars = () => page.$$eval('.bars', (lists) => [...lists[0].querySelectorAll('.bar-label')].map((n) => n.textContent));
    const want = nextTokenExpected(0);
    assert.deepEqual(await bars(), want.top);
    assert.ok((await page.textContent('.readout')).startsWith(`Seed 0 draws “${want.drawn}”`));
    await longTasks(page, { clear: true });
    await press(page, page.getByRole('button', { name: 'Draw again (next seed)' }), phone);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('seed') === '1');
    const again = nextTokenExpected(1);
    assert.ok((await page.textContent('.readout')).startsWith(`Seed 1 draws “${again.drawn}”`));
    assert.deepEqual((await longTasks(page)).filter((ms) => ms > 200), [], 'no task over 200 ms');
  }

  async function checkAllHeads(page) {
    await goTo(page, 'all-heads', { prompt: HEADS_PROMPT, layer: 1, head: 3 });
    const ids = tokenizer.encode(HEADS_PROMPT);
    const { attention } = model.forward(ids, { attention: true, logits: 'none' });
    const shown = await page.evaluate(() => document.querySelector('attn-model-view').attention.map((layer) => layer.map((m) => Array.from(m.data))));
    assert.equal(shown.length, model.config.numLayers);
    shown.forEach((layer, l) => layer.forEach((data, h) => assert.ok(close(data, Array.from(attention[l][h].data), 1e-6), `L${l}H${h}`)));
    const about = await page.textContent('main .explain[aria-live]');
    assert.match(about, /^Layer 1, head 3\. .* Its keys and values come from key\/value head 1 of 2, which head 2 reads too/);
  }

  async function checkLogitLens(page, phone) {
    await goTo(page, 'logit-lens', { prompt: LENS_PROMPT });
    const ids = tokenizer.encode(LENS_PROMPT);
    const lens = model.logitLens(ids, { k: 1 });
    const shown = await page.evaluate(() => document.querySelector('attn-logit-lens').lens.cells.map((row) => row.map((c) => c.top[0].id)));
    assert.deepEqual(shown, lens.cells.map((row) => row.map((c) => c.top[0].id)));
    // One position, point by point: where the model's own token there first leads.
    const firstAt = (position) => {
      const own = lens.cells.at(-1)[position].top[0].id;
      return model.logitLens(ids, { position, k: 1, target: own }).rows.findIndex((row) => row.target.rank === 1);
    };
    assert.equal(Number(await page.$eval('.explain[data-first]', (n) => n.dataset.first)), firstAt(ids.length - 1));
    await longTasks(page, { clear: true });
    await choose(page, page.locator('label.field', { hasText: /^Position/ }).locator('select'), 2, phone);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('position') === '2');
    await page.waitForFunction((f) => document.querySelector('.explain[data-first]').dataset.first === String(f), firstAt(2));
    assert.deepEqual((await longTasks(page)).filter((ms) => ms > 200), [], 'no task over 200 ms');
  }

  async function checkPatching(page, phone) {
    await goTo(page, 'patching');
    await page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'done'
      && document.querySelector('.path-readout').textContent !== '', null, { timeout: 120000 });
    const clean = tokenizer.encode(PAIR.clean), corrupted = tokenizer.encode(PAIR.corrupted);
    const metric = { target: tokenizer.encode(PAIR.target, { addSpecialTokens: false })[0], baseline: tokenizer.encode(PAIR.baseline, { addSpecialTokens: false })[0] };
    const resid = await model.activationPatching(clean, corrupted, { what: 'resid_pre', metric, allowUnfavourable: true });
    const heads = await model.activationPatching(clean, corrupted, { what: 'z', per: 'head', metric, allowUnfavourable: true });
    const runs = await page.$eval('.patch-runs', (n) => [Number(n.dataset.clean), Number(n.dataset.corrupted)]);
    assert.ok(close(runs, [resid.clean, resid.corrupted], 1e-4), `${runs} vs ${resid.clean}, ${resid.corrupted}`);
    const residShown = await page.evaluate(() => {
      const all = [];
      const walk = (root) => root.querySelectorAll('*').forEach((n) => { if (n.tagName === 'ATTN-HEATMAP') all.push(n); if (n.shadowRoot) walk(n.shadowRoot); });
      walk(document);
      return all.filter((h) => /putting back (resid_pre|one head)/.test(String(h.caption))).map((h) => Array.from(h.matrix.data));
    });
    assert.equal(residShown.length, 2);
    assert.ok(close(residShown[0], Array.from(resid.grid.data), 1e-4), 'resid_pre grid');
    assert.ok(close(residShown[1], Array.from(heads.grid.data), 1e-4), 'heads grid');
    // Attribution patching needs a backward pass, which a Llama's core has not: said in words, no estimate drawn.
    assert.match(await page.textContent('.estimate-note'), /computes gradients for its GPT models only/);
    assert.equal(await page.locator('.estimate-readout').count(), 0);
    // Path patching from the strongest sender: a receiver's keys and values are its key/value head's.
    const { numLayers: L, numHeads: H, numKeyValueHeads: Hkv } = model.config;
    if (resid.warning !== undefined) {
      assert.ok((await page.textContent('.path-readout')).startsWith(NOT_READ));
    } else {
      const { layer: senderLayer, head: senderHead } = strongestHead(heads.grid, L - 1);
      const sender = { layer: senderLayer, head: senderHead };
      const path = [];
      for (let l = sender.layer + 1; l < L; l++) for (let h = 0; h < H; h++) for (const input of ['q', 'k', 'v']) {
        const head = input === 'q' ? h : Math.floor(h / (H / Hkv));
        path.push(model.pathPatching(clean, corrupted, { sender, receivers: [{ layer: l, head, input }], metric }).normalised);
      }
      const table = await heatmapData(page, 'Change in the answer');
      assert.ok(close(table.data, path, 1e-4), 'path table');
      assert.match(await page.textContent('.path-readout'), new RegExp(`^Sender L${sender.layer}H${sender.head}\. Its largest effect through one input: `));
    }
    // The sender, changed by the learner: its attention on the clean prompt is the package's.
    await longTasks(page, { clear: true });
    await choose(page, page.getByRole('group', { name: 'Sender head' }).getByLabel('Layer'), 1, phone);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('layer') === '1');
    const head = Number(new URL(page.url()).searchParams.get('head'));
    const drawn = await heatmapData(page, `L1H${head}’s attention on the clean prompt`);
    assert.ok(drawn, 'the chosen sender is drawn');
    const { attention } = model.forward(clean, { attention: true, logits: 'none' });
    assert.ok(close(drawn.data, Array.from(attention[1][head].data), 1e-6));
    assert.deepEqual((await longTasks(page)).filter((ms) => ms > 200), [], 'no task over 200 ms');
  }

  for (const phone of [false, true]) {
    test(`picked, loaded, and run by next-token, all-heads, logit-lens and patching (${phone ? '390 px with touch' : 'desktop with the keyboard'})`, { timeout: 600000 }, async () => {
      const opened = await openLesson(site.browser, url('your-model'), { phone, cpuSlowdown: phone ? 4 : 1 });
      const { page, problems } = opened;
      const { parameters, shape } = await pickAndLoad(page, phone);
      const status = await statusText(page);
      assert.match(status, new RegExp(`^Loaded model\\.safetensors in [\\d.]+ s: ${shape}, ${parameters.toLocaleString('en')} parameters\\. ` +
        'The lessons marked “a GPT or a Llama” below now run on it'));
      assert.equal(await page.locator('.load-progress').isHidden(), true, 'the progress goes when the load is done');
      const listed = await page.$$eval('h2 + ul li', (items) => items.map((li) => li.textContent));
      for (const lesson of LESSONS.filter((l) => l.yourModel)) {
        const item = listed.find((text) => text.startsWith(lesson.title));
        assert.ok(item?.endsWith(lesson.yourLlama ? '— a GPT or a Llama' : '— a GPT only'), `${lesson.slug}: ${item}`);
      }
      const shot = `${SCREENSHOTS}your-model-llama${phone ? '-390px' : ''}`;
      await page.screenshot({ path: `${shot}.png`, fullPage: true });
      assert.deepEqual(await axeViolations(page), []);

      await checkNextToken(page, phone);
      assert.deepEqual(await axeViolations(page), []);
      await page.screenshot({ path: `${shot}-next-token.png`, fullPage: true });
      await checkAllHeads(page);
      assert.deepEqual(await axeViolations(page), []);
      await page.screenshot({ path: `${shot}-all-heads.png`, fullPage: true });
      await checkLogitLens(page, phone);
      assert.deepEqual(await axeViolations(page), []);
      await checkPatching(page, phone);
      assert.deepEqual(await axeViolations(page), []);
      await page.screenshot({ path: `${shot}-patching.png`, fullPage: true });
      if (phone) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the patching page scrolls sideways by ${overflow}px at 390 px`);
      }

      // A lesson that runs on a GPT only says so, and runs on attnlab's.
      await goTo(page, 'kv-cache');
      assert.match(await page.textContent('.notices'), /Your model, model\.safetensors, is a Llama: this lesson runs on GPT-2-architecture models only, so it runs on attnlab’s model here\./);
      assert.match(await page.textContent('.model-line'), /^Model: attnlab-kjv/);
      // Back to attnlab's model.
      await goTo(page, 'your-model');
      await page.waitForFunction(() => /run on your model model\.safetensors, a Llama/.test(document.querySelector('[role=status].explain').textContent));
      await press(page, page.getByRole('button', { name: 'Use attnlab’s model again' }), phone);
      await page.waitForFunction(() => document.querySelector('[role=status].explain')?.textContent.includes('attnlab-kjv'));
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  test('a broken folder is named in the learner\'s words; Cancel stops a load; a browser that will not keep the folder says the lessons stay on attnlab\'s', { timeout: 120000 }, async () => {
    const { page, problems } = await openLesson(site.browser, url('your-model'));
    // config.json of another architecture: named, with what the page runs.
    await page.getByLabel('Or its files, picked together').setInputFiles([
      { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from('{"model_type": "bert"}') },
      { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: readFileSync(FILES[1]) },
      { name: 'tokenizer.json', mimeType: 'application/json', buffer: readFileSync(FILES[2]) },
    ]);
    await page.getByRole('button', { name: 'Load and use this folder' }).click();
    await page.locator('.error .error-words').waitFor();
    assert.match(await page.textContent('.error .error-words'), /^“config\.json” says model_type 'bert': this page runs Llama, Qwen2, Mistral or SmolLM2 models/);
    assert.match(await page.textContent('.error details code'), /^loadModel: config\.json's model_type 'bert' is not supported/);
    // Weights cut short: the file is named.
    const weights = readFileSync(FILES[1]);
    await page.getByLabel('Or its files, picked together').setInputFiles([
      { name: 'config.json', mimeType: 'application/json', buffer: readFileSync(FILES[0]) },
      { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: weights.subarray(0, weights.length >> 1) },
      { name: 'tokenizer.json', mimeType: 'application/json', buffer: readFileSync(FILES[2]) },
    ]);
    await page.getByRole('button', { name: 'Load and use this folder' }).click();
    await page.waitForFunction(() => document.querySelector('.error .error-words')?.textContent.includes('cut short'));
    assert.match(await page.textContent('.error .error-words'), /^“model\.safetensors” is cut short/);
    assert.match(await statusText(page), /attnlab’s own model/);
    assert.deepEqual(problems, []);
    await page.close();

    // Cancel while the files are read: a context whose File streams wait until the test lets them go.
    const held = await site.browser.newContext();
    await held.addInitScript(() => {
      const stream = Blob.prototype.stream;
      window.attnlabHold = new Promise((resolve) => { window.attnlabRelease = resolve; });
      Blob.prototype.stream = function heldStream() {
        const reader = stream.call(this).getReader();
        return new ReadableStream({ async pull(controller) {
          await window.attnlabHold;
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } });
      };
    });
    const stopping = await held.newPage();
    const stopErrors = [];
    stopping.on('pageerror', (error) => stopErrors.push(error.message));
    await stopping.goto(url('your-model'));
    await ready(stopping);
    await stopping.getByLabel('Or its files, picked together').setInputFiles(FILES);
    await stopping.locator('.folder-advice').waitFor();
    await stopping.getByRole('button', { name: 'Load and use this folder' }).click();
    await stopping.locator('.load-progress').waitFor();
    assert.match(await stopping.textContent('.load-progress'), /Reading config\.json and tokenizer\.json…/);
    await stopping.getByRole('button', { name: 'Cancel' }).click();
    await stopping.evaluate(() => window.attnlabRelease());
    await stopping.waitForFunction(() => document.querySelector('[role=status].explain').textContent.startsWith('Loading model.safetensors stopped (Cancel).'));
    assert.match(await statusText(stopping), /The lessons run on attnlab’s own model/);
    assert.equal(await stopping.locator('.load-progress').isHidden(), true);
    assert.equal(await stopping.locator('.error:visible').count(), 0);
    assert.deepEqual(stopErrors, []);
    await held.close();

    // A fresh context whose IndexedDB aborts every write (a private window's refusal: trained-lessons.test.js).
    const context = await refusingStorage(site.browser);
    const refusing = await context.newPage();
    const errors = [];
    refusing.on('pageerror', (error) => errors.push(error.message));
    refusing.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await refusing.goto(url('your-model'));
    await ready(refusing);
    await pickAndLoad(refusing, false);
    assert.match(await statusText(refusing), /But this browser would not keep its files \([\d.]+ MiB\) .* so they still run on attnlab’s model\./);
    await goTo(refusing, 'next-token');
    assert.doesNotMatch(await refusing.textContent('.notices'), /Running on your model/);
    assert.match(await refusing.textContent('.model-line'), /^Model: attnlab-kjv/);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
