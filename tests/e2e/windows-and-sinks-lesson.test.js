// "Sliding windows and attention sinks" in headless Chromium: no console error or serious axe violation, fits a
// phone; the four caches' mean losses, their means after the window starts dropping, their sizes and every head's
// attention on its cache's first slot are the package's (the lesson's CacheRun computed here in Node on the same
// passage); at 390 px with touch and the CPU slowed 4× the caches run with no main-thread task over 200 ms, a run is
// stopped with its Stop button and run again by touch, and a new window is picked; by the keyboard alone the number
// of sinks is changed and the Try-this is checked. Waits for the progress line's data-state, never for time.
// Screenshots: test-output/screenshots/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { HELD_OUT as PASSAGE } from '../../site/src/held-out-text.js';
import { afterEviction, CACHES, CacheRun, checkHighest, loadMaskModel, mean, SLOT_CACHES } from '../../site/src/lessons/windows-and-sinks/parts.js';
import { init } from '../../web/index.js';
import { checkLessonLayout, longTasks, openLesson, openSite, SCREENSHOTS } from './lesson-page.js';

const ran = (page, key) => page.waitForFunction((k) => document.querySelector('.sweep').dataset.state === 'done'
  && document.querySelector('main').querySelector('[data-run]')?.dataset.run === k, key, { timeout: 240000 });
const close = (a, b, tolerance = 1e-4) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= tolerance);

describe('the windows-and-sinks lesson', () => {
  let site, browser, url, lab, llama, files;

  before(async () => {
    site = await openSite();
    ({ browser } = site);
    url = `${site.server.url}/lessons/windows-and-sinks.html`;
    lab = await init({ simd: true });
    llama = await lab.loadBuiltinLlama();
    const dir = new URL('../../web/models/kjv-llama/', import.meta.url);
    files = { 'config.json': readFileSync(new URL('config.json', dir), 'utf8'),
      'model.safetensors': readFileSync(new URL('model.safetensors', dir)), 'tokenizer.json': readFileSync(new URL('tokenizer.json', dir)) };
  });
  after(async () => {
    await site?.close();
  });

  async function expected({ length, sinks, window }) {
    const ids = Array.from(llama.tokenizer.encode(PASSAGE)).slice(0, length);
    const mask = await loadMaskModel(lab, files, window);
    const run = new CacheRun({ model: llama.model, maskModel: mask.model, ids, sinks, window });
    while (!run.finished) run.step();
    run.dispose();
    mask.model.dispose();
    mask.tokenizer.dispose();
    const after = afterEviction(run);
    return { means: CACHES.map(({ id }) => mean(run.losses[id])), after: CACHES.map(({ id }) => after[id]),
      bytes: CACHES.map(({ id }) => run.bytes[id].now), slots: SLOT_CACHES.map((id) => run.firstSlot(id)) };
  }

  const shown = (page) => page.evaluate(() => {
    const rows = [...document.querySelectorAll('.cache-table tbody tr')];
    return { means: rows.map((r) => Number(r.dataset.mean)), after: rows.map((r) => Number(r.dataset.after)),
      bytes: rows.map((r) => Number(r.dataset.bytes)), slots: JSON.parse(document.querySelector('.head-readout').previousElementSibling
        .querySelector('attn-heatmap').dataset.values) };
  });

  async function assertShows(page, state) {
    const want = await expected(state), got = await shown(page);
    assert.ok(close(got.means, want.means), `means ${got.means} vs ${want.means}`);
    assert.ok(close(got.after, want.after), `after eviction ${got.after} vs ${want.after}`);
    assert.deepEqual(got.bytes, want.bytes);
    got.slots.forEach((column, i) => assert.ok(close(column, want.slots[i]), `${SLOT_CACHES[i]}'s first slot ${column} vs ${want.slots[i]}`));
    return want;
  }

  test('the defaults: the package\'s numbers, no console error, no serious axe violation, fits a phone', async () => {
    const { page, problems } = await openLesson(browser, url);
    await ran(page, '[384,4,64]');
    await assertShows(page, { length: 384, sinks: 4, window: 64 });
    const verdict = await page.$eval('.sink-verdict', (n) => n.textContent);
    assert.match(verdict, /window .* sinks .* full/);
    const largest = await page.$eval('.mask-readout', (n) => Number(n.dataset.largest));
    assert.ok(largest < 1e-3, `the window cache and the mask differ by ${largest}`);
    assert.equal(await page.$$eval('.line-chart', (n) => n.length), 2);
    await checkLessonLayout(browser, { page, problems }, url, `${SCREENSHOTS}windows-and-sinks`);
  });

  test('at 390 px with touch and 4× slower: no task over 200 ms; Stop and run again by touch, a new window', async () => {
    const { page, problems } = await openLesson(browser, `${url}?length=384&sinks=4&window=64`, { phone: true, cpuSlowdown: 4 });
    await longTasks(page, { clear: true });
    // Stop while running, then run again.
    await page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'running');
    await page.locator('.sweep button').tap();
    await page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'stopped');
    assert.match(await page.$eval('.sweep', (n) => n.textContent), /Stopped/);
    await page.locator('.sweep button').tap();
    await ran(page, '[384,4,64]');
    // A new window (chosen as a phone's picker sets it: tapping the select opens the browser's own picker, whose
    // drawing in headless Chromium is a long task of the browser's, not the page's).
    await page.locator('select[data-state="window"]').selectOption('32');
    await ran(page, '[384,4,32]');
    const tasks = await longTasks(page);
    assert.ok(tasks.every((ms) => ms <= 200), `main-thread tasks over 200 ms: ${tasks.filter((ms) => ms > 200).map(Math.round)}`);
    await assertShows(page, { length: 384, sinks: 4, window: 32 });
    await page.waitForFunction(() => new URLSearchParams(location.search).get('window') === '32');  // written once the page settles
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('by the keyboard alone: fewer sinks, and the Try-this checked', async () => {
    const { page, problems } = await openLesson(browser, `${url}?length=384&sinks=4&window=16`);
    await ran(page, '[384,4,16]');
    await page.locator('select[data-state="sinks"]').focus();
    await page.keyboard.press('ArrowUp');  // 4 → 2
    await ran(page, '[384,2,16]');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.state), 'sinks');
    const want = await assertShows(page, { length: 384, sinks: 2, window: 16 });
    // Try this: guess the cache with the highest mean loss, by the keyboard.
    const guess = page.getByLabel('Highest mean loss');
    await guess.focus();
    await page.keyboard.press('ArrowDown');  // the window cache
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const means = Object.fromEntries(CACHES.map(({ id }, i) => [id, want.means[i]]));
    await page.waitForFunction(() => document.querySelector('.exercise [role="status"]').textContent !== '');
    assert.equal(await page.$eval('.exercise [role="status"]', (n) => n.textContent), checkHighest('window', means).message);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
