// Runs examples/ as a user would, against the packed package installed in an empty folder: the Node
// script, the plain HTML page (served beside node_modules, as the package README says) and the
// no-config Vite app built by Vite and opened in Chromium. The C++ example is run by
// scripts/test-cmake-consumers.sh. What the examples print is checked against properties known
// without attnlab: a causal first row attends only to itself, and the second "the" has the same
// embedding as the first (no positions), so it weighs them equally.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { launch } from './browser.js';
import { installPackedPackage } from './packed-package.js';
import { serve } from './static-server.js';

const repo = new URL('../../', import.meta.url).pathname;
const examples = join(repo, 'examples');
const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const TOKENS = ['the', 'cat', 'sat', 'on', 'the', 'mat'];

// weights: rows of numbers, one per token. Checks the causal pattern and the repeated token.
function assertAttention(weights, where) {
  assert.equal(weights.length, TOKENS.length, where);
  weights.forEach((row, i) => {
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) <= 0.011, `${where}: row ${i} sums to 1`);
    row.slice(i + 1).forEach((w) => assert.equal(w, 0, `${where}: row ${i} looks ahead`));
  });
  assert.equal(weights[0][0], 1, `${where}: the first token attends to itself alone`);
  assert.ok(Math.abs(weights[4][0] - weights[4][4]) <= 1e-6, `${where}: the two "the"s weigh the same`);
}

async function shownHeatmap(browser, url) {
  const tab = await browser.newPage();
  const problems = [];
  // The browser's own request for /favicon.ico is the only 404 allowed: not the example's doing.
  tab.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) problems.push(m.text()); });
  tab.on('response', (r) => { if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) problems.push(`${r.status()} ${r.url()}`); });
  tab.on('pageerror', (e) => problems.push(String(e)));
  await tab.goto(url);
  await tab.waitForFunction(() => document.querySelector('attn-heatmap')?.matrix);
  const shown = await tab.evaluate(() => {
    const { matrix, rowLabels, colLabels } = document.querySelector('attn-heatmap');
    const rows = Array.from({ length: matrix.rows }, (_, i) => Array.from(matrix.data.subarray(i * matrix.cols, (i + 1) * matrix.cols)));
    return { rows, rowLabels, colLabels };
  });
  await tab.close();
  assert.deepEqual(problems, [], url);
  return shown;
}

describe('examples/, against the packed package', () => {
  let project;
  let browser;

  before(async () => {
    ({ project } = installPackedPackage('attnlab-examples-'));
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
  });

  test('examples/node prints the attention matrix, one labelled row per token', () => {
    copyFileSync(join(examples, 'node/main.js'), join(project, 'main.js'));
    const lines = run('node', ['main.js'], project).trim().split('\n').map((line) => line.trim().split(/\s+/));
    assert.deepEqual(lines.map(([token]) => token), TOKENS);
    assertAttention(lines.map(([, ...cells]) => cells.map(Number)), 'examples/node');
  });

  test('examples/llama loads a checkpoint folder and reports its shared heads, cache and tokens', async () => {
    copyFileSync(join(examples, 'llama/main.js'), join(project, 'llama.js'));
    const folder = join(repo, 'tests/fixtures/llama/kjv_vocab_folder');
    const lines = run('node', ['llama.js', folder], project).trim().split('\n');
    // The folder's config.json: 4 query heads on 2 key/value heads of 8 dims, 2 layers → 2·2·2·8·4 bytes per token.
    assert.equal(lines[0], 'llama: 4 query heads share 2 key/value heads; the KV cache keeps 256 bytes per token');
    const { Tokenizer } = await import('@huggingface/tokenizers');
    const reference = new Tokenizer(JSON.parse(readFileSync(join(folder, 'tokenizer.json'), 'utf8')), {});
    const ids = reference.encode('In the beginning God created', { add_special_tokens: false }).ids;
    assert.equal(lines[1], `ids: ${ids.join(' ')}`);
    assert.equal(lines[2], `keys after RoPE, layer 0: ${ids.length} × 2 × 8`);
    // 2 layers: resid_pre and resid_mid of each, then the model's own prediction, whose word is the forward's argmax.
    assert.match(lines[3], /^logit lens: (".*" → ){4}".*"$/);
    assert.match(lines[4], /^generated: ".+"$/);
  });

  test('examples/html draws the attention in a heatmap, served beside node_modules', async () => {
    copyFileSync(join(examples, 'html/index.html'), join(project, 'index.html'));
    const server = await serve(project);
    try {
      const { rows, rowLabels, colLabels } = await shownHeatmap(browser, `${server.url}/index.html`);
      assert.deepEqual([rowLabels, colLabels], [TOKENS, TOKENS]);
      assertAttention(rows, 'examples/html');
    } finally {
      await server.close();
    }
  });

  test('examples/vite builds with no vite.config and draws the heatmap', async () => {
    const app = join(project, 'vite-app');
    mkdirSync(app);
    const files = readdirSync(join(examples, 'vite'));
    assert.deepEqual(files.filter((f) => f.startsWith('vite.config')), [], 'no Vite configuration');
    for (const file of ['index.html', 'main.js']) copyFileSync(join(examples, 'vite', file), join(app, file));
    // The example asks for the Vite the workspace installs (npm ci at the root), so this is the one it gets.
    const wanted = JSON.parse(readFileSync(join(examples, 'vite/package.json'), 'utf8')).devDependencies.vite;
    assert.equal(wanted, JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).devDependencies.vite);
    run('node', [join(repo, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'], app);
    const server = await serve(join(app, 'dist'));
    try {
      const { rows, rowLabels } = await shownHeatmap(browser, `${server.url}/`);
      assert.deepEqual(rowLabels, TOKENS);
      assertAttention(rows, 'examples/vite');
    } finally {
      await server.close();
    }
  });
});
