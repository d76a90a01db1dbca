// The cross-attention lesson on the trained translator, in headless Chromium: it loads the
// encoder–decoder module (not the GPT's), shows the translation and the alignment the package computes
// in Node for the same sentence, says beside the controls what it did with an empty box, unknown words
// and a head the model lacks, and picks a French position by a real tap at 390 px.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { init } from '../../web/lib/all.js';
import { checkLessonLayout, heatmapData, openLesson, openSite, SCREENSHOTS } from './lesson-page.js';

const LESSON = 'cross-attention';
// The lesson on a phone: 390 px wide, touch.
const openPhone = async (site) => (await openLesson(site.browser, `${site.server.url}/lessons/${LESSON}.html`, { phone: true })).page;
const hint = (page) => page.$eval('.controls .field-hint[role="status"]', (n) => (n.hidden ? '' : n.textContent));

describe('the cross-attention lesson runs the trained translator', () => {
  let site;
  let model;

  before(async () => {
    site = await openSite();
    ({ model } = await (await init({ simd: true })).loadBuiltinTranslator());
  });

  after(async () => {
    await site?.close();
  });

  test('the translation and the alignment are the package\'s; no GPT module; no console error, axe, a phone', async () => {
    const url = `${site.server.url}/lessons/${LESSON}.html`;
    const opened = await openLesson(site.browser, url);
    const { page, wasm } = opened;
    assert.ok(wasm.some((f) => f.startsWith('attnlab-seq2seq-')), `the encoder–decoder module was fetched (${wasm})`);
    assert.ok(!wasm.some((f) => f.startsWith('attnlab-gpt-')), 'not the GPT module');
    const expected = model.translate('the small cat sees the red car');
    const line = await page.$eval('.feedback', (n) => n.textContent);
    assert.ok(line.includes(`→ “${expected.text}”`), line);
    const shown = await heatmapData(page, 'Layer 1, head 2: cross-attention weights');
    const want = expected.crossAttention[1][2];
    assert.equal(shown.rows, want.rows);
    assert.equal(shown.cols, want.cols);
    shown.data.forEach((v, i) => assert.ok(Math.abs(v - want.data[i]) < 1e-6, `weight ${i}: ${v} vs ${want.data[i]}`));
    assert.deepEqual(shown.colLabels, expected.sourceTokens);
    await checkLessonLayout(site.browser, opened, url, `${SCREENSHOTS}${LESSON}`);
  });

  test('an emptied box, an unknown word and a head the model lacks: each said beside its control', async () => {
    const { page, problems } = await openLesson(site.browser, `${site.server.url}/lessons/${LESSON}.html?layer=5&head=9`);
    const headNote = await page.$eval('.controls label:nth-of-type(3) .field-hint', (n) => n.textContent);
    assert.equal(headNote, 'The model has 2 layers of 4 heads: showing layer 1, head 2 instead of layer 5, head 9.');
    const box = page.locator('input[type="text"]');
    await box.fill('');
    await page.waitForFunction(() => document.querySelector('.controls .field-hint[role="status"]')?.textContent.startsWith('No words'));
    assert.equal(await hint(page), 'No words in the box: translating “the small cat sees the red car” instead.');
    await box.fill('the dragon sees the cat');
    await page.waitForFunction(() => document.querySelector('.feedback').textContent.includes('dragon'));
    assert.match(await hint(page), /^Not in the model’s vocabulary, read as <unk> \(unknown\): “\u2068dragon\u2069”\.$/);
    assert.ok((await page.$eval('.feedback', (n) => n.textContent)).includes(model.translate('the dragon sees the cat').text));
    // A fragment outside the grammar: the model repeats a word (as the package says it does), and the page says why.
    const fragment = model.translate('the dog').text.split(' ');
    assert.deepEqual(fragment.slice(0, 4), ['le', 'chien', 'chien', 'chien'], 'the package\'s translation of a fragment');
    await box.fill('the dog');
    await page.waitForFunction(() => document.querySelector('.controls .field-hint[role="status"]')?.textContent.includes('in a row'));
    assert.equal(await hint(page), `The model wrote “chien” ${fragment.filter((w) => w === 'chien').length} times in a row: ` +
      'it learned whole sentences of its grammar only (a subject, a verb, an object, such as “the small cat sees the red car”); ' +
      'on other text it has nothing to go on and keeps writing a likely word.');
    await box.fill('a cat sees the dog');
    await page.waitForFunction(() => document.querySelector('.feedback').textContent.includes('un chat voit le chien'));
    assert.equal(await hint(page), '', 'a sentence of the grammar: nothing to say');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('outside its grammar the page says where and what it expected and which words it ignored; a sentence of it, nothing', async () => {
    const { page, problems } = await openLesson(site.browser, `${site.server.url}/lessons/${LESSON}.html`);
    const box = page.locator('input[type="text"]');
    const trust = () => page.$eval('.trust', (n) => (n.hidden ? '' : n.textContent));
    const marked = (kind) => page.$$eval(`.read-words mark.${kind}`, (ns) => ns.map((n) => n.firstChild.textContent));
    const quoted = (words) => words.map((w) => `“\u2068${w}\u2069”`).join(', ');
    // By hand from the grammar (subject, verb, object …): "is" is no verb, "children" no noun; the
    // words no French word looked at are the package's (computed in Node). Words are counted from 0, as
    // everywhere on the site: "is" is word 3 of "a blue car is …".
    const cases = [
      { sentence: 'a blue car is near the big tree', unknown: ['is', 'near', 'tree'], at: 'is',
        says: ['leaves that pattern at word 3, “\u2068is\u2069”: there it expected a verb agreeing with a singular subject (sees, eats, likes, …).'] },
      { sentence: 'the children like the white cats', unknown: ['children'], at: 'children',
        says: ['leaves that pattern at word 1, “\u2068children\u2069”: there it expected an adjective French puts before the noun ' +
          '(small, big, good, …), or an adjective French puts after the noun (red, black, green, …), or a noun (cat, cats, dog, …).'] },
    ];
    for (const c of cases) {
      await box.fill(c.sentence);
      await page.waitForFunction((s) => document.querySelector('.feedback').textContent.includes(s), c.sentence);
      const text = await trust();
      assert.ok(text.startsWith('Don’t trust this translation. The model learned only sentences built like'), text);
      for (const part of c.says) assert.ok(text.includes(part), `${text}\n— lacks —\n${part}`);
      assert.ok(text.includes(`It does not know ${quoted(c.unknown)}`), text);
      const ignored = model.translate(c.sentence).unattendedWords.map((w) => w.word);
      assert.ok(ignored.length > 0);
      assert.ok(text.includes(`No French word looked mostly at ${quoted(ignored)}`), text);
      const probability = Math.exp(model.translate(c.sentence).logProb).toFixed(3);
      assert.ok(text.endsWith(`Its probability (${probability}) says how sure the model is of the French it wrote, ` +
        'not whether that French translates your sentence.'), text);
      assert.deepEqual(await marked('unknown'), c.unknown);
      assert.deepEqual(await marked('off-grammar'), [c.at]);
    }
    await box.fill('a cat sees the dog');
    await page.waitForFunction(() => document.querySelector('.feedback').textContent.includes('un chat voit le chien'));
    assert.equal(await trust(), '', 'a sentence of the grammar: no warning');
    assert.deepEqual(await page.$$eval('.read-words mark', (ns) => ns.length), 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the words the model knows: 77 buttons by kind, each adds its word, by touch at 390 px and by keyboard', async () => {
    const page = await openPhone(site);
    const box = page.locator('input[type="text"]');
    await box.fill('');
    await page.locator('.known-words summary').tap();
    const chips = await page.$$eval('.word-chip', (ns) => ns.map((n) => n.textContent));
    assert.deepEqual([...chips].sort(), model.sourceTokenizer.vocabulary.slice(4).slice().sort(), 'every source word, once');
    for (const word of ['the', 'cat', 'sees', 'the', 'dog']) {
      await page.locator('.word-chip', { hasText: new RegExp(`^${word}$`) }).first().tap();
    }
    assert.equal(await box.inputValue(), 'the cat sees the dog');
    await page.waitForFunction(() => document.querySelector('.feedback').textContent.includes('le chat voit le chien'));
    // Nothing spills past the phone's width.
    const widest = await page.$eval('.known-words', (n) => n.scrollWidth);
    assert.ok(widest <= 390, `the word list is ${widest} px wide`);
    // Keyboard: a focused word button and Enter adds the word; the focus stays on the button.
    const withChip = page.locator('.word-chip', { hasText: /^with$/ });
    await withChip.focus();
    await page.keyboard.press('Enter');
    assert.equal(await box.inputValue(), 'the cat sees the dog with');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'with');
    await page.waitForFunction(() => document.querySelector('.trust')?.textContent.includes('stops too early'));
    await page.close();
  });

  test('at 390 px a tap on a French position shows its weights beside the English words', async () => {
    const page = await openPhone(site);
    const view = page.locator('attn-head-view');
    await view.scrollIntoViewIfNeeded();
    // Keys (7 English words) are drawn first, then the 8 French positions; position 5 reads "la", writes "voiture".
    const target = await page.evaluateHandle(() => document.querySelector('attn-head-view').shadowRoot.querySelectorAll('text.token')[7 + 5]);
    const box = await target.boundingBox();
    await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
    const shown = await page.evaluate(() => {
      const root = document.querySelector('attn-head-view').shadowRoot;
      return { active: root.querySelector('.active-token')?.textContent,
        values: [...root.querySelectorAll('text:not(.token)')].map((t) => t.textContent).filter(Boolean) };
    });
    assert.equal(shown.active, 'la → voiture');
    const row = model.translate('the small cat sees the red car').crossAttention[1][2];
    assert.deepEqual(shown.values, Array.from(row.data.slice(5 * row.cols, 6 * row.cols), (w) => w.toFixed(2)));
    await page.close();
  });
});
