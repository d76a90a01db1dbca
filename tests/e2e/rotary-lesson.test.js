// "Rotary positions (RoPE)" in headless Chromium: no console error, no serious axe violation, fits a phone; the
// query turned by the page equals the package's hook_rot_q (computed here in Node), the shifted scores are the
// package's (firstPosition for attnlab-kjv-llama, leading tokens for attnlab-kjv), each pair's wavelength is the
// formula's, and the loss per position along the held-out passages is the package's full forward's (the page
// reads them through the KV cache, a slice at a time). At 390 px with touch and 4× slowdown no task runs over
// 200 ms while the learner changes the offset, θ and the head and checks the Try-this; by the keyboard alone
// the layer changes (focus stays) and the Try-this is checked. Waits for states (data attributes), never for time.
// Screenshots: test-output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { HELD_OUT } from '../../site/src/held-out-text.js';
import { blockMeans, EXERCISE_PAIR, frequencies, largestDifference, nextTokenLosses, passages, rotate, scoresBlock,
  wavelengths } from '../../site/src/lessons/rotary/parts.js';
import { DEFAULT_PROMPT, LOSS } from '../../site/src/lessons/rotary/settings.js';
import { init } from '../../web/index.js';
import { checkLessonLayout, longTasks, openLesson, openSite, SCREENSHOTS, tabUntil, urlParam } from './lesson-page.js';

const close = (a, b, tolerance) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= tolerance);
const numbers = (text) => text.split(',').map(Number);
const drawn = (page) => page.waitForFunction(() => document.querySelector('[data-drawing]')?.dataset.drawing === 'false', null, { timeout: 60000 });
const measured = (page) => page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'done'
  && document.querySelector('.loss-chart').dataset.means, null, { timeout: 180000 });

