// "Patching: two prompts side by side" in headless Chromium: it loads the GPT module and attnlab-kjv only,
// has no console error or serious axe violation and fits a phone; both runs' logit differences, the two
// patching grids, the path-patching table and the take-away numbers are the package's (computed here in
// Node); at 390 px with touch a sweep held mid-way is stopped with its Stop button and run again; by the
// keyboard alone the sender is changed (focus stays, the path table follows) and the Try-this is checked;
// prompts of different lengths are refused with both tokenisations; a pair whose clean run does not favour the
// target (issue 51's) is drawn under a warning that gives both values, and no readout says a head restores. The sweeps
// run in a worker: at 390 px, touch and 4× CPU, no main-thread task over 100 ms from a new pair to its last grid, and
// Stop (beside the inputs, not moving) registers within 200 ms of the tap (issue 51, items 2 and 6). Attribution
// patching's section (issue 51, item 5): its two grids are the package's attributionPatching, computed in the worker
// with the sweep, on the desktop and on the phone run; its readout (the largest misses, where the estimate holds) is
// parts.js's estimateWords on the package's grids; shown after Check with no task over 200 ms, axe clean; on the
// unfavourable pair its readout is not read. Screenshots: test-output/screenshots/ (patching-attribution-*.png).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { estimateWords, NOT_READ, PRESETS } from '../../site/src/lessons/patching/parts.js';
import { tokenLabel } from '../../site/src/token-label.js';
import { axeViolations, checkLessonLayout, checkTryThis, heatmapData, longTasks, openLesson, openSiteWithModel, SCREENSHOTS,
  urlParam } from './lesson-page.js';

const [INDUCTION] = PRESETS;
// The induction preset after 36 tokens of Genesis: 46 tokens each, as issue 51's phone measurements.
const GENESIS = 'In the beginning God created the heaven and the earth. And the earth was without form, and void; and darkness ' +
  'was upon the face of the deep. And God saw light. ';
const LONG = { ...INDUCTION, clean: GENESIS + INDUCTION.clean, corrupted: GENESIS + INDUCTION.corrupted };
const swept = (page) => page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'done'
  && document.querySelector('.path-readout').textContent !== '', null, { timeout: 60000 });
const close = (a, b, tolerance = 1e-5) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= tolerance);
const ESTIMATED_RESID = 'Estimated from one backward pass: the share of the clean answer restored by putting back resid_pre';
const ESTIMATED_HEADS = 'Estimated from one backward pass: the share of the clean answer restored by putting back one head';

// The attribution-patching section, from its heading to its last grid, as a screenshot (it is shown after Check).
async function shootEstimates(page, path) {
  const clip = await page.evaluate(() => {
    const heading = [...document.querySelectorAll('h2')].find((h) => h.textContent.startsWith('Attribution patching'));
    const end = document.querySelector('.estimate-readout').parentElement;
    const top = heading.getBoundingClientRect().top + scrollY, bottom = end.getBoundingClientRect().bottom + scrollY;
    return { x: 0, y: Math.max(0, top - 8), width: document.documentElement.clientWidth, height: bottom - top + 16 };
  });
  await page.screenshot({ path, fullPage: true, clip });
}

