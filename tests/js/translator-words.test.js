// The cross-attention lesson's words about its translator (issue 53, items 4 and 9): the introduction's
// example is the model's own translation of the page's sentence, one the page itself trusts (it used to
// quote "the red car", which the page then warned about); and a verdict about one word says "it", a cut
// of one word says "word … was".
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { DEFAULT_SENTENCE } from '../../site/src/lessons/cross-attention/settings.js';
import { lastLeftOut } from '../../site/src/dom.js';
import { trustVerdict } from '../../site/src/lessons/cross-attention/translator-trust.js';
import { lab as loadLab } from './helpers.js';

test('the introduction\'s example is the page\'s sentence as the model translates it, with nothing to distrust', async () => {
  const source = readFileSync(new URL('../../site/src/lessons/cross-attention/lesson.js', import.meta.url), 'utf8');
  const intro = source.slice(source.indexOf('intro: ['), source.indexOf('formula:')).replace(/' \+\s*'/g, '');
  const [, english, french] = /“([^”]+)”, becomes “([^”]+)”/.exec(intro);
  assert.equal(english, DEFAULT_SENTENCE, 'the sentence the page opens with');
  const lab = await loadLab(true);
  const { model } = await lab.loadBuiltinTranslator();
  const t = model.translate(english);
  assert.equal(t.text, french);
  assert.equal(trustVerdict(t, DEFAULT_SENTENCE), '', 'the page raises no warning about its own example');
  assert.notEqual(trustVerdict(model.translate('the red car'), DEFAULT_SENTENCE), '', 'a fragment is warned about');
});

test('one word is "it", one word cut is "the last word was"', () => {
  const base = { sourceTokens: ['the', 'zebra', 'sees', 'the', 'cat'], grammar: null, truncated: null, logProb: -1 };
  const one = trustVerdict({ ...base, unknownWords: ['zebra'], unattendedWords: [{ word: 'zebra' }] }, DEFAULT_SENTENCE);
  assert.match(one, /It does not know “\u2068zebra\u2069”: it read it as “unknown”\./);
  assert.match(one, /has probably left it out\./);
  const two = trustVerdict({ ...base, unknownWords: ['zebra', 'gnu'], unattendedWords: [{ word: 'zebra' }, { word: 'gnu' }] }, DEFAULT_SENTENCE);
  assert.match(two, /it read each as “unknown”\./);
  assert.match(two, /has probably left them out\./);
  const cut = trustVerdict({ ...base, unknownWords: [], unattendedWords: [], truncated: { kept: 16, dropped: 1 } }, DEFAULT_SENTENCE);
  assert.match(cut, /It reads 16 words at most: the last word was not translated\./);
  assert.equal(lastLeftOut(1, 'character'), 'the last character was left out');
  assert.equal(lastLeftOut(3, 'word'), 'the last 3 were left out');
});
