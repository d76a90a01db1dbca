// How fast the site becomes usable, as a learner on a slow phone meets it: the home page and two
// lessons, in headless Chromium on the built site with the CPU slowed 4× (DevTools' "4× slowdown") and,
// in a second profile, a slow network too (1.6 Mbit/s, 150 ms latency, DevTools' "Fast 3G"). Served as a
// static host serves it (no headers: single-threaded on a first visit) and, in a third profile, as
// scripts/serve-site.mjs does (cross-origin isolated: the threaded build, which starts a worker per extra
// core). Every run starts with an empty cache. Three moments, each the first animation frame at which it
// holds, timed from navigation start: the text is on screen (the h1, and the lesson's formula typeset,
// its KaTeX fonts loaded); the loading state is on screen (page.js: the lesson body's status while
// attnlab's module and the lesson's model load); the page is interactive (body[data-ready]: the figures
// are computed and the controls respond; performance mark 'interactive').
// Medians of RUNS runs (environment RUNS=n, default 7) → bench/site-load-results.md (or OUT=path);
// SITE_DIST=folder measures another build than site/dist. Everything from the "## Before and after"
// heading down in the results file is kept: it is written by hand.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

import { serverHeaders } from '../site/csp.js';
import { launch } from '../tests/e2e/browser.js';
import { serve } from '../tests/e2e/static-server.js';

const RUNS = Number(process.env.RUNS ?? 7);
const OUT = process.env.OUT ?? new URL('./site-load-results.md', import.meta.url).pathname;
const dist = process.env.SITE_DIST ?? new URL('../site/dist', import.meta.url).pathname;
const DEFAULT_PAGES = [['index.html', 'home page'], ['lessons/why-attention.html', 'lesson 1 (Why attention)'],
  ['lessons/self-attention.html', 'lesson 4 (Self-attention)']];
// PAGES=lessons/patching.html,lessons/logit-lens.html measures those pages instead (give OUT too).
const PAGES = process.env.PAGES ? process.env.PAGES.split(',').map((path) => [path, path]) : DEFAULT_PAGES;
const PROFILES = [
  { name: '4× CPU, local network', cpu: 4, network: null },
  { name: '4× CPU, Fast 3G (1.6 Mbit/s, 150 ms)', cpu: 4, network: { latency: 150, kbps: 1600 } },
  { name: '4× CPU, Fast 3G, gzip (as most static hosts send text and .wasm)', cpu: 4, network: { latency: 150, kbps: 1600 }, gzip: true },
  { name: '4× CPU, local network, isolated (threaded build, scripts/serve-site.mjs)', cpu: 4, network: null, isolated: true },
];
// PROFILE=text measures only the profiles whose name contains it (a quick look at one; the results file
// is still written, so give OUT too).
const profiles = PROFILES.filter((p) => !process.env.PROFILE || p.name.includes(process.env.PROFILE));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Runs in the page before its own scripts: notes the first animation frame at which each moment holds.
function watch() {
  const seen = { tasks: [] };
  globalThis.__siteLoad = seen;
  // Main-thread tasks over 50 ms from the first script on: the longest before the first figure is the load's.
  new PerformanceObserver((list) => { for (const e of list.getEntries()) seen.tasks.push([e.startTime, e.duration]); })
    .observe({ type: 'longtask', buffered: true });
  const visible = (selector) => [...document.querySelectorAll(selector)].some((n) => n.checkVisibility());
  // KaTeX's faces are font-display: block, so a typeset formula is blank until its fonts have arrived.
  const katexFontsIn = () => {
    const faces = [...document.fonts].filter((f) => f.family.startsWith('KaTeX'));
    return faces.some((f) => f.status === 'loaded') && !faces.some((f) => f.status === 'loading');
  };
  const frame = () => {
    const now = performance.now();
    if (seen.text === undefined && visible('main h1') &&
      (!document.querySelector('main .formula') || (visible('main .formula .katex') && katexFontsIn()))) seen.text = now;
    if (seen.loading === undefined && visible('[aria-busy="true"] [role="status"]')) seen.loading = now;
    if (seen.text === undefined || document.body?.dataset.ready !== 'true') requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

async function measure(browser, url, { cpu, network }) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.addInitScript(watch);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
  if (network) {
    const bytesPerSecond = (network.kbps * 1000) / 8;
    await cdp.send('Network.emulateNetworkConditions',
      { offline: false, latency: network.latency, downloadThroughput: bytesPerSecond, uploadThroughput: bytesPerSecond });
  }
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && globalThis.__siteLoad.text !== undefined,
    null, { timeout: 120000, polling: 10 });
  const result = await page.evaluate(() => {
    const ready = performance.getEntriesByName('interactive')[0].startTime;  // marked by the page when ready
    const { text, loading, tasks } = globalThis.__siteLoad;
    // The longest task that started before the page was interactive (the load and the first figures), 0 if none over 50 ms.
    const longest = Math.max(0, ...tasks.filter(([start]) => start < ready).map(([, duration]) => duration));
    // What had arrived by a moment (the page itself is not a resource entry, the same for every row).
    const bytesBy = (t) => performance.getEntriesByType('resource').filter((r) => r.responseEnd <= t)
      .reduce((sum, r) => sum + (r.encodedBodySize || 0), 0);
    return { ready, text, loading, longest, bytesText: bytesBy(text), bytesReady: bytesBy(ready) };
  });
  await context.close();
  return result;
}

