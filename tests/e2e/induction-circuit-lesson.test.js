// "The induction circuit" in headless Chromium: no console error or serious axe violation, fits a phone;
// the K-composition, copying and knock-out numbers it shows are the package's (computed here in Node with
// the package's own calls); the seed changed with the keyboard alone remeasures; the Try-this is answered
// by a tap at 390 px with touch. Screenshots: test-output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { checkLessonLayout, heatmapData, openLesson, openSiteWithModel, SCREENSHOTS, urlParam } from './lesson-page.js';

describe('the induction circuit lesson', () => {
  let site, browser, lab, model, url;

  before(async () => {
    ({ site, browser, url, lab, model } = await openSiteWithModel('induction-circuit'));
  });
  after(async () => {
    await site?.close();
  });

  // What the page should show for a length and seed, from the package: the layer-0 head with the largest
  // previous-token weight, the later head with the largest induction score, and that score with the first
  // (then both best) previous-token heads zeroed.
  const expected = (T, seed) => {
    const { numLayers: L, numHeads: H, vocabSize } = model.config;
    const scores = (ablate) => {
      const prev = new Float64Array(L * H), ind = new Float64Array(L * H);
      for (let s = 0; s < 4; s++) {
        const ids = lab.repeatedRandomTokens(T, { low: 256, high: vocabSize - 1, seed: seed + s });
        model.forward(ids, { attention: true, ...(ablate ? { ablate, ablation: 'zero' } : {}) }).attention.forEach((heads, l) => heads.forEach((a, h) => {
          for (let i = 1; i < 2 * T; i++) prev[l * H + h] += a.data[i * a.cols + i - 1] / (2 * T - 1) / 4;
          for (let i = T; i < 2 * T; i++) ind[l * H + h] += a.data[i * a.cols + i - T + 1] / T / 4;
        }));
      }
      return { prev, ind };
    };
    const intact = scores();
    const ranked = Array.from({ length: H }, (_, h) => h).sort((a, b) => intact.prev[b] - intact.prev[a]);
    let best = H;
    for (let i = H; i < L * H; i++) if (intact.ind[i] > intact.ind[best]) best = i;
    const knocked = (heads) => scores(heads.map((head) => ({ layer: 0, head }))).ind[best];
    const { pairs, baseline } = model.compositionScores();
    const pair = pairs.find((p) => p.from.layer === 0 && p.from.head === ranked[0] && p.to.layer === Math.floor(best / H) && p.to.head === best % H);
    return { layer: Math.floor(best / H), head: best % H, k: pair.k, baseline,
      copying: model.headCircuit(Math.floor(best / H), best % H).copyingScore,
      knock: [intact.ind[best], knocked(ranked.slice(0, 1)), knocked(ranked.slice(0, 2))] };
  };
  const shown = (page) => page.evaluate(() => ({
    k: Number(document.querySelector('.kcomp-readout').dataset.pair),
    baseline: Number(document.querySelector('.kcomp-readout').dataset.baseline),
    copying: Number(document.querySelector('.copy-readout').dataset.copying),
    knock: document.querySelector('.knock').dataset.scores.split(',').map(Number),
    text: document.querySelector('.knock-readout').textContent,
  }));
  const close = (a, b) => Math.abs(a - b) < 1e-5;

  test('no console error, no serious axe violation, fits a phone', async () => {
    const { page, problems } = await openLesson(browser, url);
    await checkLessonLayout(browser, { page, problems }, url, `${SCREENSHOTS}induction-circuit`);
  });

  test('the numbers shown are the package\'s; the induction stripe is the induction head\'s attention', async () => {
    const { page, problems } = await openLesson(browser, url);
    const want = expected(30, 0);
    const got = await shown(page);
    assert.ok(close(got.k, want.k) && close(got.baseline, want.baseline), JSON.stringify({ got, want }));
    assert.ok(close(got.copying, want.copying), `copying ${got.copying} vs ${want.copying}`);
    got.knock.forEach((x, i) => assert.ok(close(x, want.knock[i]), `knock-out ${i}: ${x} vs ${want.knock[i]}`));
    assert.ok(got.text.includes(want.knock[0].toFixed(2)) && got.text.includes(want.knock[1].toFixed(2)), got.text);
    const stripe = await heatmapData(page, `L${want.layer}H${want.head}’s attention`);
    const ids = lab.repeatedRandomTokens(30, { low: 256, high: model.config.vocabSize - 1, seed: 0 });
    const a = model.forward(ids, { attention: true, logits: 'none' }).attention[want.layer][want.head];
    assert.equal(stripe.rows, 60);
    assert.ok(stripe.data.every((x, i) => Math.abs(x - a.data[i]) < 1e-6));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('keyboard alone: a new seed typed into its box remeasures the knock-out', async () => {
    const { page, problems } = await openLesson(browser, url);
    await page.focus('label:has-text("Seed") input');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('5');
    await page.keyboard.press('Tab');  // change fires as the focus leaves
    await page.waitForFunction(() => new URLSearchParams(location.search).get('seed') === '5');
    assert.equal(await urlParam(page, 'seed'), '5');
    const want = expected(30, 5);
    const got = await shown(page);
    got.knock.forEach((x, i) => assert.ok(close(x, want.knock[i]), `seed 5, knock-out ${i}: ${x} vs ${want.knock[i]}`));
    // the Try-this by keyboard: Tab to Check, Enter
    await page.focus('label:has-text("Layer-0 head") select');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    assert.match(await page.textContent('.exercise [role=status]'), /^(Yes|Not quite)/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('390 px with touch: the Try-this accepts only the layer-0 head the induction head\'s keys read most', async () => {
    const { page, problems } = await openLesson(browser, url, { phone: true });
    const { layer, head } = expected(30, 0);
    const { pairs } = model.compositionScores();
    const into = pairs.filter((p) => p.from.layer === 0 && p.to.layer === layer && p.to.head === head).sort((a, b) => b.k - a.k);
    const select = page.locator('label:has-text("Layer-0 head") select');
    await select.selectOption(String(into[1].from.head));
    await page.tap('.exercise button');
    assert.match(await page.textContent('.exercise [role=status]'), /^Not quite/);
    await select.selectOption(String(into[0].from.head));
    await page.tap('.exercise button');
    assert.match(await page.textContent('.exercise [role=status]'), new RegExp(`^Yes: L0H${into[0].from.head}`));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
