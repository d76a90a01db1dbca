// The npm package's API reference: scripts/build-site.sh writes it with TypeDoc from web/index.d.ts and
// web/components.d.ts into site/dist/api/. It must list the names the package README teaches, and the
// home page's footer and the package README must lead to it.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { launch } from './browser.js';
import { serve } from './static-server.js';
import { serveStrict } from './strict-page.js';

const repo = new URL('../../', import.meta.url).pathname;
const api = join(repo, 'site/dist/api');
const page = (path) => readFileSync(join(api, path), 'utf8');

let browser;
let server;
before(async () => {
  browser = await launch();
  server = await serve(join(repo, 'site/dist'));
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('the reference was generated from both declaration files', () => {
  assert.ok(existsSync(join(api, 'index.html')), 'site/dist/api/index.html: run scripts/build-site.sh');
  const modules = page('index.html');
  assert.match(modules, /href="modules\/index\.html"/);
  assert.match(modules, /href="modules\/components\.html"/);
});

test('it documents init, the Lab with scaledDotProductAttention, GPTModel, AttnLabError and the heatmap element', () => {
  assert.match(page('functions/index.init.html'), /init/);
  assert.match(page('interfaces/index.Lab.html'), /scaledDotProductAttention/);
  assert.match(page('interfaces/index.GPTModel.html'), /GPTModel/);
  assert.match(page('classes/index.AttnLabError.html'), /AttnLabError/);
  assert.match(page('modules/components.html'), /AttnHeatmap/);
});

test('the C++ reference beside it documents the public headers from their own comments', () => {
  const cpp = (path) => readFileSync(join(api, 'cpp', path), 'utf8');
  assert.ok(existsSync(join(api, 'cpp', 'index.html')), 'site/dist/api/cpp/index.html: run scripts/build-site.sh');
  // GPT's page carries the comment above from_safetensors (a // comment in gpt/gpt.hpp), and its path overload.
  const gpt = cpp('classattnlab_1_1GPT.html');
  assert.match(gpt, /A checkpoint in Hugging Face GPT-2's \.safetensors layout/);
  assert.match(gpt, /std::filesystem::path/);
  // A trailing member comment reaches the member (Generation::tokens in gpt/gpt_session.hpp).
  assert.match(cpp('structattnlab_1_1Generation.html'), /the new tokens \(not the prompt\)/);
  assert.match(cpp('index.html'), /attnlab from C\+\+/);
});

test('the home page footer links to it, and the link resolves', async () => {
  const tab = await browser.newPage();
  await tab.goto(`${server.url}/`);
  const href = await tab.locator('footer a[href="./api/"]').getAttribute('href');
  const cppHref = await tab.locator('footer a[href="./api/cpp/"]').getAttribute('href');
  const response = await tab.goto(new URL(href, `${server.url}/`).href);
  assert.equal(response.status(), 200);
  assert.match(await tab.title(), /attnlab/);
  const cppResponse = await tab.goto(new URL(cppHref, `${server.url}/`).href);
  assert.equal(cppResponse.status(), 200);
  assert.match(await tab.title(), /attnlab C\+\+/);
  await tab.close();
});

test('the package README links to it', () => {
  // The package has no repository URL to link to, so the README names the page on attnlab's site.
  const contents = readFileSync(join(repo, 'web/README.md'), 'utf8').split('\n## Install and load')[0];
  assert.match(contents, /API reference[\s\S]{0,120}`\/api\/`/);
});

test('served with the site\'s headers (scripts/serve-site.mjs), its own policy lets its navigation and search run', async () => {
  const strict = await serveStrict();
  const tab = await browser.newPage();
  const problems = [];
  // Chromium asks every page without an icon for /favicon.ico, which the site does not have (its own
  // pages name an empty data: icon): that one 404 is left out, any other is a problem.
  tab.on('response', (r) => { if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) problems.push(`${r.status()} ${r.url()}`); });
  tab.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text()); });
  tab.on('pageerror', (e) => problems.push(String(e)));
  try {
    const response = await tab.goto(`${strict.url}/api/interfaces/index.GPTModel.html`);
    assert.match(response.headers()['content-security-policy'], /script-src 'self' 'unsafe-inline'/);
    // TypeDoc's script shows the page and fills the navigation with links (through innerHTML)
    await tab.waitForFunction(() => document.querySelectorAll('.site-menu a, nav a').length > 10, null, { timeout: 10000 });
    await tab.locator('text=logitLens').first().waitFor();
    assert.deepEqual(problems, []);
    // the site's own pages keep theirs
    const home = await tab.goto(`${strict.url}/`);
    assert.match(home.headers()['content-security-policy'], /require-trusted-types-for 'script'/);
  } finally {
    await tab.close();
    await strict.close();
  }
});
