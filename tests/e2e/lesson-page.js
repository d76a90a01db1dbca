// Shared by the site's browser tests: serving the built site, opening a lesson until it has computed,
// and the checks every lesson page must pass (axe, no sideways scroll on a phone, screenshots at both
// widths).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';

import { serverHeaders } from '../../site/csp.js';
import { lessonModuleUrl } from '../../site/lesson-files.js';
import { init } from '../../web/index.js';
import { launch } from './browser.js';
import { serve } from './static-server.js';

const axePath = new URL('../../node_modules/axe-core/axe.min.js', import.meta.url).pathname;

// Opens a page and waits until the lesson has computed; collects console errors and dialogs, and the
// file names it requested (`fetched`; the .wasm ones also as `wasm`).
// Whether a lesson runs on its own model's module alone (lab: false in site/src/page.js): its page
// fetches no main module.
export const ownModuleOnly = (slug) =>
  /^\s*lab: false,/m.test(readFileSync(lessonModuleUrl(slug), 'utf8'));

// phone: a 390 × 844 touch screen, as the lessons are tested with touch. cpuSlowdown: the CPU slowed that many
// times (DevTools' "4× slowdown", as a mid-range phone) from before the first script. Every main-thread task over
// 50 ms is recorded from the first script on: longTasks(page) reads them.
export async function openLesson(browser, url, { width = 1200, height = 900, phone = false, cpuSlowdown = 1 } = {}) {
  const page = await browser.newPage(phone ? { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true } : { viewport: { width, height } });
  await page.addInitScript(() => {
    window.attnlabLongTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.attnlabLongTasks.push(e.duration); })
      .observe({ type: 'longtask', buffered: true });
  });
  if (cpuSlowdown !== 1) await (await page.context().newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
  const problems = [];
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname.split('/').pop()));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
  page.on('dialog', async (d) => { problems.push(`dialog: ${d.message()}`); await d.dismiss(); });
  await page.goto(url);
  // Ready: interactive (the formula was typeset at build time, so it is there from the start).
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return { page, problems, fetched, wasm: fetched.filter((f) => f.endsWith('.wasm')) };
}

// The main-thread tasks over 50 ms (their durations in ms) since the page opened or since the last call with
// { clear: true }, which empties the list after reading it (so a test can measure one interaction).
export const longTasks = (page, { clear = false } = {}) => page.evaluate((c) => {
  const tasks = window.attnlabLongTasks.slice();
  if (c) window.attnlabLongTasks.length = 0;
  return tasks;
}, clear);

// Presses Tab until `reached` (a function evaluated in the page) is true, at most `limit` times; fails naming it.
export async function tabUntil(page, reached, limit = 200) {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate(reached)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail('Tab never reached the control');
}

// A Try-this's answer is hidden until the learner checks one (site/src/try-this.js): presses the exercise's
// Check (a tap with `tap`, Enter on it with `keyboard`) and waits until every answer on the page shows.
export async function checkTryThis(page, { tap = false, keyboard = false } = {}) {
  const button = page.locator('section.exercise button', { hasText: 'Check' });
  if (keyboard) {
    await tabUntil(page, () => document.activeElement?.closest('section.exercise') && document.activeElement.textContent === 'Check');
    await page.keyboard.press('Enter');
  } else if (tap) await button.tap();
  else await button.click();
  await page.waitForFunction(() => [...document.querySelectorAll('.try-answer')].every((n) => !n.hidden));
}

// axe-core's serious and critical violations on the open page.
export async function axeViolations(page) {
  // Evaluated rather than added as a <script>: the page's Content-Security-Policy refuses inline script.
  await page.evaluate(readFileSync(axePath, 'utf8'));
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} (${v.nodes.length}× e.g. ${v.nodes[0]?.target})`);
  });
}

// The desktop page (already open): screenshot, axe, no problems; then the same URL at 390 px: no
// sideways scroll, no problems, screenshot. Closes both.
export async function checkLessonLayout(browser, { page, problems }, url, shot) {
  await page.screenshot({ path: `${shot}.png`, fullPage: true });
  assert.deepEqual(await colourLanguageBreaches(page), []);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
  const phone = await openLesson(browser, url, { width: 390, height: 844 });
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await phone.page.screenshot({ path: `${shot}-390px.png`, fullPage: true });
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at 390 px`);
  assert.deepEqual(phone.problems, []);
  await phone.page.close();
}

