// The "it" sentence lesson in headless Chromium: it loads the trained referent model, has no console
// error or serious axe violation, fits a phone, shows the numbers the package computes in Node for the
// same sentence, the named head's largest weight from "it" moves from "animal" (…tired) to "street"
// (…wide), and the settings round-trip through the URL. Screenshots go to test-output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { init } from '../../web/index.js';
import { checkLessonLayout, heatmapData, openLesson, openSite, SCREENSHOTS, urlParam } from './lesson-page.js';

const shots = SCREENSHOTS;

const argmax = (xs) => xs.reduce((best, x, i) => (x > xs[best] ? i : best), 0);

describe('the it-sentence lesson', () => {
  let site;
  let server;
  let browser;
  let referent;

  before(async () => {
    site = await openSite();
    ({ server, browser } = site);
    const lab = await init({ simd: true });
    referent = await lab.loadReferentModel();
  });

  after(async () => {
    await site?.close();
  });

  test('loads the referent model, no console error, no serious axe violation, fits a phone', async () => {
    const url = `${server.url}/lessons/it-sentence.html`;
    const opened = await openLesson(browser, url);
    const strip = (name) => name.replace(/-[\w-]{8}\.(\w+)$/, '.$1');
    assert.deepEqual(opened.fetched.filter((f) => f.endsWith('.wasm')).map(strip).sort(), ['attnlab-referent-simd.wasm'],
      'the model\'s own module alone (no main module)');
    assert.deepEqual(opened.fetched.filter((f) => /\.(safetensors|jsonl)$/.test(f)).map(strip).sort(), ['model.safetensors', 'training-log.jsonl']);
    await checkLessonLayout(browser, opened, url, `${shots}it-sentence`);
  });

  test('the named head looks at "animal" for …tired and at "street" for …wide, as the package computes', async () => {
    const { layer, head } = referent.namedHead;
    const { page, problems } = await openLesson(browser, `${server.url}/lessons/it-sentence.html?frame=cross&first=animal&second=street&adjective=tired`);
    for (const [adjective, noun] of [['tired', 'animal'], ['wide', 'street']]) {
      if (adjective === 'wide') {
        await page.getByRole('button', { name: /Swap/ }).click();
        await page.waitForFunction(() => new URLSearchParams(location.search).get('adjective') === 'wide');
      }
      const shown = await heatmapData(page, `Layer ${layer}, head ${head}: weights from “it”`);
      const s = referent.sentence({ frame: 'cross', first: 'animal', second: 'street', adjective });
      const expected = referent.forward(s).fromIt[layer][head];
      assert.ok(shown.data.every((x, i) => Math.abs(x - expected[i]) < 1e-6), 'the page shows the package\'s weights');
      assert.equal(s.words[argmax(shown.data)], noun);
      assert.match(await page.textContent('.feedback'), new RegExp(`“it” = ${noun}`));
      assert.match(await page.textContent('.explain'), /held out/);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('every setting round-trips through the URL; words that do not fit the frame are corrected', async () => {
    const query = 'frame=fit-reversed&first=bag&second=guitar&adjective=narrow';
    const { page, problems } = await openLesson(browser, `${server.url}/lessons/it-sentence.html?${query}`);
    for (const [key, value] of new URLSearchParams(query)) assert.equal(await urlParam(page, key), value);
    assert.match(await page.textContent('.feedback'), /the bag can't hold the guitar because it is too narrow/);
    await page.getByLabel('Adjective').selectOption('heavy');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('adjective') === 'heavy');
    assert.match(await page.textContent('.feedback'), /“it” = guitar/);
    await page.close();
    // A reload of the written URL shows the same sentence.
    const again = await openLesson(browser, `${server.url}/lessons/it-sentence.html?frame=fit-reversed&first=bag&second=guitar&adjective=heavy`);
    assert.match(await again.page.textContent('.feedback'), /the bag can't hold the guitar because it is too heavy/);
    await again.page.close();
    const wrong = await openLesson(browser, `${server.url}/lessons/it-sentence.html?frame=fit&first=animal&second=box&adjective=tired`);
    await wrong.page.waitForFunction(() => new URLSearchParams(location.search).get('first') === 'trophy');
    assert.equal(await urlParam(wrong.page, 'adjective'), 'big');
    assert.match(await wrong.page.textContent('.notice'), /first noun “animal”/);
    assert.deepEqual([...problems, ...wrong.problems], []);
    await wrong.page.close();
  });
});
