// How fast the site becomes usable, as a learner on a slow phone meets it: the home page and the first
// lesson, from navigation until the page is interactive (body[data-ready]: the figures are computed and
// the controls respond; KaTeX typesets just after), in headless Chromium on the built site with the CPU
// slowed 4× (DevTools' "4× slowdown") and, in a second profile, a slow network too (1.6 Mbit/s, 150 ms
// latency, DevTools' "Fast 3G"). Served as a static host serves it (no headers: single-threaded on a
// first visit) and, in a third profile, as scripts/serve-site.mjs does (cross-origin isolated: the
// threaded build, which starts a worker per extra core). Every run starts with an empty cache.
// Medians of RUNS runs → bench/site-load-results.md.
import { writeFileSync } from 'node:fs';

import { serverHeaders } from '../site/csp.js';
import { launch } from '../tests/e2e/browser.js';
import { serve } from '../tests/e2e/static-server.js';

const RUNS = 7;
const PAGES = [['index.html', 'home page'], ['lessons/why-attention.html', 'lesson 1 (Why attention)'],
  ['lessons/self-attention.html', 'lesson 4 (Self-attention)']];
const PROFILES = [
  { name: '4× CPU slowdown, local network', cpu: 4, network: null },
  { name: '4× CPU slowdown, Fast 3G (1.6 Mbit/s, 150 ms)', cpu: 4, network: { latency: 150, kbps: 1600 } },
  { name: '4× CPU slowdown, local network, served by scripts/serve-site.mjs (isolated: threaded build)', cpu: 4, network: null, isolated: true },
];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(browser, url, { cpu, network }) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
  if (network) {
    const bytesPerSecond = (network.kbps * 1000) / 8;
    await cdp.send('Network.emulateNetworkConditions',
      { offline: false, latency: network.latency, downloadThroughput: bytesPerSecond, uploadThroughput: bytesPerSecond });
  }
  const started = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 120000, polling: 10 });
  const ready = Date.now() - started;
  // Only what had arrived by then (KaTeX, fetched just after, is not counted).
  const bytes = await page.evaluate(() => {
    const at = performance.getEntriesByName('interactive')[0].startTime;  // marked by the page when ready
    return performance.getEntriesByType('resource').filter((r) => r.responseEnd <= at).reduce((sum, r) => sum + (r.encodedBodySize || 0), 0);
  });
  await context.close();
  return { ready, bytes };
}

const dist = new URL('../site/dist', import.meta.url).pathname;
const servers = { plain: await serve(dist), isolated: await serve(dist, 0, { headers: serverHeaders() }) };
const browser = await launch();
const lines = ['# Site load: time until interactive', '',
  `Headless Chromium, 390 × 844 viewport, empty cache every run; median of ${RUNS} runs (bench/site-load.mjs).`, '',
  '| page | profile | interactive (median) | range | bytes fetched before interactive |', '|---|---|---|---|---|'];
try {
  for (const [path, label] of PAGES) {
    for (const profile of PROFILES) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await measure(browser, `${servers[profile.isolated ? 'isolated' : 'plain'].url}/${path}`, profile));
      const times = runs.map((r) => r.ready);
      const row = `| ${label} | ${profile.name} | ${median(times)} ms | ${Math.min(...times)}–${Math.max(...times)} ms | ${(median(runs.map((r) => r.bytes)) / 1024).toFixed(0)} kB |`;
      console.log(row);
      lines.push(row);
    }
  }
} finally {
  await browser.close();
  await servers.plain.close();
  await servers.isolated.close();
}
lines.push('', 'The home page loads no WebAssembly and no KaTeX (its figures are computed when they scroll into ' +
  'view); lessons typeset their formula after they are interactive. Lesson 1 needs the main module and the small ' +
  'referent module (the trained \u201cit\u201d encoder) with its weights. The test server sends files uncompressed: ' +
  'a host that gzips (most do) sends about 40% of the .wasm bytes, which is most of what the slow-network rows wait for.');
writeFileSync(new URL('./site-load-results.md', import.meta.url), `${lines.join('\n')}\n`);