export const SITE_DIST = new URL('../../site/dist/', import.meta.url).pathname;
export const SCREENSHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;

// The built site served on a free port with the headers scripts/serve-site.mjs sends (so the lessons
// run cross-origin isolated, on the threaded build, as a learner gets them), and Chromium: for a test
// file's before(); close() for after().
export async function openSite() {
  assert.ok(existsSync(`${SITE_DIST}index.html`), 'site/dist is missing: run scripts/build-site.sh (scripts/test.sh does)');
  mkdirSync(SCREENSHOTS, { recursive: true });
  const server = await serve(SITE_DIST, 0, { headers: serverHeaders() });
  const browser = await launch();
  return { server, browser, close: async () => { await browser.close(); await server.close(); } };
}

// openSite() for a part-two or part-three lesson `slug`, and the package in Node with attnlab-kjv loaded, for the
// values the page must show: { site, server, browser, url, lab, model, tokenizer }.
export async function openSiteWithModel(slug) {
  const site = await openSite();
  const lab = await init({ simd: true });
  return { site, ...site, url: `${site.server.url}/lessons/${slug}.html`, lab, ...(await lab.loadBuiltinModel()) };
}

// The first <attn-heatmap> (shadow roots searched too) whose caption starts with `caption`: its
// matrix and labels as the page holds them, or null.
export const heatmapData = (page, caption) => page.evaluate((c) => {
  const all = [];
  const walk = (root) => root.querySelectorAll('*').forEach((n) => { if (n.tagName === 'ATTN-HEATMAP') all.push(n); if (n.shadowRoot) walk(n.shadowRoot); });
  walk(document);
  const found = all.find((h) => String(h.caption).startsWith(c));
  return found ? { rows: found.matrix.rows, cols: found.matrix.cols, data: Array.from(found.matrix.data),
    rowLabels: found.rowLabels, colLabels: found.colLabels } : null;
}, caption);

// The site's colour language (site/src/views.js WEIGHTS / SIGNED): every heatmap on the page (shadow
// roots searched too) draws values in [0, 1] on YlOrRd with the fixed domain [0, 1], and anything with
// a negative value on RdBu centred on 0. → the heatmaps that break it, described.
export const colourLanguageBreaches = (page) => page.evaluate(() => {
  const all = [];
  const walk = (root) => root.querySelectorAll('*').forEach((n) => { if (n.tagName === 'ATTN-HEATMAP') all.push(n); if (n.shadowRoot) walk(n.shadowRoot); });
  walk(document);
  const breaches = [];
  for (const h of all) {
    if (!h.matrix) continue;
    const finite = Array.from(h.matrix.data).filter(Number.isFinite);
    const signed = finite.some((v) => v < 0) || finite.some((v) => v > 1);
    const ok = signed ? h.palette === 'RdBu' && (h.domain === null || h.domain[0] === -h.domain[1])
      : (h.palette === 'YlOrRd' && h.domain?.[0] === 0 && h.domain?.[1] === 1) || h.palette === 'RdBu';
    if (!ok) breaches.push(`“${h.caption}”: palette ${h.palette}, domain ${JSON.stringify(h.domain)}, values ${signed ? 'signed' : 'in [0, 1]'}`);
  }
  return breaches;
});

// One query parameter of the page's current URL.
// A fresh context, as a private window is, whose IndexedDB aborts the transaction of every write while its
// request never settles — what Chromium's incognito storage does with a value over ~133 MB (UnknownError).
export async function refusingStorage(browser) {
  const context = await browser.newContext();
  await context.addInitScript(() => {
    IDBObjectStore.prototype.put = function abortingPut() {
      this.transaction.abort();
      return Object.assign(new EventTarget(), { result: undefined, error: null });
    };
  });
  return context;
}

export const urlParam = (page, key) => page.evaluate((k) => new URLSearchParams(location.search).get(k), key);
