// Hostile sentences and links against the site, under its Content-Security-Policy: markup, script
// URLs, 10,000-character strings, bidi overrides, zero-width and astral characters, lone surrogates,
// NUL, whitespace, punctuation and prototype names typed into every sentence box and put in links;
// links with numbers out of range or malformed, repeated and unknown keys, broken percent-encoding
// and a 100 KB query. Whatever comes in: nothing runs, nothing is injected, the learner's text is
// shown as text, the numbers stay numbers, and every correction of a link is said on the page.
// (site.test.js covers multi-head's heads/dModel/seed/mask corrections and one markup sentence.)
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { headerPolicy } from '../../site/csp.js';
import { init } from '../../web/index.js';
import { launch } from './browser.js';
import { assertHealthy, DIST, inspect, openStrict, serveStrict, settle, strictPage, takeViolations } from './strict-page.js';

const CAT = 'the cat sat on the mat';

// `tokens`, when given, is what the page must show instead of the package's tokenize(text).
const SENTENCES = [
  { text: '<img src=x onerror=alert(1)>' },
  { text: '<script>alert(1)</script><b onmouseover=alert(1)>x</b>' },
  { text: '"><svg onload=alert(1)>' },
  { text: "'><iframe src=javascript:alert(1)></iframe>" },
  { text: 'javascript:alert(1)' },
  { text: '{{constructor.constructor("alert(1)")()}} ${alert(1)}' },
  { text: 'x'.repeat(10000) },
  { text: 'word '.repeat(2000) },
  { text: 'the price is \u202E0.99 $ and it is tired' },  // right-to-left override, never closed
  { text: 'a\u200Db \u200C\u200B zero\u2060width \uFEFF' },
  { text: '😀 👩‍👩‍👧 𝔸𝕥𝕥𝕖𝕟𝕥𝕚𝕠𝕟 🇺🇳' },
  // Half an emoji (only a script can put one in a text box): shown as U+FFFD, never merged with its neighbour.
  { text: '\uD83D lone \uDE00', tokens: ['\uFFFD', 'lone', '\uFFFD'], byScript: true },
  { text: 'nul\u0000char \u0000' },
  { text: ' \t  \t ' },
  { text: ' \u00A0\u3000 ' },
  { text: '!?.,;:()[]{}<>"\'`~@#%^&*-_=+|\\/' },
  { text: 'constructor __proto__ toString valueOf hasOwnProperty' },
  { text: 'NaN Infinity -Infinity null' },  // tokens are lower-cased: no “NaN” on the page
];

// Every sentence box of the site: which text input on the page, which list of token chips shows
// its tokens (positions has none: its first heatmap is labelled with them), the page's cap on
// tokens and the sentence used when the box holds no words.
const BOXES = [
  { slug: 'self-attention', input: 0, chips: 0, limit: 32, fallback: CAT },
  { slug: 'step-by-step', input: 0, chips: 0, limit: 10, fallback: CAT },
  { slug: 'multi-head', input: 0, chips: 0, limit: 32, fallback: CAT },
  // The translator reads its own vocabulary's words (an unknown one is named under the box): no token
  // list to compare, the page must stay healthy and keep learner text isolated.
  { slug: 'cross-attention', input: 0, translator: true, maxLength: 120 },
  { slug: 'masking', input: 0, chips: 0, limit: 32, fallback: CAT },
  { slug: 'positions', input: 0, heatmap: 'Original order', limit: 32, fallback: 'the cat sat' },
  { slug: 'encoder', input: 0, chips: 0, limit: 32, fallback: CAT },
];

// What a link's `sentence` becomes: at most 200 UTF-16 units, cut between characters.
const cut200 = (s) => (s.length <= 200 ? s : s.slice(0, /[\uD800-\uDBFF]/.test(s[199]) ? 199 : 200));

// True when every bidi embedding or override in `text` sits inside an isolate (FSI/LRI/RLI … PDI)
// that is closed, so it cannot reorder the text around it.
function bidiContained(text) {
  const open = [];
  for (const c of text) {
    if ('\u2066\u2067\u2068'.includes(c)) open.push('isolate');
    else if ('\u202A\u202B\u202D\u202E'.includes(c)) {
      if (!open.includes('isolate')) return false;
      open.push('embedding');
    } else if (c === '\u202C' && open.at(-1) === 'embedding') open.pop();
    else if (c === '\u2069') while (open.length && open.pop() !== 'isolate');
  }
  return open.length === 0;
}

