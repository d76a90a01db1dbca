// The npm package's API reference: scripts/build-site.sh writes it with TypeDoc from web/index.d.ts and
// web/components.d.ts into site/dist/api/. It must list the names the package README teaches, and the
// home page's footer and the package README must lead to it.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { launch } from './browser.js';
import { serve } from './static-server.js';

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

test('the home page footer links to it, and the link resolves', async () => {
  const tab = await browser.newPage();
  await tab.goto(`${server.url}/`);
  const href = await tab.locator('footer a[href="./api/"]').getAttribute('href');
  const response = await tab.goto(new URL(href, `${server.url}/`).href);
  assert.equal(response.status(), 200);
  assert.match(await tab.title(), /attnlab/);
  await tab.close();
});

test('the package README links to it', () => {
  // The package has no repository URL to link to, so the README names the page on attnlab's site.
  const contents = readFileSync(join(repo, 'web/README.md'), 'utf8').split('\n## Install and load')[0];
  assert.match(contents, /API reference[\s\S]{0,120}`\/api\/`/);
});
