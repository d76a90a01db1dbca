// "The induction circuit" in headless Chromium: no console error or serious axe violation, fits a phone;
// the K-composition, copying and knock-out numbers it shows are the package's (computed here in Node with
// the package's own calls); the seed changed with the keyboard alone remeasures; the Try-this is answered
// by a tap at 390 px with touch; every head's induction score is shown, heads within 0.01 of the highest are
// called a tie, and the head studied is the learner's choice. Screenshots: test-output/screenshots/.
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
  // (then both best) previous-token heads zeroed; with `chosen` (layer × heads + head), that head instead.
  const expected = (T, seed, chosen) => {
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
    if (chosen !== undefined) best = chosen;
    const knocked = (heads) => scores(heads.map((head) => ({ layer: 0, head }))).ind[best];
    const { pairs, baseline } = model.compositionScores();
    const pair = pairs.find((p) => p.from.layer === 0 && p.from.head === ranked[0] && p.to.layer === Math.floor(best / H) && p.to.head === best % H);
    // The processing table: prev → induction's K-composition ÷ the raw baseline, the layer-0 head the keys read most,
    // the induction head's copying score and the heads above it, under each processing (the package's calls).
    const processing = [[{}, {}], [{ foldLn: true }, { foldLn: true }], [{ foldLn: true, centreWriting: true }, { foldLn: true, centreWriting: true }],
      [{ foldLn: true, centreWriting: true }, { foldLn: true, centreWriting: true, centreUnembed: true }]].map(([c, o]) => {
      const into = model.compositionScores({ ...c, draws: 1 }).pairs.filter((p) => p.from.layer === 0 && p.to.layer === Math.floor(best / H) && p.to.head === best % H);
      const scores = Array.from(model.copyingScores(o).data);
      return [into.find((p) => p.from.head === ranked[0]).k / baseline, into.reduce((a, p) => (p.k > a.k ? p : a)).from.head,
        scores[best], scores.filter((x) => x > scores[best]).length];
    });
    return { layer: Math.floor(best / H), head: best % H, k: pair.k, baseline, processing,
      copying: model.headCircuit(Math.floor(best / H), best % H).copyingScore,
      knock: [intact.ind[best], knocked(ranked.slice(0, 1)), knocked(ranked.slice(0, 2))], induction: Array.from(intact.ind) };
  };
  const shown = (page) => page.evaluate(() => ({
    k: Number(document.querySelector('.kcomp-readout').dataset.pair),
    baseline: Number(document.querySelector('.kcomp-readout').dataset.baseline),
    copying: Number(document.querySelector('.copy-readout').dataset.copying),
    knock: document.querySelector('.knock').dataset.scores.split(',').map(Number),
    text: document.querySelector('.knock-readout').textContent,
    processing: JSON.parse(document.querySelector('.processing').dataset.rows),
    processingWords: document.querySelector('.processing-readout').textContent,
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
    got.processing.forEach((row, i) => row.forEach((x, j) => assert.ok(close(x, want.processing[i][j]), `processing row ${i}, column ${j}: ${x} vs ${want.processing[i][j]}`)));
    assert.match(got.processingWords, /under every processing|only with/);
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

  // Issue 51: L1H1 0.945, L1H0 0.938 and L1H3 0.935 are a tie, not "the strongest induction head is L1H1".
  test('every head\'s induction score is shown, the tie is called a tie, and the learner picks the head to knock out', async () => {
    const { page, problems } = await openLesson(browser, url);
    const want = expected(30, 0);
    const map = await heatmapData(page, 'Induction score of every head');
    assert.ok(map.data.every((x, i) => Math.abs(x - want.induction[i]) < 1e-6), 'every head\'s score');
    const found = await page.textContent('.induction-found');
    assert.match(found, /L1H1’s, 0\.945, but L1H0 \(0\.938\) and L1H3 \(0\.935\) are within 0\.01 of it: a tie/);
    assert.doesNotMatch(found, /strongest induction head/);
    // The copying score's processing said, with the numbers for L1H1: 0.865 raw, 0.79 folded and centred
    // (L0H2's 0.82 higher), −0.276 with the unembedding centred too.
    const copyText = await page.textContent('.copy-readout');
    assert.match(copyText, /copying score 0\.8[67]: .*no LayerNorm folded, nothing centred.*centred, 0\.79 \(1 head higher\); .*as well, [−-]0\.28 \(/);
    const chooser = page.locator('label:has-text("Induction head to study") select');
    const H = model.config.numHeads;
    assert.equal(await chooser.locator('option').count(), (model.config.numLayers - 1) * H);
    await chooser.selectOption('1:3');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('head') === '3');
    assert.equal(await urlParam(page, 'layer'), '1');
    const l1h3 = expected(30, 0, 1 * H + 3);
    const got = await shown(page);
    got.knock.forEach((x, i) => assert.ok(close(x, l1h3.knock[i]), `L1H3 knock-out ${i}: ${x} vs ${l1h3.knock[i]}`));
    assert.match(await page.textContent('.knock th:last-child'), /^L1H3’s induction score/);
    assert.ok(await heatmapData(page, 'L1H3’s attention'));
    await page.locator('.induction-found').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}induction-circuit-ties.png`, fullPage: true });
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