// The tokens a box shows, as the page holds them (JSON keeps lone surrogates and NUL exact), and
// whether any chip holds more than text.
const shownTokens = (page, box) => page.evaluate(({ chips, heatmap }) => {
  if (heatmap) {
    const map = [...document.querySelectorAll('attn-heatmap')].find((h) => String(h.caption).startsWith(heatmap));
    return { json: JSON.stringify(map.rowLabels), markup: false };
  }
  const items = [...document.querySelectorAll('.tokens')[chips].children];
  return { json: JSON.stringify(items.map((li) => li.textContent)), markup: items.some((li) => li.children.length > 0) };
}, box);

describe('hostile input', () => {
  let server;
  let browser;
  let lab;
  const expectedTokens = (text, box) => {
    const tokens = lab.tokenize(text);
    return (tokens.length ? tokens : lab.tokenize(box.fallback)).slice(0, box.limit);
  };

  before(async () => {
    assert.ok(existsSync(`${DIST}index.html`), 'site/dist is missing: run scripts/build-site.sh (scripts/test.sh does)');
    server = await serveStrict();
    browser = await launch();
    lab = await init({ simd: true });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const box of BOXES) {
    test(`${box.slug}: hostile sentences typed into box ${box.input} are shown as text and computed`, async () => {
      const { page, problems } = await openStrict(browser, `${server.url}/lessons/${box.slug}.html`);
      const input = page.locator('input[type="text"]').nth(box.input);
      for (const { text, tokens, byScript } of SENTENCES) {
        const where = `${box.slug} box ${box.input} ← ${JSON.stringify(text.slice(0, 40))}`;
        if (byScript) {  // code unit by code unit: a lone surrogate survives no other route
          await input.evaluate((node, units) => {
            node.value = String.fromCharCode(...units);
            node.dispatchEvent(new Event('input', { bubbles: true }));
          }, Array.from({ length: text.length }, (_, i) => text.charCodeAt(i)));
        } else {
          await input.fill(text);  // as a paste: the box keeps its first 200 characters (maxlength)
        }
        const typed = byScript ? text : text.slice(0, box.maxLength ?? 200);
        assert.equal(JSON.parse(await input.evaluate((node) => JSON.stringify(node.value))), typed, `${where}: the box changed the text`);
        await settle(page);
        if (!box.translator) {
          const shown = await shownTokens(page, box);
          assert.deepEqual(JSON.parse(shown.json), tokens ?? expectedTokens(typed, box), `${where}: tokens`);
          assert.ok(!shown.markup, `${where}: a token chip holds markup`);
        }
        assertHealthy(assert, await inspect(page), where);
        const ownText = await page.$$eval('.explain, .feedback, .field-hint', (ps) => ps.map((p) => p.textContent));
        for (const t of ownText) assert.ok(bidiContained(t), `${where}: learner text reorders “${t}”`);
      }
      problems.push(...await takeViolations(page));
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  test('step by step: a bidi override in a word cannot reorder the explanation of a score', async () => {
    const sentence = '\u202Eab \u202Ecd \u202Eef gh';
    const { page, problems } = await openStrict(browser, `${server.url}/lessons/step-by-step.html?sentence=${encodeURIComponent(sentence)}`);
    const scores = await page.evaluate(() => document.querySelector('attn-stepper').steps.findIndex((s) => s.id === 'scores'));
    const next = page.locator('attn-stepper').getByRole('button', { name: /next/i });
    for (let i = 0; i < scores; i++) await next.click();
    await page.locator('attn-stepper attn-heatmap').last().locator('svg').first().hover();
    await page.waitForFunction(() => document.querySelector('.explain')?.textContent.startsWith('score['));
    const explanation = await page.textContent('.explain');
    assert.ok(bidiContained(explanation), explanation);
    assert.match(explanation, /= −?\d+\.\d{4}\. \(q and k are shown rounded/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('hostile sentences in a link are read as text, cut at 200 characters with a notice', async () => {
    const box = BOXES[0];
    const linked = [...SENTENCES.filter((s) => !s.tokens), { text: 'a' + '😀'.repeat(150) }, { text: 'line\nbreak\r\ntab\tend' }];
    const { page, problems, visit } = await strictPage(browser);
    for (const { text } of linked) {
      const where = `self-attention?sentence=${JSON.stringify(text.slice(0, 40))}`;
      await visit(`${server.url}/lessons/self-attention.html?sentence=${encodeURIComponent(text)}`);
      const state = cut200(text);
      const seen = await inspect(page);
      assertHealthy(assert, seen, where);
      assert.deepEqual(seen.notices, text.length > 200 ? ['“sentence” in the link was longer than 200 characters and was cut.'] : [], where);
      assert.deepEqual(JSON.parse((await shownTokens(page, box)).json), expectedTokens(state, box), where);
      const { value, param } = await page.evaluate(() => ({
        value: document.querySelector('input[type="text"]').value,
        param: new URLSearchParams(location.search).get('sentence'),
      }));
      assert.equal(value, state.replace(/[\r\n]/g, ''), `${where}: the box shows the sentence`);  // a text box drops line breaks
      assert.equal(param, state, `${where}: the link keeps the sentence`);
      problems.push(...await takeViolations(page));
      assert.deepEqual(problems, [], where);
    }
    await page.close();
  });

  // [lesson, query, the state the page settles on (as written back to the link), the notices it shows]
  const LINKS = [
    ['positions', 'positions=1e309', { positions: '50' }, ['“positions” in the link is not a whole number; using 50.']],
    ['positions', `positions=${'9'.repeat(400)}`, { positions: '100' }, ['“positions” in the link must be between 2 and 100; using 100.']],
    ['positions', 'positions=-99999999999999999999&dims=1e309', { positions: '2', dims: '128' }, [
      '“positions” in the link must be between 2 and 100; using 2.', '“dims” in the link must be one of 8, 16, 32, 64, 128; using 128.']],
    ['positions', 'positions=NaN&dims=%F0%9F%98%80', { positions: '50', dims: '128' }, [/“positions” .* not a whole number/, /“dims” .* using 128/]],
    ['masking', 'mask=padding&valid=Infinity&seed=-Infinity', { mask: 'padding', valid: '6', seed: '0' }, [/“valid” .* not a whole number/, /“seed” .* not a whole number/]],
    ['masking', 'mask=padding&valid=-1&seed=-0', { valid: '0', seed: '0' }, ['“valid” in the link must be between 0 and 32; using 0.']],
    ['masking', 'valid=2.5&seed=0x10', { valid: '6', seed: '0' }, [/“valid” .* not a whole number; using 6/, /“seed” .* not a whole number; using 0/]],
    ['scaling', 'scale=custom&custom=1e2&dk=64.0', { scale: 'custom', custom: '10', dk: '64' }, [/“dk” .* using 64/, /“custom” .* not a whole number; using 10/]],
    ['scaling', 'scale=custom&custom=0', { custom: '1' }, ['“custom” in the link must be between 1 and 100; using 1.']],
    ['step-by-step', 'step=99999999999&seed=%20%207%20&mask=causal', { step: '20', seed: '7', mask: 'causal' }, [/“step” .* between 0 and 20; using 20/]],
    ['encoder', 'step=-1&norm=%3Csvg%2Fonload%3Dalert(1)%3E&order=pre', { step: '0', norm: 'layernorm', order: 'pre' }, [/“norm” .* using layernorm/, /“step” .* using 0/]],
    ['exercises', 'seed=1e3', { seed: '3' }, ['“seed” in the link is not a whole number; using 3.']],
    ['why-attention', 'ending=constructor&ending=wide', { ending: 'tired' }, [/“ending” .* must be one of tired, wide; using tired/]],
    ['multi-head', 'dModel=__proto__&heads=constructor&mask=toString', { dModel: '32', heads: '4', mask: 'none' }, [/“dModel”/, /“heads”/, /“mask”/]],
    ['self-attention', 'seed=5&seed=7&sentence=a%20b&sentence=c', { seed: '5', sentence: 'a b' }, []],
    ['self-attention', 'tokens=gpt5&sentence=U.S.A.', { tokens: 'words', sentence: 'U.S.A.' }, [/“tokens” .* must be one of words, bpe; using words/]],
    ['self-attention', '__proto__[x]=1&__proto__=1&constructor=1&toString=1&hasOwnProperty=1&valueOf=1&unknown=%3Cb%3Ex#%3Cimg%20src=x%20onerror=alert(1)%3E',
      { seed: '0', sentence: "The animal didn't cross the street because it was too tired" }, []],
    ['self-attention', 'sentence=%E0%A4%A&seed=%', { sentence: '\uFFFD%A', seed: '0' }, ['“seed” in the link is not a whole number; using 0.']],
    ['self-attention', 'sentence=%3Cscript%3Ealert(1)%3C%2Fscript%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&seed=%2B5', { seed: '0' }, [/“seed” .* not a whole number/]],
    ['cross-attention', 'sentence=%20%09&beam=7', { sentence: ' \t', beam: '1' }, [/“beam” .* must be one of 1, 4; using 1/]],
    ['masking', 'mask=padding&valid=2&sentence=the%20cat%20%E2%80%AEsat%20on%20the%20mat', { mask: 'padding', valid: '2' }, []],
  ];
  const SCHEMA_KEYS = { 'self-attention': ['sentence', 'seed', 'tokens'] };

  test('hostile links: values are clamped or replaced, each correction is shown, nothing else changes', async () => {
    const { page, problems, visit } = await strictPage(browser);
    for (const [slug, query, expected, notices] of LINKS) {
      const where = `${slug}?${query.slice(0, 60)}`;
      await visit(`${server.url}/lessons/${slug}.html?${query}`);
      const seen = await inspect(page);
      assertHealthy(assert, seen, where);
      assert.equal(seen.notices.length, notices.length, `${where}: ${seen.notices.join(' | ')}`);
      for (const notice of notices) {
        assert.ok(seen.notices.some((n) => (typeof notice === 'string' ? n === notice : notice.test(n))), `${where}: no notice ${notice} in ${seen.notices.join(' | ')}`);
      }
      const { params, polluted } = await page.evaluate(() => ({
        params: [...new URLSearchParams(location.search)],
        polluted: ['x', 'unknown'].some((k) => k in {}) || typeof {}.constructor !== 'function' || typeof {}.toString !== 'function',
      }));
      const written = Object.fromEntries(params);
      assert.equal(params.length, Object.keys(written).length, `${where}: a key is written twice`);
      for (const [key, value] of Object.entries(expected)) assert.equal(written[key], value, `${where}: ${key}`);
      if (SCHEMA_KEYS[slug]) assert.deepEqual(Object.keys(written).sort(), SCHEMA_KEYS[slug].sort(), `${where}: unknown keys are dropped`);
      assert.ok(!polluted, `${where}: Object.prototype changed`);
      for (const t of await page.$$eval('.explain', (ps) => ps.map((p) => p.textContent))) {
        assert.ok(bidiContained(t), `${where}: learner text reorders “${t}”`);
      }
      problems.push(...await takeViolations(page));
      assert.deepEqual(problems, [], where);
    }
    await page.close();
  });

  test('a 100 KB link: the sentence is cut and the seed clamped, with notices', async () => {
    // Answered by the test itself: Node's server (like most) refuses request heads over 16 KB.
    const url = `${server.url}/lessons/self-attention.html?sentence=${'A'.repeat(100_000)}&seed=${'9'.repeat(1000)}`;
    const fulfill = { body: readFileSync(`${DIST}lessons/self-attention.html`), contentType: 'text/html; charset=utf-8',
      headers: { 'content-security-policy': headerPolicy() } };
    const { page, problems } = await openStrict(browser, url, { fulfill });
    const seen = await inspect(page);
    assertHealthy(assert, seen, '100 KB link');
    assert.deepEqual(seen.notices, ['“sentence” in the link was longer than 200 characters and was cut.',
      '“seed” in the link must be between 0 and 999999; using 999999.']);
    const params = await page.evaluate(() => Object.fromEntries(new URLSearchParams(location.search)));
    assert.deepEqual(params, { sentence: 'A'.repeat(200), tokens: 'words', seed: '999999' });
    problems.push(...await takeViolations(page));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
