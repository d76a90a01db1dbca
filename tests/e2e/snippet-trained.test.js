// The trained-model lessons' PyTorch code on the page: the lesson's part is its program rendered for the
// URL's settings (its folder's program.py and settings.js), the folded model part is gpt2_kjv.py, the three links download attnlab-kjv's own files,
// and "Copy the whole program" copies the model part, then the lesson's part: the text that
// tests/js/snippets-trained.test.js runs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { MODEL_FILES } from '../../site/snippets/trained/model-files.js';
import { wholeProgram } from '../../site/snippets/trained/program.js';
import { renderSnippet } from '../../site/src/snippet-render.js';
import { openLesson, openSite } from './lesson-page.js';

let site;
before(async () => { site = await openSite(); });
after(async () => { await site?.close(); });

const TRAINED = new URL('../../site/snippets/trained/', import.meta.url);
const LESSONS = new URL('../../site/src/lessons/', import.meta.url);
const MODEL_PART = readFileSync(new URL('gpt2_kjv.py', TRAINED), 'utf8');

// [slug, the URL's settings, the lesson's state they give (written out by hand, numbers as the schema keeps them)].
const CASES = [
  ['next-token', { prompt: 'And the LORD said', temperature: '70', topK: '20', topP: '90', penalty: '130', seed: '5' },
    { prompt: 'And the LORD said', temperature: 70, topK: 20, topP: 90, penalty: 130, seed: 5 }],
  ['head-jobs', { prompt: 'In the beginning was the Word', length: '12', seed: '7', layer: '1', head: '2' },
    { prompt: 'In the beginning was the Word', length: 12, seed: 7, layer: 1, head: 2 }],
  ['ablation', { heads: '1.2,3.0', mode: 'mean', length: '20', seed: '4' },
    { prompt: 'Now the serpent was more subtil than any beast of the field. And the serpent said unto the woman, Ye shall not surely die: ' +
      'for God doth know that in the day ye eat thereof, then your eyes shall be opened. And the', heads: '1.2,3.0', mode: 'mean', length: 20, seed: 4 }],
  ['your-model', {}, {}],
  ['attribution', { prompt: 'And the LORD spake unto Moses, saying', target: ' spake', baseline: ' said', position: '2' },
    { prompt: 'And the LORD spake unto Moses, saying', target: ' spake', baseline: ' said', position: 2 }],
  ['induction-circuit', { length: '20', seed: '9', mode: 'mean' }, { length: 20, seed: 9, mode: 'mean' }],
  ['patching', { clean: 'And the son of Abraham went out. And the son of', corrupted: 'And the son of Abner went out. And the son of',
    target: ' Abraham', baseline: ' Abner', layer: '1', head: '3' },
  { clean: 'And the son of Abraham went out. And the son of', corrupted: 'And the son of Abner went out. And the son of',
    target: ' Abraham', baseline: ' Abner', layer: 1, head: 3 }],
];

for (const [slug, query, state] of CASES) {
  test(`${slug}: the PyTorch code follows the page's settings, with the model part, its files and Copy`, async () => {
    const source = readFileSync(new URL(`${slug}/program.py`, LESSONS), 'utf8');
    const { PROGRAM } = await import(new URL(`${slug}/settings.js`, LESSONS));
    const { page, problems } = await openLesson(site.browser, `${site.server.url}/lessons/${slug}.html?${new URLSearchParams(query)}`);
    const lessonPart = await page.locator('pre[aria-label="PyTorch code"]').textContent();
    assert.equal(lessonPart, renderSnippet(source, PROGRAM.settings?.(state) ?? {}));
    await page.getByText(/^The model in \d+ lines/).click();  // unfolds it
    assert.equal(await page.locator('pre[aria-label="The model’s code"]').textContent(), MODEL_PART);
    for (const f of MODEL_FILES) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: f.name, exact: true }).click()]);
      assert.equal(download.suggestedFilename(), f.name);
      assert.deepEqual(new Uint8Array(readFileSync(await download.path())), new Uint8Array(readFileSync(fileURLToPath(f.url))));
    }
    // The clipboard, recorded: a headless browser has no system clipboard to read back.
    await page.evaluate(() => { navigator.clipboard.writeText = async (text) => { window.copiedText = text; }; });
    await page.getByRole('button', { name: 'Copy the whole program' }).click();
    await page.getByText('Copied: the model, then this lesson’s part.').waitFor();
    assert.equal(await page.evaluate(() => window.copiedText), wholeProgram(MODEL_PART, lessonPart));
    assert.deepEqual(problems, []);
    await page.close();
  });
}