if (!existsSync(`${dist}/index.html`)) throw new Error(`${dist} has no index.html: run scripts/build-site.sh`);
const servers = { plain: await serve(dist), gzip: await serve(dist, 0, { gzip: true }),
  isolated: await serve(dist, 0, { headers: serverHeaders() }) };
const serverFor = (profile) => servers[profile.isolated ? 'isolated' : profile.gzip ? 'gzip' : 'plain'];
const browser = await launch();
const ms = (xs) => (xs.some((x) => x === undefined) ? '—' : `${Math.round(median(xs))} ms`);
const kB = (xs) => `${(median(xs) / 1024).toFixed(0)} kB`;
const lines = ['# Site load: time until the text, the loading state and the figures', '',
  `Headless Chromium, 390 × 844 viewport, empty cache every run; median of ${RUNS} runs (bench/site-load.mjs), ` +
  'times from navigation start.', '',
  '| page | profile | text on screen | loading state on screen | interactive (first figure) | range | longest task before it | bytes before the text | bytes before the first figure |',
  '|---|---|---|---|---|---|---|---|---|'];
try {
  for (const [path, label] of PAGES) {
    for (const profile of profiles) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await measure(browser, `${serverFor(profile).url}/${path}`, profile));
      const ready = runs.map((r) => r.ready);
      const row = `| ${label} | ${profile.name} | ${ms(runs.map((r) => r.text))} | ${ms(runs.map((r) => r.loading))} | ` +
        `${ms(ready)} | ${Math.round(Math.min(...ready))}–${Math.round(Math.max(...ready))} ms | ${ms(runs.map((r) => r.longest))} | ` +
        `${kB(runs.map((r) => r.bytesText))} | ${kB(runs.map((r) => r.bytesReady))} |`;
      console.log(row);
      lines.push(row);
    }
  }
} finally {
  await browser.close();
  for (const server of Object.values(servers)) await server.close();
}
lines.push('', 'Text on screen: the h1 and, on a lesson, its formula typeset with KaTeX\u2019s fonts loaded (the home page has ' +
  'no formula). Loading state: \u2014 where the page shows none. The home page loads no WebAssembly (its figures are ' +
  'computed when they scroll into view). Lessons get their formula typeset at build time (site/formula-plugin.js), ' +
  'so no KaTeX script is fetched. Lesson 1 needs the main module and the small referent module (the trained ' +
  '\u201cit\u201d encoder) with its weights. The test server sends files uncompressed: a host that gzips (most do) ' +
  'sends about 40% of the .wasm bytes, which is most of what the slow-network rows wait for. Longest task: the median ' +
  'of each run\u2019s longest main-thread task that started before the page was interactive (the module\u2019s start, ' +
  'the model\u2019s load a piece per task, the first figures), as the Long Tasks API reports it.');
const kept = existsSync(OUT) ? readFileSync(OUT, 'utf8').split(/^(?=## Before and after)/m)[1] : undefined;
writeFileSync(OUT, `${lines.join('\n')}\n${kept ? `\n${kept}` : ''}`);
