// The PyTorch code a lesson shows is its program rendered for the page's settings, and the file it offers
// holds the page's inputs and weights: the code on the page equals site/src/lessons/<slug>/program.py rendered for
// the URL's settings, and the downloaded file equals the one the package writes in Node for them (which
// tests/js/snippets.test.js runs the program on).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';

import { safetensorsBytes } from '../../site/src/safetensors-file.js';
import { renderSnippet } from '../../site/src/snippet-render.js';
import { lab as loadLab } from '../js/helpers.js';
import { openLesson, openSite } from './lesson-page.js';

let site;
before(async () => { site = await openSite(); });
after(async () => { await site?.close(); });

// [slug, the URL's settings]: settings other than the defaults, so the code and the file must follow them.
const CASES = [
  ['step-by-step', { sentence: 'dogs chase the ball', seed: '5', mask: 'causal', edits: 'X.1.2=0.5;K.0.0=3' }],
  ['scaling', { dk: '16', scale: 'custom', custom: '3', seed: '4' }],
  ['self-attention', { sentence: 'the bird sang because it was happy', seed: '9' }],
  ['multi-head', { dModel: '16', heads: '2', mask: 'causal', seed: '3' }],
  ['masking', { mask: 'padding', valid: '3', seed: '6' }],
  ['positions', { positions: '20', dims: '16', sentence: 'one two three', seed: '8' }],
  ['encoder', { norm: 'rmsnorm', order: 'pre', seed: '2', sentence: 'birds fly south' }],
  ['exercises', { seed: '77' }],
  ['why-attention', { ending: 'wide' }],
  ['cross-attention', { sentence: 'the girl reads the blue books', beam: '4' }],
  ['watch-it-learn', { task: 'reverse', seed: '2' }],
  ['watch-it-learn', { task: 'translate', seed: '4' }],  // its own program; its file made by a module loaded on demand
  ['it-sentence', { frame: 'fit', first: 'ball', second: 'box', adjective: 'small' }],
  ['shapes', { first: 'a small red bird sings', second: 'hi', dModel: '16', heads: '4', mask: 'none', seed: '2' }],
];

for (const [slug, query] of CASES) {
  test(`${slug} (${new URLSearchParams(query)}): the PyTorch code and its file follow the page's settings`, async () => {
    const spec = (await import(`../../site/src/lessons/${slug}/settings.js`)).PROGRAM;
    // The URL's text read as the page reads it: numbers where the schema's values are numbers.
    const state = Object.fromEntries(Object.entries(spec.schema).map(([key, s]) =>
      [key, key in query ? (typeof s.default === 'number' ? Number(query[key]) : query[key]) : s.default]));
    // Another program of the lesson's own folder (programFor), or another lesson's program.py (program).
    const program = spec.programFor?.(state) ? `${slug}/${spec.programFor(state)}` : `${spec.program ?? slug}/program`;
    const source = readFileSync(new URL(`../../site/src/lessons/${program}.py`, import.meta.url), 'utf8');
    const lab = await loadLab(true);
    const cases = await import(`../js/snippet-cases/${slug}.js`);
    await cases.prepare?.(lab);
    const loaded = { lab, prepared: await cases.prepared?.(lab) };
    const { page, problems } = await openLesson(site.browser, `${site.server.url}/lessons/${slug}.html?${new URLSearchParams(query)}`);
    const shown = await page.locator('pre[aria-label="PyTorch code"]').textContent();
    assert.equal(shown, renderSnippet(source, spec.settings?.(state, loaded)));
    // Each file the program reads: the package's shipped copy, or the one it writes for these settings.
    const files = spec.shippedFiles
      ? Object.entries(spec.shippedFiles).map(([name, path]) => [name, readFileSync(new URL(`../../${path}`, import.meta.url))])
      : [[spec.file, safetensorsBytes(await spec.tensors(lab, state))]];
    if (!spec.shippedFiles) {
      // The file is made from the lesson's settings, which sit above the code (the code pair comes after the lesson).
      assert.match(await page.locator('.code-file').first().textContent(), /made here from the settings above/);
      const [controls, code] = await Promise.all(['.lesson-body .controls', '.code-pair'].map((s) => page.locator(s).first().boundingBox()));
      assert.ok(controls.y < code.y, 'the settings are above the code');
    }
    for (const [name, expected] of files) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: `Download ${name}` }).click()]);
      assert.equal(download.suggestedFilename(), name);
      assert.deepEqual(new Uint8Array(readFileSync(await download.path())), new Uint8Array(expected));
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
}
