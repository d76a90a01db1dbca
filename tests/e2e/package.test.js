// The npm package as a user gets it: `npm pack`, installed into an empty project, imported from
// Node, loaded by a plain <script type="module"> page, and bundled into a Vite app — the browser
// pages run in headless Chromium, compute an attention matrix and log no console error.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { launch, visit } from './browser.js';
import { installPackedPackage } from './packed-package.js';
import { serve } from './static-server.js';

const repo = new URL('../../', import.meta.url).pathname;
const web = join(repo, 'web');
const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// The page script shared by the plain page and the Vite app: causal attention on seeded inputs, then
// seq 100,000 with the weights requested (refused by the memory budget; the tab must not crash), then
// the small call again; then the training module, loaded on demand, takes one step; then the built-in
// trained GPT, fetched on demand, predicts the last word of Genesis 1:1. The files fetched before and
// after each load come from the Resource Timing entries. A bundled app imports the feature entries
// whose files it uses ('attnlab/training', 'attnlab/builtin-model'), so that the bundler ships them; a page
// that loads the package as installed needs no such import (the entries are imported on first use).
const PAGE_SCRIPT = (specifier, entries = []) => `
import { init, AttnLabError } from '${specifier}';
${entries.map((entry) => `import '${specifier}/${entry}';`).join('\n')}
const fetched = () => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname.split('/').pop());
const fetchedWasm = () => fetched().filter((name) => name.endsWith('.wasm'));
const fetchedModels = () => fetched().filter((name) => /[.](safetensors|json|txt)$/.test(name));
try {
  const lab = await init();
  const q = lab.randn(4, 8, 1), k = lab.randn(4, 8, 2), v = lab.randn(4, 8, 3);
  const { weights } = lab.scaledDotProductAttention(q, k, v, { causal: true });
  const long = lab.randn(100000, 1, 4);
  let refused = 'not refused';
  try {
    lab.scaledDotProductAttention(long, long, long, { causal: true });
  } catch (error) {
    refused = (error instanceof AttnLabError ? '' : 'not an AttnLabError: ') + error.message;
  }
  const again = lab.scaledDotProductAttention(q, k, v, { causal: true }).weights;
  const wasmBeforeTraining = fetchedWasm();
  await lab.loadTraining();
  const model = new lab.TaskModel({ task: 'copy', seed: 1 });
  const loss = model.trainStep(model.examples(4, 1));
  const wasmAfterTraining = fetchedWasm();
  const modelFilesBefore = fetchedModels();
  const { model: gpt, tokenizer } = await lab.loadBuiltinModel();
  const prompt = tokenizer.encode('Thou shalt love thy neighbour as');
  const { logits } = gpt.forward(prompt);
  const last = Array.from(logits.data.subarray((prompt.length - 1) * logits.cols));
  const nextWord = tokenizer.decode([last.indexOf(Math.max(...last))]);
  document.body.dataset.result = JSON.stringify({
    simd: lab.simd, rows: weights.rows, weights: Array.from(weights.data), refused, again: Array.from(again.data),
    wasmBeforeTraining, wasmAfterTraining, loss, vocabulary: model.info.vocabulary.length,
    modelFilesBefore, modelFilesAfter: fetchedModels(), nextWord,
  });
} catch (error) {
  console.error(String(error));
}
document.body.dataset.done = 'true';
`;

function checkResult({ result, errors }) {
  assert.deepEqual(errors, []);
  assert.ok(result, 'the page reported a result');
  assert.equal(result.rows, 4);
  assert.equal(result.simd, true, 'Chromium has WebAssembly SIMD');
  // 5 matrices × 100,000² floats × 4 bytes = 2e11 bytes = 186.3 GiB, over the default 512 MiB.
  assert.match(result.refused, /^scaledDotProductAttention: needs about 186\.3 GiB .* but the memory budget is 512 MiB/);
  assert.deepEqual(result.again, result.weights, 'the module still works after the refusal');
  for (let i = 0; i < 4; i++) {
    const row = result.weights.slice(i * 4, i * 4 + 4);
    assert.ok(Math.abs(row.reduce((s, x) => s + x, 0) - 1) < 1e-5);
    for (let j = i + 1; j < 4; j++) assert.equal(row[j], 0);
  }
  // init() fetched the main module alone (Vite adds a hash to each name); loadTraining() the training one.
  const [before, after] = [result.wasmBeforeTraining, result.wasmAfterTraining];
  assert.equal(before.length, 1, before.join());
  assert.match(before[0], /^attnlab-simd[.-]/);
  assert.equal(after.length, 2, after.join());
  assert.match(after[1], /^attnlab-train-simd[.-]/);
  assertUntrainedLoss(result);
  // The built-in model's files are fetched by loadBuiltinModel() and not before; it has read Leviticus 19:18.
  assert.deepEqual(result.modelFilesBefore, []);
  assert.deepEqual(result.modelFilesAfter.map((f) => f.replace(/-[\w-]{8}[.]/, '.')).sort(), ['merges.txt', 'model.safetensors', 'vocab.json']);
  assert.equal(result.nextWord, ' thyself');
}