describe('the patching lesson', () => {
  let site, browser, model, tokenizer, url;

  before(async () => {
    ({ site, browser, url, model, tokenizer } = await openSiteWithModel('patching'));
  });
  after(async () => {
    await site?.close();
  });

  // The package's answers for a preset, with `sender` or the strongest head outside the last layer.
  async function expected(preset, chosen) {
    const clean = tokenizer.encode(preset.clean), corrupted = tokenizer.encode(preset.corrupted);
    const metric = { target: tokenizer.encode(preset.target)[0], baseline: tokenizer.encode(preset.baseline)[0] };
    const resid = await model.activationPatching(clean, corrupted, { what: 'resid_pre', metric });
    const heads = await model.activationPatching(clean, corrupted, { what: 'z', per: 'head', metric });
    const { numLayers: L, numHeads: H } = model.config;
    let best = 0;
    for (let i = 1; i < (L - 1) * H; i++) if (heads.grid.data[i] > heads.grid.data[best]) best = i;
    const sender = chosen ?? { layer: Math.floor(best / H), head: best % H };
    const path = [];
    for (let l = sender.layer + 1; l < L; l++) for (let h = 0; h < H; h++) for (const input of ['q', 'k', 'v']) {
      path.push(model.pathPatching(clean, corrupted, { sender, receivers: [{ layer: l, head: h, input }], metric }).normalised);
    }
    const estimates = { resid: model.attributionPatching(clean, corrupted, { what: 'resid_pre', metric }),
      heads: model.attributionPatching(clean, corrupted, { what: 'z', per: 'head', metric }) };
    const words = estimateWords({ patched: resid.grid, estimate: estimates.resid.grid }, { patched: heads.grid, estimate: estimates.heads.grid },
      Array.from(clean, (id) => tokenLabel(tokenizer, id)));
    return { resid, heads, sender, path, estimates, words };
  }

  // The estimate grids the page drew are the package's attributionPatching.
  async function checkEstimates(page, want) {
    assert.ok(close((await heatmapData(page, ESTIMATED_RESID)).data, Array.from(want.estimates.resid.grid.data)), 'estimated resid_pre grid');
    assert.ok(close((await heatmapData(page, ESTIMATED_HEADS)).data, Array.from(want.estimates.heads.grid.data)), 'estimated heads grid');
  }

  test('loads the model on demand, no console error, no serious axe violation, fits a phone', async () => {
    const { page, problems, fetched } = await openLesson(browser, url);
    const strip = (name) => name.replace(/-[\w-]{8}\.(\w+)$/, '.$1');
    await swept(page);
    // The page's modules (the threaded build: the page is cross-origin isolated), and the sweep worker's own
    // single-threaded pair (sweep-worker.js: one thread, so a sweep never competes with the page for a core).
    assert.deepEqual(fetched.filter((f) => f.endsWith('.wasm')).map(strip).sort(),
      ['attnlab-gpt-simd-mt.wasm', 'attnlab-gpt-simd.wasm', 'attnlab-simd-mt.wasm', 'attnlab-simd.wasm']);
    await checkLessonLayout(browser, { page, problems }, url, `${SCREENSHOTS}patching`);
  });

  test('both runs, the two grids and their estimates, the path table and the take-away are the package\'s', async () => {
    const { page, problems } = await openLesson(browser, url, { width: 1280 });
    await swept(page);
    const want = await expected(INDUCTION);
    const runs = await page.$eval('.patch-runs', (n) => [Number(n.dataset.clean), Number(n.dataset.corrupted)]);
    assert.ok(close(runs, [want.resid.clean, want.resid.corrupted]), `${runs} vs ${want.resid.clean}, ${want.resid.corrupted}`);
    const resid = await heatmapData(page, 'Share of the clean answer restored by putting back resid_pre');
    assert.ok(close(resid.data, Array.from(want.resid.grid.data)), 'resid_pre grid');
    assert.deepEqual(resid.colLabels, Array.from(tokenizer.encode(INDUCTION.clean), (id, j) => `${j}: ${tokenizer.tokenString(id).replaceAll(' ', '·')}`));
    const heads = await heatmapData(page, 'Share of the clean answer restored by putting back one head');
    assert.ok(close(heads.data, Array.from(want.heads.grid.data)), 'heads grid');
    const path = await heatmapData(page, 'Change in the answer');
    assert.ok(close(path.data, want.path), 'path table');
    assert.equal(path.rows, (model.config.numLayers - 1 - want.sender.layer) * model.config.numHeads);
    // The sender shown is the strongest head, and it is the one drawn on both prompts.
    const pickers = await page.$$eval('[aria-label="Sender head"] select', (s) => s.map((x) => Number(x.value)));
    assert.deepEqual(pickers, [want.sender.layer, want.sender.head]);
    assert.ok(await heatmapData(page, `L${want.sender.layer}H${want.sender.head}’s attention on the corrupted prompt`));
    // The readout's resid_pre story: the first block's strongest position is where the prompts differ.
    const moves = (await page.$eval('.resid-readout', (n) => n.dataset.moves)).split(',').map(Number);
    const T = tokenizer.encode(INDUCTION.clean).length;
    assert.equal(moves[0], 2);  // “ saw” → “ met”
    assert.equal(moves.at(-1), T - 1);
    // Attribution patching: the estimates, hidden with the Try-this's answer; Check shows them and the readout.
    await checkEstimates(page, want);
    const readout = page.locator('.estimate-readout');
    assert.equal(await readout.isVisible(), false);
    await longTasks(page, { clear: true });
    await checkTryThis(page);
    assert.equal(await readout.textContent(), want.words.text);
    assert.equal(await readout.getAttribute('data-resid-miss'), `${want.words.resid.row},${want.words.resid.col},${want.words.resid.miss}`);
    assert.ok((await longTasks(page)).every((ms) => ms <= 200));
    assert.deepEqual(await axeViolations(page), []);
    await shootEstimates(page, `${SCREENSHOTS}patching-attribution-1280px.png`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  // Issue 51: the sweeps run in a worker. On a 46-token pair at 390 px, touch and 4× CPU, Stop (beside the inputs,
  // where it stays while the status beside it changes) takes effect within 200 ms of the tap, measured from the tap's
  // dispatch to the line's 'stopped' (both on the machine's clock), and no task of the page's thread is over 100 ms
  // from Run again to the last grid. Before: a layer of the sweep was one task of 1.6–4.6 s.
  test('at 390 px with touch and 4× CPU: Stop beside the inputs stays put and stops within 200 ms, no long task in a sweep, run again to the package\'s grids', async () => {
    const { page, problems } = await openLesson(browser, `${url}?${new URLSearchParams(LONG)}`, { phone: true, cpuSlowdown: 4 });
    assert.match(await page.$eval('.sweep', (n) => n.previousElementSibling.textContent), /Target token.*Baseline token/s);
    const button = page.locator('.sweep button');
    await page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'running');
    assert.equal(await button.textContent(), 'Stop');
    await button.scrollIntoViewIfNeeded();
    const box = await button.boundingBox();
    // A layer of the residual-stream grid done: the status beside Stop has changed, and Stop has not moved.
    await page.waitForFunction(() => /residual stream, layer \d+ of/.test(document.querySelector('.sweep-status').textContent), null,
      { polling: 10, timeout: 120000 });
    assert.deepEqual(await button.boundingBox(), box);
    await page.evaluate(() => {
      const line = document.querySelector('.sweep');
      new MutationObserver(() => { if (line.dataset.state === 'stopped') window.stoppedAt ??= Date.now(); })
        .observe(line, { attributes: true, attributeFilter: ['data-state'] });
    });
    const tapped = Date.now();
    await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'stopped', null, { timeout: 120000 });
    const latency = (await page.evaluate(() => window.stoppedAt)) - tapped;
    assert.ok(latency <= 200, `Stop took ${latency} ms to register`);
    assert.equal(await button.textContent(), 'Run again');
    assert.match(await page.textContent('.sweep-status'), /^Stopped/);
    await longTasks(page, { clear: true });
    await button.tap();
    await page.waitForFunction(() => document.querySelector('.sweep').dataset.state === 'done'
      && document.querySelector('.path-readout').textContent !== '', null, { timeout: 300000 });
    const tasks = await longTasks(page);
    assert.ok(tasks.every((ms) => ms <= 100), `main-thread tasks during the sweep: ${tasks.map(Math.round).join(', ')} ms`);
    const want = await expected(LONG);
    assert.ok(close((await heatmapData(page, 'Share of the clean answer restored by putting back resid_pre')).data, Array.from(want.resid.grid.data)));
    assert.ok(close((await heatmapData(page, 'Share of the clean answer restored by putting back one head')).data, Array.from(want.heads.grid.data)));
    assert.ok(close((await heatmapData(page, 'Change in the answer')).data, want.path), 'path table');
    await checkEstimates(page, want);
    await page.screenshot({ path: `${SCREENSHOTS}patching-390px-touch.png`, fullPage: true });
    // Check (a tap) shows the estimates and their readout: no task over 200 ms, axe clean, nothing wider than the phone.
    await longTasks(page, { clear: true });
    await checkTryThis(page, { tap: true });
    assert.equal(await page.textContent('.estimate-readout'), want.words.text);
    const after = await longTasks(page);
    assert.ok(after.every((ms) => ms <= 200), `main-thread tasks on Check: ${after.map(Math.round).join(', ')} ms`);
    assert.deepEqual(await axeViolations(page), []);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
    await shootEstimates(page, `${SCREENSHOTS}patching-attribution-390px.png`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('by the keyboard alone: the sender changes (focus stays, the path table follows) and the Try-this is checked', async () => {
    const { page, problems } = await openLesson(browser, url);
    await swept(page);
    let focused = '';
    for (let i = 0; i < 100 && focused !== 'Sender head'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.closest('[role=group]')?.getAttribute('aria-label') ?? '');
    }
    assert.equal(focused, 'Sender head', 'Tab never reached the sender\'s Layer select');
    await page.keyboard.press('ArrowDown');  // layer 0 → 1
    await page.waitForFunction(() => new URLSearchParams(location.search).get('layer') === '1');
    await swept(page);
    assert.equal(await page.evaluate(() => document.activeElement.closest('[role=group]')?.getAttribute('aria-label')), 'Sender head');
    const sender = { layer: 1, head: Number(await urlParam(page, 'head')) };
    const want = await expected(INDUCTION, sender);
    assert.ok(close((await heatmapData(page, 'Change in the answer')).data, want.path), 'path table for the chosen sender');

    // The Try-this: Tab to its Position select, choose the right one (block 1's strongest), Check with Enter.
    for (let i = 0; i < 100 && !(await page.evaluate(() => document.activeElement?.closest('section.exercise') && document.activeElement.tagName === 'SELECT')); i++) {
      await page.keyboard.press('Tab');
    }
    const T = tokenizer.encode(INDUCTION.clean).length;
    const row = Array.from(want.resid.grid.data.subarray(T, 2 * T));
    const right = row.indexOf(Math.max(...row));
    for (let j = 0; j < right; j++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    assert.match(await page.textContent('section.exercise [role=status]'), new RegExp(`^Right: patching position ${right} `));
    assert.deepEqual(problems, []);
    await page.close();
  });

  // Issue 51's pair: the clean prompt favours " Aaron" over " Joshua" by 5.787, the corrupted one by 6.284.
  test('a pair the clean run does not favour is drawn under a warning with both values, and no head is said to restore', async () => {
    const moses = { clean: 'And Moses spake unto Aaron his brother. And Moses spake unto',
      corrupted: 'And Nebuchadnezzar spake unto Aaron his brother. And Nebuchadnezzar spake unto', target: ' Aaron', baseline: ' Joshua' };
    const { page, problems } = await openLesson(browser, `${url}?${new URLSearchParams(moses)}`);
    await swept(page);
    const warning = page.locator('.patch-warning');
    assert.ok(await warning.isVisible());
    const words = await warning.textContent();
    assert.ok(words.includes('5.787') && words.includes('6.284'), words);
    assert.match(words, /above 1 or below 0/);
    for (const readout of ['.resid-readout', '.head-readout', '.path-readout']) {
      const text = await page.textContent(readout);
      assert.match(text, /^Not read/, readout);
      assert.doesNotMatch(text, /restores most/, readout);
    }
    assert.equal(await page.locator('.path-readout + .panel').isVisible(), false);
    assert.equal(await page.textContent('.estimate-readout'), NOT_READ);
    assert.equal(await heatmapData(page, 'Estimated from one backward pass: the share'), null);
    assert.ok(await heatmapData(page, 'Estimated (patched − corrupted) / (clean − corrupted), not a share restored on this pair'));
    assert.equal(await heatmapData(page, 'Share of the clean answer restored'), null);
    assert.ok(await heatmapData(page, '(patched − corrupted) / (clean − corrupted), not a share restored on this pair'));
    await page.locator('.patch-warning').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}patching-unfavourable.png`, fullPage: true });
    // Back to a preset: the warning goes, the readouts name the heads again.
    await page.selectOption('label:has-text("Pair") select', INDUCTION.id);
    await page.waitForFunction(() => document.querySelector('.patch-warning').hidden);
    await swept(page);
    assert.match(await page.textContent('.head-readout'), /restores most with L\dH\d/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('prompts of different lengths are refused with both tokenisations, and the page recovers', async () => {
    const { page, problems } = await openLesson(browser, url);
    await page.fill('label:has-text("Corrupted prompt") textarea', 'And Abner beheld Aaron in Mahanaim. And Abner saw');
    await page.waitForFunction(() => !document.querySelector('.error').hidden);
    const message = await page.textContent('.error');
    assert.match(message, /^The clean prompt is \d+ tokens and the corrupted one \d+/);
    assert.ok(message.includes('·Mahan') || message.includes('·Ma'), message);
    assert.equal(await page.$eval('.sweep', (n) => n.dataset.state), 'done');
    await page.fill('label:has-text("Corrupted prompt") textarea', INDUCTION.corrupted);
    await page.waitForFunction(() => document.querySelector('.error').hidden);
    await swept(page);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
