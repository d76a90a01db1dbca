// "FlashAttention, block by block" in headless Chromium: no console error or serious axe violation, fits a phone;
// each step's running maxima, sums and rescale factors and the final difference from softmax attention are the
// package's (lab.flashAttentionTrace on the same head's hook_rot_q, hook_rot_k and hook_v, computed here in Node);
// at 390 px with touch and the CPU slowed 4× the blocks are stepped with Next block / Previous / Reset and the block
// size changed, with no main-thread task over 200 ms; by the keyboard alone the steps are walked with → ← and Home,
// the Try-this checked. Waits for data attributes and text, never for time. Screenshots: test-output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { checkMaxStops, headQKV, largestDifference, partialOutput, qkvNames } from '../../site/src/lessons/flash-attention/parts.js';
import { DEFAULT_BLOCK, DEFAULT_PROMPT, MAX_TOKENS } from '../../site/src/lessons/flash-attention/settings.js';
import { init } from '../../web/index.js';
import { checkLessonLayout, heatmapData, longTasks, openLesson, openSite, SCREENSHOTS } from './lesson-page.js';

const close = (a, b, tolerance = 1e-5) => a.length === b.length &&
  a.every((x, i) => (Number.isFinite(b[i]) ? Math.abs(x - b[i]) <= tolerance * (1 + Math.abs(b[i])) : Object.is(x, b[i])));

