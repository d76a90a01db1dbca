// "Shared keys and values" in headless Chromium: no console error or serious axe violation, fits a phone; every
// query head's pattern of the chosen layer is the package's (attnlab-kjv-llama's hook_pattern, computed here in
// Node) and framed in its key/value head's colour; the cache table gives the formula's bytes for each published
// config; the calculator refuses numbers that do not fit together in the learner's words; the pooled models'
// held-out losses equal attnlab-kjv's with its keys and values replaced by their group's mean (runWithHooks,
// another route than the page's edited weights). At 390 px with touch and 4× CPU slowdown no main-thread task
// takes over 200 ms once it has loaded (the measurement runs in a worker, stopped and run again by touch); by the keyboard alone the layer changes and the Try-this is checked. Screenshots:
// test-output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { CONFIGS, EXERCISE, kvBytesPerToken } from '../../site/src/lessons/shared-kv/parts.js';
import { init } from '../../web/index.js';
import { pooledLosses } from '../js/snippet-cases/shared-kv.js';
import { checkLessonLayout, heatmapData, longTasks, openLesson, openSite, SCREENSHOTS, tabUntil, urlParam } from './lesson-page.js';

const PROMPT = 'And God said, Let there be light: and there was light.';
const measured = (page) => page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'done'
  && document.querySelector('.cost-table').dataset.rows === '3', null, { timeout: 120000 });
const close = (a, b, tolerance = 1e-6) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= tolerance);

