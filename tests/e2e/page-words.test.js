// The words of the lessons, checked on the built pages (issue 53, items 4, 5 and 9): a figure the page
// prints adds up as it says (step by step's sum of products, its rounding said); the translator's list
// of the words it reads holds the words it reads; counts agree with their nouns; a touch screen is told
// to tap; the top token "stays" when it does not change; a seed or a layer/head the page corrects is
// said, not corrected silently; one file is "it"; sentences are counted from 0 as the batch is.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DEFAULT_SENTENCE } from '../../site/src/lessons/cross-attention/settings.js';
import { openLesson, openSiteWithModel, SCREENSHOTS } from './lesson-page.js';

const number = (text) => Number(text.replace('−', '-'));

describe('the lessons\' words, on the built pages', () => {
  let setup;

  before(async () => {
    setup = await openSiteWithModel('ablation');
  });

  after(async () => {
    await setup?.site.close();
  });

  const open = (slug, query = '', options) => openLesson(setup.browser, `${setup.server.url}/lessons/${slug}.html${query}`, options);

  // Walks step by step's stepper to the scores step.
  async function toScores(page) {
    const scores = await page.evaluate(() => document.querySelector('attn-stepper').steps.findIndex((s) => s.id === 'scores'));
    const next = page.locator('attn-stepper').getByRole('button', { name: /next/i });
    while (await page.evaluate(() => document.querySelector('attn-stepper').index) < scores) await next.click();
  }

  test('step by step: a score\'s sum of products adds up as printed, within the rounding it says, to q·k computed here', async () => {
    const { page, problems } = await open('step-by-step');
    await toScores(page);
    await page.locator('attn-stepper attn-heatmap').last().locator('svg').first().hover();
    await page.waitForFunction(() => document.querySelector('.explain')?.textContent.startsWith('score['));
    const text = await page.textContent('.explain');
    const [, row, col, sum, total] = /^score\[(\d+)\]\[(\d+)\] = q_\d+·k_\d+ \(.*?\) = (.*) = (−?\d+\.\d{4})\. \(q and k are shown rounded to 2 decimals; the score uses their full values/.exec(text) ?? [];
    assert.ok(sum, text);
    const terms = sum.split(' + ').map((t) => t.split('×').map(number));
    const printed = terms.reduce((s, [a, b]) => s + a * b, 0);
    // Each factor is off by at most 0.005: the printed products can miss the score by this much, no more.
    const rounding = terms.reduce((s, [a, b]) => s + 0.005 * (Math.abs(a) + Math.abs(b)) + 0.005 ** 2, 0);
    assert.ok(Math.abs(printed - number(total)) <= rounding + 5e-5, `${printed} vs ${total}`);
    // The score itself: q_row · k_col from the Q and K the page holds, in double precision.
    const { q, k } = await page.evaluate(([r, c]) => {
      const { Q, K } = document.querySelector('attn-stepper').steps.find((s) => s.id === 'scores').tensors;
      const rowOf = (m, i) => Array.from(m.data.slice(i * m.cols, (i + 1) * m.cols));
      return { q: rowOf(Q, r), k: rowOf(K, c) };
    }, [Number(row), Number(col)]);
    const dot = q.reduce((s, x, t) => s + x * k[t], 0);
    assert.ok(Math.abs(dot - number(total)) <= 5e-5, `${dot} vs ${total}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('step by step on a touch screen: the scores step says to tap a cell, with no pointer or Tab key', async () => {
    const { page, problems } = await open('step-by-step', '', { phone: true });
    await toScores(page);
    await page.waitForFunction(() => document.querySelector('.explain')?.textContent.length > 0);
    assert.equal(await page.textContent('.explain'), 'Tap a cell of the scores to see its sum of products.');
    await page.locator('attn-stepper attn-heatmap').last().locator('svg').first().tap();
    await page.waitForFunction(() => document.querySelector('.explain')?.textContent.startsWith('score['));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('cross-attention: the words the model reads are the 16 it reads, the rest said apart; one word cut is "the last word was"', async () => {
    const eighteen = 'the old man reads a big book and the small cat sees the red car on the table';
    const { page, problems } = await open('cross-attention', `?sentence=${encodeURIComponent(eighteen)}`);
    assert.equal(await page.locator('.read-words .read-word').count(), 16);
    assert.equal(await page.textContent('.read-words .left-out'), 'Left out, past the 16 words it reads: the table.');
    await page.screenshot({ path: `${SCREENSHOTS}cross-attention-left-out.png`, fullPage: true });
    await page.getByLabel('English sentence').fill(eighteen.replace(/ table$/, ''));
    await page.waitForFunction(() => document.querySelectorAll('.read-words .read-word').length === 16 &&
      document.querySelector('.read-words .left-out')?.textContent.endsWith(': the.'));
    assert.match(await page.textContent('main'), /The model reads 16 words: the last word was left out\./);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('cross-attention: the introduction\'s example is the sentence the page opens with, translated as the intro says, with no warning', async () => {
    const { page, problems } = await open('cross-attention');
    assert.match(await page.textContent('main'), new RegExp(`“${DEFAULT_SENTENCE}”, becomes “le petit chat voit la voiture rouge”`));
    assert.match(await page.textContent('.feedback'), new RegExp(`“\u2068${DEFAULT_SENTENCE}\u2069” → “le petit chat voit la voiture rouge”`));
    assert.equal(await page.locator('.trust').isHidden(), true, 'no "Don’t trust this translation" under the intro\'s own example');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('knock a head out: when the top next token does not change, the page says it stays', async () => {
    const { page, problems } = await open('ablation');
    const prompt = await page.getByRole('textbox', { name: 'Prompt' }).inputValue();
    await page.close();
    // A head whose knock-out leaves the top token where it was, found with the package in Node.
    const { lab, model, tokenizer } = setup;
    const ids = tokenizer.encode(prompt);
    const top = (options) => {
      const p = lab.sample(model.forward(ids, { ...options, logits: 'last' }).logits.data, { temperature: 1 }).probabilities;
      return p.indexOf(Math.max(...p));
    };
    const before = top({});
    let kept = null;
    for (let layer = 0; layer < model.config.numLayers && !kept; layer++) {
      for (let head = 0; head < model.config.numHeads && !kept; head++) {
        if (top({ ablate: [{ layer, head }], ablation: 'zero' }) === before) kept = { layer, head };
      }
    }
    assert.ok(kept, 'some head leaves the top token as it is');
    const again = await open('ablation', `?heads=${kept.layer}.${kept.head}`);
    await again.page.waitForFunction(() => /knocked out/.test(document.querySelector('main').textContent));
    const readout = await again.page.textContent('main');
    assert.match(readout, /The top next token stays “[^”]+”, its probability going from [\d.]+% to [\d.]+%/);
    assert.doesNotMatch(readout, /goes from “([^”]+)” \([\d.]+%\) to “\1”/);
    assert.deepEqual(again.problems, []);
    assert.deepEqual(problems, []);
    await again.page.close();
  });

  test('a seed typed out of range is corrected and the box says so', async () => {
    const { page, problems } = await open('next-token');
    const seed = page.getByLabel('Seed');
    await seed.fill('1234567');
    await seed.dispatchEvent('change');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('seed') === '999999');
    assert.equal(await seed.inputValue(), '999999');
    assert.match(await page.textContent('main'), /A seed is a whole number from 0 to 999,999: using 999999 instead of “1234567”\./);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a link to a layer and head the model does not have: the page says which it shows instead', async () => {
    const { numLayers, numHeads } = setup.model.config;
    for (const slug of ['all-heads', 'kv-cache']) {
      const { page, problems } = await open(slug, `?layer=${numLayers + 2}&head=${numHeads + 5}`);
      assert.match(await page.textContent('.notices'), new RegExp(`This model has ${numLayers} layers of ${numHeads} heads: ` +
        `showing layer ${numLayers - 1}, head ${numHeads - 1} instead of layer ${numLayers + 2}, head ${numHeads + 5}\\.`));
      await page.waitForFunction((l) => new URLSearchParams(location.search).get('layer') === String(l), numLayers - 1);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  test('multi-head\'s trained section, linked to a layer the model lacks: the page says which layer it shows', async () => {
    const { numLayers } = setup.model.config;
    const { page, problems } = await open('multi-head', `?layer=${numLayers + 3}`);
    await page.getByRole('button', { name: /Load attnlab’s trained model/ }).click();
    await page.waitForFunction(() => document.querySelector('.trained-heads attn-heatmap')?.caption?.startsWith('Trained: layer'));
    assert.match(await page.textContent('.notices'),
      new RegExp(`This model has ${numLayers} layers: showing layer ${numLayers - 1} instead of layer ${numLayers + 3}\\.`));
    await page.waitForFunction((l) => new URLSearchParams(location.search).get('layer') === String(l), numLayers - 1);
    assert.equal(await page.evaluate(() => document.querySelector('.trained-heads attn-heatmap').caption), `Trained: layer ${numLayers - 1}, head 0`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('one file to save is "it"; token labels are explained where tokens are shown; sentences are counted from 0', async () => {
    const why = await open('why-attention');
    assert.match(await why.page.textContent('.code-file'), /^The program reads the file this page itself runs: .* \(save it beside your notebook\)\./);
    assert.deepEqual(why.problems, []);
    await why.page.close();
    const next = await open('next-token');
    assert.match(await next.page.textContent('.model-line'), /In the token labels, · is a space, ↵ a line break/);
    assert.deepEqual(next.problems, []);
    await next.page.close();
    const shapes = await open('shapes');
    assert.deepEqual(await shapes.page.getByLabel('Batch item').evaluate((s) => [...s.options].map((o) => o.textContent)), ['sentence 0', 'sentence 1']);
    assert.equal(await shapes.page.getByLabel(/^Sentence 0 /).count(), 1);
    assert.deepEqual(shapes.problems, []);
    await shapes.page.close();
  });
});