describe('the rotary lesson', () => {
  let site, url, llama, tokenizer, gpt;

  before(async () => {
    site = await openSite();
    url = `${site.server.url}/lessons/rotary.html`;
    const lab = await init({ simd: true });
    ({ model: llama, tokenizer } = await lab.loadBuiltinLlama());
    gpt = (await lab.loadBuiltinModel()).model;
  });
  after(async () => {
    await site?.close();
  });

  // What the page must show for a prompt, position, layer, head and offset, from the package.
  function expected({ prompt = DEFAULT_PROMPT, position = 8, layer = 0, head = 0, offset = 100 } = {}) {
    const ids = Array.from(tokenizer.encode(prompt)).slice(-64);
    const T = ids.length;
    const { numHeads: H, headDim: hd, ropeTheta, numLayers } = llama.config;
    const p = Math.min(position, T - 1);
    const omega = frequencies(ropeTheta, hd);
    const names = [`blocks.${layer}.attn.hook_q`, `blocks.${layer}.attn.hook_rot_q`];
    const { cache } = llama.runWithCache(ids, { names });
    const at = (p * H + head) * hd;
    const rotated = rotate(cache.get(names[0]).data.subarray(at, at + hd), p, omega);
    const rotDifference = largestDifference(rotated, cache.get(names[1]).data.subarray(at, at + hd)).value;
    const scores = Array.from({ length: numLayers }, (_, l) => `blocks.${l}.attn.hook_attn_scores`);
    const plain = llama.runWithCache(ids, { names: scores }).cache, moved = llama.runWithCache(ids, { names: scores, firstPosition: offset }).cache;
    const shift = Math.max(...scores.map((n) => largestDifference(plain.get(n).data, moved.get(n).data).value));
    const cell = (c) => c.get(scores[0]).data[(head * T + T - 1) * T];
    let gptShift = null;
    if (offset + T <= gpt.config.contextLength) {
      const lead = Array.from(tokenizer.encode(HELD_OUT.slice(0, 4000))).slice(0, offset);
      const name = 'blocks.0.attn.hook_attn_scores';
      const alone = gpt.runWithCache(ids, { names: [name] }).cache.get(name);
      const shifted = gpt.runWithCache([...lead, ...ids], { names: [name] }).cache.get(name);
      gptShift = Math.max(...Array.from({ length: gpt.config.numHeads }, (_, h) =>
        largestDifference(scoresBlock(alone, h, 0, T), scoresBlock(shifted, h, offset, T)).value));
    }
    return { rotated, rotDifference, shift, cells: [cell(plain), cell(moved)], gptShift };
  }

  async function checkShown(page, want) {
    const rotated = numbers(await page.getAttribute('.rot-readout', 'data-rotated'));
    // The page runs the threaded build, Node the single-threaded one: equal to float32 rounding.
    assert.ok(close(rotated, Array.from(want.rotated), 1e-5), 'the page’s own rotation is rotate() of the package’s hook_q');
    const rotDifference = Number(await page.getAttribute('.rot-readout', 'data-difference'));
    assert.ok(rotDifference < 1e-5 && want.rotDifference < 1e-5, `the page’s rotation and hook_rot_q differ by ${rotDifference}`);
    const shift = Number(await page.getAttribute('.shift-llama', 'data-difference'));
    assert.ok(shift < 1e-3 && want.shift < 1e-3, `shifting attnlab-kjv-llama’s prompt moved a score by ${shift}`);
    assert.ok(close(numbers(await page.getAttribute('.shift-llama', 'data-cells')), want.cells, 1e-5));
    const gptShown = await page.getAttribute('.shift-gpt', 'data-difference');
    if (want.gptShift === null) assert.equal(gptShown, null);
    else {
      assert.ok(Math.abs(Number(gptShown) - want.gptShift) <= 1e-4, `attnlab-kjv’s shift ${gptShown}, the package’s ${want.gptShift}`);
      assert.ok(want.gptShift > 0.01, 'attnlab-kjv’s learned positions move its scores');
    }
  }

  test('its numbers are the package’s: the turn, the shift, the wavelengths and the loss per position; fits a phone', async () => {
    const { page, problems } = await openLesson(site.browser, url);
    await drawn(page);
    await checkShown(page, expected());
    assert.equal(await page.locator('.dials svg[role=img]').count(), llama.config.headDim / 2);
    assert.match(await page.getAttribute('.dials li:nth-child(3) svg', 'aria-label'), /^Pair 2 \(dimensions 2 and 26\): turned 3\.713 radians/);
    const shownWavelengths = numbers(await page.getAttribute('.speed-table', 'data-wavelengths'));
    assert.ok(close(shownWavelengths, Array.from(wavelengths(frequencies(10000, llama.config.headDim))), 1e-9));

    await measured(page);
    const texts = passages(Array.from(tokenizer.encode(HELD_OUT)), LOSS.passages, LOSS.length);
    assert.equal(texts.length, LOSS.passages);
    const full = texts.map((ids) => nextTokenLosses(llama.forward(ids).logits, ids));
    const first = numbers(await page.getAttribute('.loss-chart', 'data-first'));
    assert.equal(first.length, LOSS.length - 1);
    assert.ok(close(first, full[0], 2e-4), 'the first passage’s loss at every position, through the cache, is the full forward’s');
    const means = numbers(await page.getAttribute('.loss-chart', 'data-means'));
    assert.ok(close(means, blockMeans(full, LOSS.block).map(([, y]) => y), 1e-4), 'the plotted means are the package’s');
    assert.match(await page.textContent('.loss-said'), /^Mean loss per token: \d+\.\d\d nats at positions 0–255, inside the length it was trained on; /);
    await checkLessonLayout(site.browser, { page, problems }, url, `${SCREENSHOTS}rotary`);
  });

  test('at 390 px with touch and 4× slowdown: no task over 200 ms as the offset, θ and head change and the Try-this is checked', async () => {
    const { page, problems } = await openLesson(site.browser, url, { phone: true, cpuSlowdown: 4 });
    await drawn(page);
    await longTasks(page, { clear: true });
    const offset = page.locator('label:has-text("Offset") input');
    await offset.tap();
    await offset.fill('20');
    await page.locator('label:has-text("θ") select').tap();  // leaving the box: its change event
    await page.waitForFunction(() => new URLSearchParams(location.search).get('offset') === '20');
    await drawn(page);
    await page.selectOption('label:has-text("θ") select', '500000');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('theta') === '500000');
    await drawn(page);
    assert.ok(close(numbers(await page.getAttribute('.speed-table', 'data-wavelengths')),
      Array.from(wavelengths(frequencies(500000, llama.config.headDim))), 1e-9));
    await page.locator('label:has-text("Query head") select').tap();
    await page.selectOption('label:has-text("Query head") select', '3');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('head') === '3');
    await drawn(page);
    await checkShown(page, expected({ head: 3, offset: 20 }));

    // Try this at θ = 500,000: a wrong answer, then the right one.
    const answer = (2 * Math.PI) / frequencies(500000, llama.config.headDim)[EXERCISE_PAIR];
    const guess = page.locator('section.exercise input');
    await guess.tap();
    await guess.fill(String(Math.round(answer) + 3));
    await page.locator('section.exercise button').tap();
    await page.waitForFunction(() => document.querySelector('.exercise-verdict').dataset.correct === 'false');
    await guess.tap();
    await guess.fill(String(Math.round(answer)));
    await page.locator('section.exercise button').tap();
    await page.waitForFunction(() => document.querySelector('.exercise-verdict').dataset.correct === 'true');
    assert.match(await page.textContent('.exercise-verdict'), /^Right: 2π \/ ω_2 = /);

    // An offset past attnlab-kjv's positions: the Llama is compared, the GPT's limit said.
    await offset.tap();
    await offset.fill('500');
    await page.locator('label:has-text("θ") select').tap();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('offset') === '500');
    await drawn(page);
    assert.match(await page.textContent('.shift-gpt'), /^attnlab-kjv learned one position vector for each of positions 0–127/);
    await checkShown(page, expected({ head: 3, offset: 500 }));

    await measured(page);
    const slow = (await longTasks(page)).filter((ms) => ms > 200);
    assert.deepEqual(slow, [], `main-thread tasks over 200 ms at 4× slowdown: ${slow.join(', ')}`);
    await page.screenshot({ path: `${SCREENSHOTS}rotary-390px-touch.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('by the keyboard alone: the layer changes (focus stays) and the Try-this is checked', async () => {
    const { page, problems } = await openLesson(site.browser, url);
    await drawn(page);
    const tabTo = (reached) => tabUntil(page, reached);
    await tabTo(() => document.activeElement?.closest('label')?.textContent.startsWith('Layer') && document.activeElement.tagName === 'SELECT');
    await page.keyboard.press('ArrowDown');  // layer 0 → 1
    await page.waitForFunction(() => new URLSearchParams(location.search).get('layer') === '1');
    await drawn(page);
    assert.equal(await page.evaluate(() => document.activeElement.closest('label')?.textContent.startsWith('Layer')), true);
    await checkShown(page, expected({ layer: 1 }));
    assert.equal(await urlParam(page, 'layer'), '1');

    await tabTo(() => document.activeElement?.closest('section.exercise') && document.activeElement.tagName === 'INPUT');
    const answer = (2 * Math.PI) / frequencies(10000, llama.config.headDim)[EXERCISE_PAIR];
    await page.keyboard.type(answer.toFixed(1));
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.exercise-verdict').dataset.correct === 'true');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