describe('the shared-kv lesson', () => {
  let site, browser, url, lab, llama, gpt;

  before(async () => {
    site = await openSite();
    ({ browser } = site);
    url = `${site.server.url}/lessons/shared-kv.html`;
    lab = await init({ simd: true });
    llama = await lab.loadBuiltinLlama();
    gpt = await lab.loadBuiltinModel();
  });
  after(async () => {
    await site?.close();
  });

  // Every query head's pattern in `layer` on `prompt` (its last 32 tokens), as the package computes it.
  function patterns(prompt, layer) {
    const ids = Array.from(llama.tokenizer.encode(prompt)).slice(-32);
    const name = `blocks.${layer}.attn.hook_pattern`;
    const { data } = llama.model.runWithCache(ids, { names: [name] }).cache.get(name);
    const t = ids.length;
    return Array.from({ length: llama.model.config.numHeads }, (_, h) => Array.from(data.subarray(h * t * t, (h + 1) * t * t)));
  }

  async function checkPatterns(page, prompt, layer) {
    const want = patterns(prompt, layer);
    const { numHeads, numKeyValueHeads } = llama.model.config;
    for (let h = 0; h < numHeads; h++) {
      const shown = await heatmapData(page, `Layer ${layer}, query head ${h}:`);
      assert.ok(shown, `no heatmap for layer ${layer}, query head ${h}`);
      assert.ok(close(shown.data, want[h]), `layer ${layer}, query head ${h}: the pattern is not the package's`);
    }
    const groups = await page.$$eval('.head-panel', (ps) => ps.map((p) => [...p.classList].find((c) => /^kv-group-\d$/.test(c))));
    assert.deepEqual(groups, Array.from({ length: numHeads }, (_, h) => `kv-group-${Math.floor(h / (numHeads / numKeyValueHeads))}`));
  }

  test('no console error, no serious axe violation, fits a phone; the patterns, the table and the pooled losses are the package\'s', async () => {
    const { page, problems } = await openLesson(browser, url);
    await measured(page);
    await checkPatterns(page, PROMPT, 0);
    const rows = await page.$$eval('.kv-table:not(.cost-table) tbody tr', (trs) => trs.map((tr) => [tr.dataset.model, tr.querySelector('.per-token').textContent]));
    assert.deepEqual(rows.map(([name]) => name), CONFIGS.map((c) => c.name));
    rows.forEach(([, text], i) => {
      const c = CONFIGS[i];
      assert.ok(text.startsWith(`${(2 * c.layers * c.kvHeads * c.headDim * 2).toLocaleString('en')} bytes`), `${c.name}: ${text}`);
    });
    const losses = await page.$$eval('.cost-table tbody tr', (trs) => trs.map((tr) => [Number(tr.dataset.groups), Number(tr.dataset.loss)]));
    const want = pooledLosses(lab, gpt.model, gpt.tokenizer);
    assert.deepEqual(losses.map(([g]) => g), [gpt.model.config.numHeads, 2, 1]);
    assert.ok(close(losses.map(([, l]) => l), want, 1e-4), `pooled losses ${losses.map(([, l]) => l)} vs ${want}`);
    await checkLessonLayout(browser, { page, problems }, url, `${SCREENSHOTS}shared-kv`);
  });

  test('at 390 px with touch and 4× slowdown: no task over 200 ms; the layer and the calculator follow; refused numbers are said', async () => {
    const { page, problems } = await openLesson(browser, url, { phone: true, cpuSlowdown: 4 });
    await longTasks(page, { clear: true });
    // The measurement runs in a worker: Stop it while it runs, then run it again, by touch.
    await page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'running');
    await page.locator('.sweep button').tap();
    await page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'stopped');
    assert.match(await page.textContent('.sweep'), /Stopped/);
    await page.locator('.sweep button').tap();
    await measured(page);
    await page.locator('label:has-text("Layer") select').tap();
    await page.selectOption('label:has-text("Layer") select', '2');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('layer') === '2');
    await checkPatterns(page, PROMPT, 2);

    // The calculator: a key/value head count that does not divide the query heads is refused in words.
    const box = (label) => page.locator(`.kv-calculator label:has-text("${label}") input`);
    await box('Key/value heads').tap();
    await box('Key/value heads').fill('5');
    await box('Key/value heads').press('Enter');
    await box('Layers').tap();  // the change event
    await page.waitForFunction(() => !document.querySelector('.calc-error').hidden);
    assert.match(await page.textContent('.calc-error'), /^Key\/value heads: 32 query heads do not split into 5 equal groups/);
    assert.equal(await urlParam(page, 'kvHeads'), '8');
    await box('Key/value heads').tap();
    await box('Key/value heads').fill('4');
    await box('Layers').tap();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('kvHeads') === '4');
    assert.equal(await page.locator('.calc-error').isHidden(), true);
    assert.equal(Number(await page.getAttribute('.calc-result', 'data-per-token')), kvBytesPerToken({ layers: 32, kvHeads: 4, headDim: 128 }, 2));
    const slow = (await longTasks(page)).filter((ms) => ms > 200);
    assert.deepEqual(slow, [], `main-thread tasks over 200 ms at 4× slowdown: ${slow.join(', ')}`);
    await page.screenshot({ path: `${SCREENSHOTS}shared-kv-390px-touch.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('by the keyboard alone: the layer changes (focus stays) and the Try-this is checked', async () => {
    const { page, problems } = await openLesson(browser, url);
    const tabTo = (reached) => tabUntil(page, reached);
    await tabTo(() => document.activeElement?.closest('label')?.textContent.startsWith('Layer') && document.activeElement.tagName === 'SELECT');
    await page.keyboard.press('ArrowDown');  // layer 0 → 1
    await page.waitForFunction(() => new URLSearchParams(location.search).get('layer') === '1');
    await checkPatterns(page, PROMPT, 1);
    assert.equal(await page.evaluate(() => document.activeElement.tagName), 'SELECT');

    await tabTo(() => document.activeElement?.closest('section.exercise') && document.activeElement.tagName === 'INPUT');
    await page.keyboard.type('9');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    assert.match(await page.textContent('.exercise-verdict'), /^Not 9\./);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(String(kvBytesPerToken(EXERCISE, 2)));
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    assert.match(await page.textContent('.exercise-verdict'), /^Right: /);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