// An untrained model predicts close to uniformly over the copy task's 12 tokens: loss ≈ ln 12.
function assertUntrainedLoss({ loss, vocabulary }) {
  assert.equal(vocabulary, 12);
  assert.ok(Math.abs(loss - Math.log(12)) < 0.5, `first loss ${loss}, ln 12 = ${Math.log(12)}`);
}

// A README line `console.log(…);  // prints X` (or `// prints ≈2.77`, to two decimals; ` — why` may
// follow) must print X: the lines are found in the output in order.
function checkPrints(code, printed, where) {
  const lines = printed.split('\n');
  let at = 0;
  for (const [, expected] of code.matchAll(/\/\/ prints (.+?)(?: — .*)?$/gm)) {
    const approximate = expected.startsWith('≈');
    const matches = (line) => (approximate ? Math.abs(Number(line) - Number(expected.slice(1))) <= 0.005 : line === expected);
    const found = lines.findIndex((line, i) => i >= at && matches(line.trim()));
    assert.ok(found >= 0, `${where}: no line printed "${expected}" (after line ${at}) in:\n${printed}`);
    at = found + 1;
  }
}

describe('the packed npm package', () => {
  let project;
  let tarball;
  let browser;

  before(async () => {
    ({ tarball, project } = installPackedPackage('attnlab-pack-'));
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
  });

  test('holds exactly the whitelisted files', () => {
    const listing = run('tar', ['-tzf', tarball], repo).trim().split('\n').map((f) => f.replace(/^package\//, '')).sort();
    assert.deepEqual(listing, [
      'LICENSE', 'README.md', 'components.d.ts', 'dist/attnlab-gpt-scalar.mjs', 'dist/attnlab-gpt-scalar.wasm',
      'dist/attnlab-gpt-simd-mt.mjs', 'dist/attnlab-gpt-simd-mt.wasm', 'dist/attnlab-gpt-simd-mt.worker.js',
      'dist/attnlab-gpt-simd.mjs', 'dist/attnlab-gpt-simd.wasm', 'dist/attnlab-referent-scalar.mjs', 'dist/attnlab-referent-scalar.wasm',
      'dist/attnlab-referent-simd.mjs', 'dist/attnlab-referent-simd.wasm', 'dist/attnlab-scalar.mjs', 'dist/attnlab-scalar.wasm',
      'dist/attnlab-seq2seq-scalar.mjs', 'dist/attnlab-seq2seq-scalar.wasm', 'dist/attnlab-seq2seq-simd.mjs', 'dist/attnlab-seq2seq-simd.wasm',
      'dist/attnlab-simd-mt.mjs', 'dist/attnlab-simd-mt.wasm', 'dist/attnlab-simd-mt.worker.js',
      'dist/attnlab-simd.mjs', 'dist/attnlab-simd.wasm', 'dist/attnlab-train-scalar.mjs', 'dist/attnlab-train-scalar.wasm',
      'dist/attnlab-train-simd.mjs', 'dist/attnlab-train-simd.wasm', 'dist/components.js', 'index.cjs', 'index.d.cts', 'index.d.ts', 'index.js',
      'lib/all.js', 'lib/builtin-model.js', 'lib/call.js', 'lib/checkpoint-files.js', 'lib/checks.js', 'lib/errors.js', 'lib/gpt.js',
      'lib/interp.js', 'lib/lazy-module.js', 'lib/llama.js', 'lib/loader.js', 'lib/metric-patching.js',
      'lib/modules.js', 'lib/option-names.js', 'lib/patching-gap.js', 'lib/path-to.js', 'lib/referent.js', 'lib/registry.js', 'lib/seq2seq.js', 'lib/ship-builtin-llama.js', 'lib/ship-builtin-model.js', 'lib/ship-builtin-tokenizer.js',
      'lib/ship-builtin-training-log.js', 'lib/ship-gpt.js', 'lib/ship-referent-model.js', 'lib/ship-training.js', 'lib/ship-translator.js',
      'lib/task-model.js', 'lib/tensor.js', 'models/kjv-llama/README.md', 'models/kjv-llama/config.json', 'models/kjv-llama/model.safetensors',
      'models/kjv-llama/tokenizer.json', 'models/kjv-llama/training-config.json', 'models/kjv-llama/training-log.jsonl', 'models/kjv/merges.txt', 'models/kjv/model.safetensors', 'models/kjv/training-config.json',
      'models/kjv/training-log.jsonl', 'models/kjv/vocab.json', 'models/referent/model.safetensors',
      'models/referent/sentences.json', 'models/referent/training-log.jsonl', 'models/translator/heldout.json',
      'models/translator/model.safetensors', 'models/translator/training-log.jsonl', 'models/translator/vocab.json',
      'package.json', 'ship.d.ts',
    ]);
  });

  test('imports from Node in an empty project', () => {
    writeFileSync(join(project, 'node-check.js'), `
      import { init, AttnLabError } from 'attnlab';
      for (const simd of [true, false]) {
        const lab = await init({ simd });
        const mha = new lab.MultiHeadAttention({ dModel: 32, numHeads: 4, bias: false });
        let message = '';
        try { lab.causalMask(0); } catch (e) { message = e instanceof AttnLabError ? e.message : 'wrong type'; }
        await lab.loadTraining();
        const model = new lab.TaskModel({ task: 'copy', seed: 1 });
        const loss = model.trainStep(model.examples(4, 1));
        const gpt = await lab.createGPT({ vocabSize: 300, contextLength: 16, dModel: 16, numHeads: 2, numLayers: 1, seed: 1 });
        const tokenizer = await lab.trainTokenizer('the cat sat on the mat; the cat sat', { vocabSize: 270 });
        const generated = gpt.generate(tokenizer.encode('the cat'), { maxTokens: 4, seed: 2 }).tokens.length;
        const roundTrip = tokenizer.decode(tokenizer.encode('the cat sat')) === 'the cat sat';
        const builtin = await lab.loadBuiltinModel();  // read from the installed package's models/kjv/
        const builtinLayers = builtin.model.config.numLayers;
        console.log(JSON.stringify({ simd: lab.simd, params: mha.parameterCount(), message, loss, vocabulary: model.info.vocabulary.length, generated, roundTrip, builtinLayers }));
      }`);
    const lines = run('node', ['node-check.js'], project).trim().split('\n').map((l) => JSON.parse(l));
    lines.forEach(assertUntrainedLoss);
    assert.deepEqual(lines.map(({ simd, params, message, generated, roundTrip, builtinLayers }) => ({ simd, params, message, generated, roundTrip, builtinLayers })), [
      { simd: true, params: 4096, message: 'causalMask: rows must be an integer ≥ 1, got 0', generated: 4, roundTrip: true, builtinLayers: 4 },
      { simd: false, params: 4096, message: 'causalMask: rows must be an integer ≥ 1, got 0', generated: 4, roundTrip: true, builtinLayers: 4 },
    ]);
  });

  test('runs in a plain <script type="module"> page in Chromium', async () => {
    // The installed package is served as is; the page imports it by path, and the loader fetches the
    // .wasm relative to its own URL.
    writeFileSync(join(project, 'plain.html'),
      `<!doctype html><html><head><link rel="icon" href="data:,"></head><body><script type="module">${PAGE_SCRIPT('./node_modules/attnlab/index.js')}</script></body></html>`);
    const server = await serve(project);
    try {
      checkResult(await visit(browser, `${server.url}/plain.html`));
    } finally {
      await server.close();
    }
  });

  test('require() from a CommonJS project (npm init\'s default): init and load() work', () => {
    const cjs = join(project, '..', 'cjs-app');
    run('mkdir', ['-p', cjs]);
    writeFileSync(join(cjs, 'package.json'), JSON.stringify({ name: 'cjs-app', private: true }));  // no "type": CommonJS
    run('npm', ['install', '--no-audit', '--no-fund', '--silent', tarball], cjs);
    writeFileSync(join(cjs, 'index.js'), `
const { init, load } = require('attnlab');
(async () => {
  const lab = await init();
  const { weights } = lab.scaledDotProductAttention(lab.randn(2, 4, 1), lab.randn(3, 4, 2), lab.randn(3, 4, 3));
  const { AttnLabError } = await load();
  let refused = '';
  try { lab.randn(0, 4, 1); } catch (e) { refused = e instanceof AttnLabError ? e.message : String(e); }
  console.log(JSON.stringify({ rows: weights.rows, cols: weights.cols, refused }));
})();
`);
    const result = JSON.parse(run('node', ['index.js'], cjs));
    assert.deepEqual([result.rows, result.cols], [2, 3]);
    assert.match(result.refused, /^randn: rows/);
  });

  // web/README.md's code blocks as written: every js block as an .mjs file of the installed project
  // the HTML one as a page in Chromium.
  test('every code block of web/README.md runs as written and prints what it says', async () => {
    const readme = readFileSync(join(web, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```(js|cjs|html)\n([\s\S]*?)```/g)].map(([, lang, code]) => ({ lang, code }));
    const scripts = blocks.filter((b) => b.lang === 'js' || b.lang === 'cjs');
    assert.ok(scripts.length >= 5, `${scripts.length} js and cjs blocks`);
    scripts.forEach(({ lang, code }, i) => {
      const file = `readme-${i}.${lang === 'js' ? 'mjs' : 'cjs'}`;
      writeFileSync(join(project, file), code);
      // A block that reads a folder from its command line (the Llama family's: "Run: node main.js <folder>")
      // is run as it says, on a small checkpoint folder of attnlab-kjv's vocabulary.
      const args = code.includes('process.argv[2]') ? [join(repo, 'tests/fixtures/llama/kjv_vocab_folder')] : [];
      let printed;
      try {
        printed = run('node', [file, ...args], project);
      } catch (error) {
        assert.fail(`web/README.md ${lang} block ${i + 1} failed:\n${code}\n${error.stderr}`);
      }
      assert.doesNotMatch(printed, /\b(undefined|NaN)\b/, `web/README.md block ${i + 1} printed:\n${printed}`);
      checkPrints(code, printed, `web/README.md block ${i + 1}`);
    });
    // The ES module blocks type-check as TypeScript under --strict (what an author pastes into a .ts file).
    const typed = scripts.filter((b) => b.lang === 'js').map(({ code }, i) => {
      writeFileSync(join(project, `readme-${i}.mts`), code);
      return `readme-${i}.mts`;
    });
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext',
                         types: ['node'], typeRoots: [join(repo, 'node_modules/@types')], skipLibCheck: true },
      files: typed,
    }));
    try {
      run('node', [join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], project);
    } catch (error) {
      assert.fail(`web/README.md's blocks under tsc --strict:\n${error.stdout}${error.stderr}`);
    }
    // HTML: every block is a complete page, run as written: an author saves it beside node_modules and
    // opens it (a fragment would need a page around it that the README does not give).
    const pages = blocks.filter((b) => b.lang === 'html').map(({ code }) => code);
    assert.ok(pages.length >= 2);
    pages.forEach((html, i) => assert.match(html, /^<!doctype html>\n[\s\S]*<\/html>\n$/, `web/README.md html block ${i + 1} is a complete page`));
    const server = await serve(project);
    try {
      for (const [i, html] of pages.entries()) {
        writeFileSync(join(project, `readme-${i}.html`), html);
        const tab = await browser.newPage();
        const problems = [];
        // The browser's own request for /favicon.ico is the only 404: not the README's doing.
        tab.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) problems.push(m.text()); });
        tab.on('response', (r) => { if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) problems.push(`${r.status()} ${r.url()}`); });
        tab.on('pageerror', (e) => problems.push(String(e)));
        await tab.goto(`${server.url}/readme-${i}.html`);
        await tab.waitForFunction(() => [...document.querySelectorAll('attn-heatmap')].every((h) => h.matrix)
          && [...document.querySelectorAll('attn-stepper')].every((st) => st.steps.length > 0)
          && [...document.querySelectorAll('attn-model-view, attn-head-view, attn-token-colors')].every((view) => view.attention)
          && [...document.querySelectorAll('attn-logit-lens')].every((lens) => lens.lens)
          && [...document.querySelectorAll('attn-attribution')].every((bars) => bars.items?.length > 0));
        const shown = await tab.evaluate(() => ({
          labels: [...document.querySelectorAll('attn-heatmap')].map((h) => h.rowLabels),
          steps: [...document.querySelectorAll('attn-stepper')].map((st) => st.steps.map((x) => x.explanation).join(' ')),
        }));
        if (html.includes('caption="Causal attention weights"')) {  // the Components section's page
          assert.deepEqual(shown.labels, [['the', 'cat', 'sat', 'on', 'the', 'mat']]);
          assert.equal(shown.steps.length, 1);
          assert.doesNotMatch(shown.steps[0], /b_[qkvo]/, 'bias: false, so no bias in the formulas');
        }
        if (html.includes('id="lens"')) {  // the interpretability figures' page: the built-in model's lens and attribution
          const drawn = await tab.evaluate(() => {
            const lens = document.getElementById('lens');
            const cells = [...lens.shadowRoot.querySelectorAll('td button')];
            return { cells: cells.length, expected: lens.lens.points.length * lens.lens.positions.length, position: lens.position,
              last: lens.lens.positions.at(-1), finalText: cells.at(-1).textContent, finalId: lens.lens.cells.at(-1).at(-1).top[0].id,
              rows: document.getElementById('dla').shadowRoot.querySelectorAll('li').length, items: document.getElementById('dla').items.length };
          });
          assert.equal(drawn.cells, drawn.expected, 'one cell per point and position');
          assert.equal(drawn.position, drawn.last, 'the last position chosen');
          assert.equal(drawn.finalText, ' thyself', `the final point favours “ thyself” (id ${drawn.finalId})`);
          assert.equal(drawn.rows, drawn.items, 'one bar per term');
        }
        assert.deepEqual(problems, [], `web/README.md html block ${i + 1}`);
        await tab.close();
      }
    } finally {
      await server.close();
    }
  });

  // web/README.md says Vite needs no configuration: no vite.config.js in either test.
  const viteApp = (name) => {
    const site = join(project, name);
    run('mkdir', ['-p', site]);
    writeFileSync(join(site, 'index.html'), '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><script type="module" src="./main.js"></script></body></html>');
    writeFileSync(join(site, 'main.js'), PAGE_SCRIPT('attnlab', ['training', 'builtin-model']));
    return site;
  };
  const vite = join(repo, 'node_modules/vite/bin/vite.js');

  test('bundles with Vite and runs in Chromium', async () => {
    const site = viteApp('vite-app');
    run('node', [vite, 'build', '--logLevel', 'error'], site);
    assert.ok(readdirSync(join(site, 'dist/assets')).some((f) => f.endsWith('.wasm')), 'Vite emitted the .wasm');
    const server = await serve(join(site, 'dist'));
    try {
      checkResult(await visit(browser, `${server.url}/`));
    } finally {
      await server.close();
    }
  });

  // Issue 29.12: an app ships only what it can load. The dist's files, with Vite's hash taken out of
  // each name ("attnlab-simd-D1cCznqr.wasm" → "attnlab-simd.wasm").
  const distFiles = (site) => readdirSync(join(site, 'dist'), { recursive: true })
    .map((f) => f.split('/').pop().replace(/-[\w-]{8}(?=[.])/, '')).sort();
  const buildApp = (name, main) => {
    const site = join(project, name);
    run('mkdir', ['-p', site]);
    writeFileSync(join(site, 'index.html'), '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><script type="module" src="./main.js"></script></body></html>');
    writeFileSync(join(site, 'main.js'), main);
    run('node', [vite, 'build', '--logLevel', 'error'], site);
    return site;
  };

  test('a Vite app that imports only attention ships the main module alone, and says what to import for more', async () => {
    const site = buildApp('vite-attention-only', `
      import { init, AttnLabError } from 'attnlab';
      try {
        const lab = await init();
        const { weights } = lab.scaledDotProductAttention(lab.randn(3, 8, 1), lab.randn(3, 8, 2), lab.randn(3, 8, 3), { causal: true });
        const refusal = async (call) => {
          try {
            await call();
            return 'not refused';
          } catch (error) {
            return (error instanceof AttnLabError ? '' : 'not an AttnLabError: ') + error.message;
          }
        };
        document.body.dataset.result = JSON.stringify({
          weights: Array.from(weights.data),
          training: await refusal(() => lab.loadTraining()),
          model: await refusal(() => lab.loadBuiltinModel()),
          gpt: await refusal(() => lab.createGPT({ vocabSize: 8, contextLength: 4, dModel: 4, numHeads: 1, numLayers: 1 })),
          log: await refusal(() => lab.loadBuiltinTrainingLog()),
          referent: await refusal(() => lab.loadReferentModel()),
          wasm: performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()).filter((n) => n.endsWith('.wasm')),
        });
      } catch (error) {
        console.error(String(error));
      }
      document.body.dataset.done = 'true';
    `);
    const files = distFiles(site);
    assert.deepEqual(files.filter((f) => /(gpt|referent|train)[^/]*[.]wasm$|[.](safetensors|jsonl)$|^(vocab[.]json|merges[.]txt)$/.test(f)), [],
      `nothing of the GPT, referent or training modules, no model, tokenizer or log: ${files}`);
    // The main module's variants (SIMD, scalar, threaded) may all ship: init() picks one at run time.
    assert.deepEqual(files.filter((f) => f.endsWith('.wasm')), ['attnlab-scalar.wasm', 'attnlab-simd-mt.wasm', 'attnlab-simd.wasm']);
    const server = await serve(join(site, 'dist'));
    try {
      const { result, errors } = await visit(browser, `${server.url}/`);
      assert.deepEqual(errors, []);
      assert.ok(result, 'the page reported a result');
      assert.deepEqual(result.weights.slice(0, 3), [1, 0, 0]);
      assert.equal(result.wasm.length, 1, `${result.wasm}`);
      assert.match(result.wasm[0], /^attnlab-simd-/);
      assert.match(result.training, /^loadTraining: the training module \(attnlab-train-simd[.]wasm\) is not in this app's bundle: add import 'attnlab\/training';/);
      assert.match(result.model, /^loadBuiltinModel: models\/kjv\/model[.]safetensors is not in this app's bundle: add import 'attnlab\/builtin-model';/);
      assert.match(result.gpt, /^createGPT: the GPT module \(attnlab-gpt-simd[.]wasm\) is not in this app's bundle: add import 'attnlab\/gpt';/);
      assert.match(result.log, /^loadBuiltinTrainingLog: models\/kjv\/training-log[.]jsonl is not in this app's bundle: add import 'attnlab\/builtin-training-log';/);
      assert.match(result.referent, /^loadReferentModel: models\/referent\/model[.]safetensors is not in this app's bundle: add import 'attnlab\/referent-model';/);
    } finally {
      await server.close();
    }
  });

  test("a Vite app that imports 'attnlab/builtin-model' ships the GPT module and the model, loads it and runs it", async () => {
    const site = buildApp('vite-with-model', `
      import { init } from 'attnlab';
      import 'attnlab/builtin-model';
      try {
        const lab = await init();
        const { weights } = lab.scaledDotProductAttention(lab.randn(3, 8, 1), lab.randn(3, 8, 2), lab.randn(3, 8, 3), { causal: true });
        const { model, tokenizer } = await lab.loadBuiltinModel();
        const prompt = tokenizer.encode('Thou shalt love thy neighbour as');
        const { logits } = model.forward(prompt, { logits: 'last' });
        const last = Array.from(logits.data);
        document.body.dataset.result = JSON.stringify({
          weights: Array.from(weights.data), layers: model.config.numLayers, threads: lab.threads,
          nextWord: tokenizer.decode([last.indexOf(Math.max(...last))]),
          wasm: performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()).filter((n) => n.endsWith('.wasm')),
        });
      } catch (error) {
        console.error(String(error));
      }
      document.body.dataset.done = 'true';
    `);
    const files = distFiles(site);
    assert.deepEqual(files.filter((f) => /[.](wasm|safetensors|jsonl)$|^(vocab[.]json|merges[.]txt)$/.test(f)), [
      'attnlab-gpt-scalar.wasm', 'attnlab-gpt-simd-mt.wasm', 'attnlab-gpt-simd.wasm', 'attnlab-scalar.wasm', 'attnlab-simd-mt.wasm',
      'attnlab-simd.wasm', 'merges.txt', 'model.safetensors', 'vocab.json',
    ], 'the main and GPT modules, the weights and the tokenizer; no training or referent module, no log');
    // Served plainly (single-threaded builds) and cross-origin isolated (the threaded ones, whose workers
    // import the module's script by URL).
    for (const headers of [{}, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }]) {
      const isolated = Object.keys(headers).length > 0;
      const server = await serve(join(site, 'dist'), 0, { headers });
      try {
        const { result, errors } = await visit(browser, `${server.url}/`);
        assert.deepEqual(errors, []);
        assert.ok(result, 'the page reported a result');
        assert.deepEqual(result.weights.slice(0, 3), [1, 0, 0]);
        assert.equal(result.layers, 4);
        assert.equal(result.nextWord, ' thyself');
        const builds = result.wasm.map((f) => f.replace(/-[\w-]{8}[.]wasm$/, ''));
        assert.deepEqual(builds, isolated ? ['attnlab-simd-mt', 'attnlab-gpt-simd-mt'] : ['attnlab-simd', 'attnlab-gpt-simd']);
        assert.ok(isolated ? result.threads >= 2 : result.threads === 1, `threads ${result.threads}`);
      } finally {
        await server.close();
      }
    }
  });

  // A bundler that inlines small assets as data: URLs (Vite's assetsInlineLimit, TOOLCHAIN.md 15) turns
  // the threaded build's 2.3 KB worker script into one. A worker from a data: URL cannot import the
  // module's script, and init() used to wait forever. On a cross-origin-isolated page both a no-config
  // Vite build and one that inlines the worker must start their threads.
  for (const [name, config] of [['no-config', null], ['worker-inlining', 'export default { build: { assetsInlineLimit: 100000 } };\n']]) {
    test(`a ${name} Vite build on a cross-origin-isolated page runs init() and init({ threads: 2 }) on threads`, async () => {
      const site = join(project, `vite-isolated-${name}`);
      run('mkdir', ['-p', site]);
      writeFileSync(join(site, 'index.html'), '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><script type="module" src="./main.js"></script></body></html>');
      if (config) writeFileSync(join(site, 'vite.config.js'), config);
      writeFileSync(join(site, 'main.js'), `
        import { init } from 'attnlab';
        try {
          const labs = [await init(), await init({ threads: 2 })];
          const weights = labs.map((lab) => Array.from(lab.scaledDotProductAttention(lab.randn(300, 64, 1), lab.randn(300, 64, 2),
            lab.randn(300, 64, 3), { causal: true }).weights.data.subarray(0, 600)));
          document.body.dataset.result = JSON.stringify({
            isolated: crossOriginIsolated, threads: labs.map((l) => l.threads), fallback: labs.map((l) => l.threadsFallback),
            same: weights[0].every((x, i) => x === weights[1][i]),
          });
        } catch (error) {
          console.error(String(error));
        }
        document.body.dataset.done = 'true';
      `);
      run('node', [vite, 'build', '--logLevel', 'error'], site);
      if (config) {
        const entry = readdirSync(join(site, 'dist/assets')).filter((f) => /^index-.*[.]js$/.test(f));
        assert.ok(entry.some((f) => readFileSync(join(site, 'dist/assets', f), 'utf8').includes('data:text/javascript;base64')),
          'the premise: the bundle starts the worker from a data: URL');
      }
      const server = await serve(join(site, 'dist'), 0, {
        headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
      });
      try {
        const { result, errors } = await visit(browser, `${server.url}/`);
        assert.deepEqual(errors, []);
        assert.equal(result.isolated, true);
        assert.deepEqual(result.fallback, [null, null]);
        assert.ok(result.threads[0] >= 2 && result.threads[1] === 2, `threads ${result.threads}`);
        assert.equal(result.same, true);
      } finally {
        await server.close();
      }
    });
  }

  test("runs under Vite's dev server, dependency pre-bundling and all", async () => {
    const site = viteApp('vite-dev');
    const server = spawn('node', [vite, '--host', '127.0.0.1', '--port', '0', '--force'], { cwd: site, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise((resolve, reject) => {
        let printed = '';
        server.stdout.on('data', (chunk) => {
          printed += chunk;
          const found = /http:\/\/127\.0\.0\.1:\d+\//.exec(printed.replace(/\x1b\[[0-9;]*m/g, ''));
          if (found) resolve(found[0]);
        });
        server.on('exit', (code) => reject(new Error(`vite exited (${code}): ${printed}`)));
      });
      checkResult(await visit(browser, url));
    } finally {
      server.kill();
    }
  });
});