describe('the flash-attention lesson', () => {
  let site, browser, url, lab, llama;

  before(async () => {
    site = await openSite();
    ({ browser } = site);
    url = `${site.server.url}/lessons/flash-attention.html`;
    lab = await init({ simd: true });
    llama = await lab.loadBuiltinLlama();
  });
  after(async () => {
    await site?.close();
  });

  // The page's trace for these settings, computed here.
  function expected({ prompt = DEFAULT_PROMPT, layer = 0, head = 0, block = DEFAULT_BLOCK } = {}) {
    const ids = Array.from(llama.tokenizer.encode(prompt)).slice(-MAX_TOKENS);
    const { cache } = llama.model.runWithCache(ids, { names: qkvNames(layer) });
    const { q, k, v } = headQKV(cache, layer, head, llama.model.config);
    const trace = lab.flashAttentionTrace(q, k, v, { blockSize: block, causal: true });
    const full = lab.scaledDotProductAttention(q, k, v, { causal: true }).output;
    const difference = (b) => {
      let largest = 0;
      for (let i = 0; i < ids.length; i++) {
        largest = Math.max(largest, largestDifference(partialOutput(trace.blocks[b], i), full.data.subarray(i * q.cols, (i + 1) * q.cols)).value);
      }
      return largest;
    };
    return { ids, trace, difference };
  }

  const shown = (page) => page.evaluate(() => {
    const t = document.querySelector('.flash-table');
    const numbers = (s) => (s ? s.split(',').map(Number) : []);
    const result = document.querySelector('.flash-result');
    return { step: Number(t.dataset.step), max: numbers(t.dataset.max), sum: numbers(t.dataset.sum), rescale: numbers(t.dataset.rescale),
      difference: result.dataset.difference === undefined ? null : Number(result.dataset.difference), rows: t.querySelectorAll('tbody tr').length };
  });
  const atStep = (page, step) => page.waitForFunction((s) => document.querySelector('.flash-table')?.dataset.step === String(s), step);

  async function assertStep(page, want, step) {
    await atStep(page, step);
    const got = await shown(page);
    assert.equal(got.rows, want.ids.length);
    if (step === 0) {
      assert.deepEqual([got.max, got.sum, got.difference], [[], [], null]);
      return;
    }
    const block = want.trace.blocks[step - 1];
    assert.ok(close(got.max, Array.from(block.max)), `step ${step} max ${got.max} vs ${block.max}`);
    assert.ok(close(got.sum, Array.from(block.sum)), `step ${step} sum`);
    assert.ok(close(got.rescale, Array.from(block.rescale)), `step ${step} rescale`);
    assert.ok(Math.abs(got.difference - want.difference(step - 1)) <= 1e-5, `step ${step} difference ${got.difference} vs ${want.difference(step - 1)}`);
    // The block's scores, drawn as a heatmap: the core's own, −∞ where the key is after the query.
    const map = await heatmapData(page, `Block ${step}’s scores`);
    assert.deepEqual([map.rows, map.cols], [want.ids.length, block.keyCount]);
    assert.ok(close(map.data, Array.from(block.scores.data)), `step ${step} scores`);
  }

  test('the defaults: the package\'s numbers at every step, the output equal at the end, no console error, axe clean, fits a phone', async () => {
    const { page, problems } = await openLesson(browser, url);
    const want = expected();
    const blocks = want.trace.blocks.length;
    assert.ok(blocks > 2, `the default prompt gives ${blocks} blocks`);
    await assertStep(page, want, 1);
    assert.equal(await page.$eval('.flash-where', (n) => n.textContent), `Block 1 of ${blocks}: keys 0–${DEFAULT_BLOCK - 1}.`);
    for (let step = 2; step <= blocks; step++) {
      await page.getByRole('button', { name: 'Next block' }).click();
      await assertStep(page, want, step);
    }
    assert.ok(await page.getByRole('button', { name: 'Next block' }).isDisabled());
    const end = await shown(page);
    assert.ok(end.difference < 1e-5, `the output differs from softmax attention's by ${end.difference}`);
    assert.match(await page.$eval('.flash-result', (n) => n.textContent), /^After the last block, a \/ l is softmax attention’s output/);
    await page.waitForFunction((s) => new URLSearchParams(location.search).get('step') === s, String(blocks));
    assert.equal(await page.$$eval('.memory-table tbody tr', (rows) => rows.length), 3);
    await checkLessonLayout(browser, { page, problems }, `${url}?step=${blocks}`, `${SCREENSHOTS}flash-attention`);
  });

  test('at 390 px with touch and 4× slower: Next, Previous, Reset and a new block size, no task over 200 ms', async () => {
    const { page, problems } = await openLesson(browser, url, { phone: true, cpuSlowdown: 4 });
    await longTasks(page, { clear: true });
    const want = expected();
    await assertStep(page, want, 1);
    await page.getByRole('button', { name: 'Next block' }).tap();
    await assertStep(page, want, 2);
    await page.getByRole('button', { name: 'Next block' }).tap();
    await assertStep(page, want, 3);
    await page.getByRole('button', { name: 'Previous' }).tap();
    await assertStep(page, want, 2);
    await page.getByRole('button', { name: 'Reset' }).tap();
    await assertStep(page, want, 0);
    // Another block size, picked by touch, and another head.
    const blockSelect = page.locator('select[data-state="block"]');
    await blockSelect.tap();
    await blockSelect.selectOption('8');
    const other = expected({ block: 8 });
    await page.getByRole('button', { name: 'Next block' }).tap();
    await assertStep(page, other, 1);
    assert.equal(await page.$eval('.flash-where', (n) => n.textContent), `Block 1 of ${other.trace.blocks.length}: keys 0–7.`);
    await page.getByLabel('Query head').selectOption('3');
    const third = expected({ block: 8, head: 3 });
    await assertStep(page, third, 1);
    const tasks = await longTasks(page);
    assert.ok(tasks.every((ms) => ms <= 200), `main-thread tasks over 200 ms: ${tasks.filter((ms) => ms > 200).map(Math.round)}`);
    // The URL is written after the page settles: wait for it, not for time.
    await page.waitForFunction(() => new URLSearchParams(location.search).get('block') === '8');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('by the keyboard alone: → ← and Home step the blocks, and the Try-this is checked', async () => {
    const { page, problems } = await openLesson(browser, `${url}?layer=1&head=2&block=2`);
    const want = expected({ layer: 1, head: 2, block: 2 });
    await assertStep(page, want, 1);
    await page.keyboard.press('ArrowRight');
    await assertStep(page, want, 2);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    await assertStep(page, want, 2);
    await page.keyboard.press('Home');
    await assertStep(page, want, 0);
    // The Next block button, reached with Tab and pressed with Enter.
    await page.getByRole('button', { name: 'Next block' }).focus();
    await page.keyboard.press('Enter');
    await assertStep(page, want, 1);
    // Try this: after which block does the last row's maximum stop moving? A wrong guess, then the right one.
    const last = want.ids.length - 1;
    const answer = checkMaxStops(1, want.trace.blocks, last).answer;
    const wrong = answer === 1 ? 2 : answer - 1;
    for (const guess of [wrong, answer]) {
      await page.getByLabel('Block number').focus();
      await page.keyboard.press('Control+A');  // the box's earlier guess replaced
      await page.keyboard.type(String(guess));
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      const outcome = checkMaxStops(guess, want.trace.blocks, last);
      await page.waitForFunction((c) => document.querySelector('.exercise-verdict').dataset.correct === c, String(outcome.correct));
      assert.equal(await page.$eval('.exercise-verdict', (n) => n.textContent), outcome.message);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
});
