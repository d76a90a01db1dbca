// Takes README.md's picture, docs/lesson.png: the self-attention lesson of the built site (site/dist,
// scripts/build-site.sh) in headless Chromium, once its figures are computed.
//   node scripts/readme-screenshot.mjs
import { join } from 'node:path';

import { launch } from '../tests/e2e/browser.js';
import { serve } from '../tests/e2e/static-server.js';

const repo = new URL('../', import.meta.url).pathname;
const server = await serve(join(repo, 'site/dist'));
const browser = await launch();
try {
  const tab = await browser.newPage({ viewport: { width: 1100, height: 760 }, deviceScaleFactor: 1 });
  await tab.goto(`${server.url}/lessons/self-attention.html`);
  await tab.waitForFunction(() => document.querySelector('attn-heatmap')?.matrix);
  // The formula and the sentence field above the heatmap, in the picture with it.
  await tab.evaluate(() => window.scrollTo(0, document.querySelector('attn-heatmap').getBoundingClientRect().top + window.scrollY - 300));
  await tab.waitForTimeout(500);  // the heatmap's first paint after its matrix is set
  await tab.screenshot({ path: join(repo, 'docs/lesson.png') });
} finally {
  await browser.close();
  await server.close();
}
