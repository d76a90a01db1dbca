// The windows-and-sinks lesson's DOM-free parts (site/src/lessons/windows-and-sinks/parts.js) on attnlab-kjv-llama:
// the program's passage cuts hold the tokens they promise; the window cache and the sliding-window mask agree to
// float rounding (RoPE depends only on distance, and both read the last w keys); the sinks cache with s = 0 is the
// window cache; the caches hold what their policies say; the loss is −log softmax in float64; the block and
// running means and the Try-this check read the numbers as the page does.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';

import { HELD_OUT as PASSAGE } from '../../site/src/held-out-text.js';
import { blockMeans, CACHES, CacheRun, checkHighest, LENGTHS, loadMaskModel, maskConfig, mean, PASSAGE_CHARS, runningMeans,
  tokenLoss } from '../../site/src/lessons/windows-and-sinks/parts.js';
import { lab as loadLab } from './helpers.js';

let lab, model, tokenizer, files, ids;
before(async () => {
  lab = await loadLab(true);
  ({ model, tokenizer } = await lab.loadBuiltinLlama());
  const dir = new URL('../../web/models/kjv-llama/', import.meta.url);
  files = { 'config.json': readFileSync(new URL('config.json', dir), 'utf8'),
    'model.safetensors': readFileSync(new URL('model.safetensors', dir)), 'tokenizer.json': readFileSync(new URL('tokenizer.json', dir)) };
  ids = Array.from(tokenizer.encode(PASSAGE));
});

test('each length\'s cut of the passage is whole lines whose tokens begin the passage\'s', () => {
  assert.ok(ids.length >= Math.max(...LENGTHS));
  for (const n of LENGTHS) {
    const cut = PASSAGE.slice(0, PASSAGE_CHARS[n]);
    assert.ok(cut.endsWith('\n'), `${n}: the cut ends a line`);
    const part = Array.from(tokenizer.encode(cut));
    assert.ok(part.length >= n, `${n}: the cut holds ${part.length} tokens`);
    assert.deepEqual(part.slice(0, n), ids.slice(0, n));
    const shorter = PASSAGE.slice(0, PASSAGE.lastIndexOf('\n', PASSAGE_CHARS[n] - 2) + 1);
    assert.ok(tokenizer.encode(shorter).length < n, `${n}: the cut is the shortest such`);
  }
});

test('the mask model is the same weights with Mistral\'s sliding_window', async () => {
  assert.deepEqual(JSON.parse(maskConfig(files['config.json'], 32)).sliding_window, 32);
  const { model: masked, tokenizer: t } = await loadMaskModel(lab, files, 32);
  assert.equal(masked.config.slidingWindow, 32);
  assert.deepEqual(masked.tensor('model.norm.weight').data, model.tensor('model.norm.weight').data);
  // in a window's reach, the mask changes nothing: the first 32 tokens' logits equal the full forward's
  const a = masked.forward(ids.slice(0, 32)).logits.data, b = model.forward(ids.slice(0, 32)).logits.data;
  assert.ok(a.every((x, i) => Math.abs(x - b[i]) <= 1e-4));
  masked.dispose();
  t.dispose();
});

test('window and mask agree to rounding, s = 0 is the window cache, and each cache holds what its policy says', async () => {
  const window = 24, n = 300;
  const { model: masked, tokenizer: t } = await loadMaskModel(lab, files, window);
  const run = new CacheRun({ model, maskModel: masked, ids: ids.slice(0, n), sinks: 0, window });
  while (!run.finished) run.step();
  assert.equal(run.done, n - 1);
  for (let i = 0; i < n - 1; i++) {
    assert.ok(Math.abs(run.losses.window[i] - run.losses.mask[i]) < 1e-3, `token ${i}`);
    assert.equal(run.losses.sinks[i], run.losses.window[i]);
  }
  // the first `window` predictions see every token so far in every cache: the same as the full forward
  const logits = model.forward(ids.slice(0, window)).logits;
  for (let i = 0; i < window; i++) assert.ok(Math.abs(run.losses.window[i] - tokenLoss(logits.data, i, logits.cols, ids[i + 1])) < 1e-3);
  const per = model.config.kvCacheBytesPerToken;
  assert.deepEqual(Object.fromEntries(CACHES.map(({ id }) => [id, run.bytes[id].now])),
    { full: ((n - 2) % model.config.maxPositionEmbeddings + 1) * per, window: window * per, sinks: window * per, mask: (n - 1) * per });
  assert.deepEqual(Array.from(run.sessions.sinks.cachedTokens()), Array.from({ length: window }, (_, i) => n - 1 - window + i));
  run.dispose();
  masked.dispose();
  t.dispose();
});

test('the loss, the block and running means, and the Try-this check', () => {
  const logits = [1, 2, 3];
  assert.ok(Math.abs(tokenLoss(logits, 0, 3, 2) - (Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3)) - 3)) < 1e-12);
  const losses = [1, 2, 3, 4, 5];
  assert.deepEqual(blockMeans(losses, 5, 2), [[2, 1.5], [4, 3.5], [5, 5]]);
  assert.deepEqual(runningMeans(losses, 5, 2), [[2, 1.5], [4, 2.5], [5, 3]]);
  assert.equal(mean(losses), 3);
  const means = { full: 3.1, window: 3.5, sinks: 3.3, mask: 3.5 + 1e-6 };
  assert.equal(checkHighest('window', means).correct, true);
  assert.match(checkHighest('window', means).message, /tied with the sliding-window mask/);
  assert.equal(checkHighest('full', means).correct, false);
});
