// The site on a static host that sends no headers at all (no CSP header, no COOP/COEP): the first page
// works single-threaded and registers public/isolation-sw.js; the pages opened after it are
// cross-origin isolated by that service worker and run attnlab's threaded build, under the pages' own
// <meta> Content-Security-Policy, with no console error and no policy violation.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { launch } from './browser.js';
import { serve } from './static-server.js';
import { DIST } from './strict-page.js';

let server;
let browser;
before(async () => {
  server = await serve(DIST);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const wasmFetched = (page) => page.evaluate(() => performance.getEntriesByType('resource')
  .map((e) => new URL(e.name).pathname.split('/').pop()).filter((n) => n.endsWith('.wasm'))
  .map((n) => n.replace(/-[\w-]{8}\.wasm$/, '.wasm')));

test('a static host: the first page registers the isolation worker, the next pages run on every core', { timeout: 120000 }, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`violation: ${e.effectiveDirective} ${e.blockedURI}`));
  });
  const ready = () => page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });

  await page.goto(`${server.url}/lessons/self-attention.html`);
  await ready();
  assert.equal(await page.evaluate(() => crossOriginIsolated), false, 'no headers: not isolated yet');
  assert.deepEqual(await wasmFetched(page), ['attnlab-simd.wasm'], 'the first page runs single-threaded');
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  assert.equal(scope, `${server.url}/`, 'the worker controls every page of the site');

  for (const lesson of ['self-attention', 'next-token']) {
    await page.goto(`${server.url}/lessons/${lesson}.html`);
    await ready();
    assert.equal(await page.evaluate(() => crossOriginIsolated), true, `${lesson}: isolated by the service worker`);
    const wasm = await wasmFetched(page);
    assert.ok(wasm.includes('attnlab-simd-mt.wasm'), `${lesson}: ${wasm}`);
    assert.deepEqual(wasm.filter((n) => /^attnlab-(gpt-)?simd\.wasm$/.test(n)), [], `${lesson}: a single-threaded build loaded`);
    if (lesson === 'next-token') assert.ok(wasm.includes('attnlab-gpt-simd-mt.wasm'), `${lesson}: ${wasm}`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});
