// Words as exact as the numbers (issue 41, item 2): every number the lessons and the home page type
// into their prose is notation or is quoted, with its source, in site/quoted-figures.js, and each
// quoted figure still equals what its source measured. The found cases each have a check of their own.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';

import { lessonSourceFiles } from '../../site/lesson-files.js';
import { QUOTED_FIGURES } from '../../site/quoted-figures.js';
import { evenSpreadInduction } from '../../site/src/lessons/head-jobs/parts.js';
import { PROSE_FILES, figureValue, proseNumbers, proseStrings, readRepoFile, repoFileSize, typedNumbers } from './prose-numbers.js';

const files = { read: readRepoFile, json: (path) => JSON.parse(readRepoFile(path)), size: repoFileSize };
const where = (n) => `${n.file}:${n.line} “${n.number}” in “…${n.text.slice(Math.max(0, n.index - 40), n.index + 40)}…”`;

// The entry whose quote covers the number at `index` of a prose string of `file`, or undefined.
function quotedBy(file, text, index) {
  return QUOTED_FIGURES.find((entry) => {
    if (entry.file !== file) return false;
    for (let at = text.indexOf(entry.quote); at >= 0; at = text.indexOf(entry.quote, at + 1)) {
      if (index >= at && index < at + entry.quote.length) return true;
    }
    return false;
  });
}

test('the notation rules leave a lesson’s own notation alone and find the figures', () => {
  for (const notation of ['layer 1, head 3 and position 0', 'scaled by 1/√d_k', 'qkv.permute(2, 0, 3, 1, 4)',
    '(batch, seq, 3, heads, d_k)', '1. Which token gets the most weight?', 'GPT-2’s tokenizer, UTF-8 bytes', 'With d = 16',
    'dimensions 0, 1, 4 and 8', 'the weights sum to 1 in [0, 1]', 'L·(12d² + 2·n·d)', 'keys 1 + 2 + … + n', '(Olsson et al., 2022)']) {
    assert.deepEqual(typedNumbers(notation), [], notation);
  }
  const found = (text) => typedNumbers(text).map((n) => n.number);
  assert.deepEqual(found('77 English and 117 French words'), ['77', '117']);
  assert.deepEqual(found('loops in about two samples in five, and 95% of the time'), ['two samples in five', '95%']);
  assert.deepEqual(found('GPT-2 small (124M parameters) about 500 MB'), ['124', '500']);
  assert.deepEqual(found('The tutorials’ exercise: (2, 10, 512)'), ['2', '10', '512']);
  assert.equal(figureValue('two samples in five'), 0.4);
  assert.equal(figureValue('1,611'), 1611);
  assert.equal(figureValue('95%'), 0.95);
});

test('code and settings in a lesson module are not read as prose', () => {
  const source = "const CODE = 'x = randn(7, 9)';\n" +
    "lessonPage({ slug: 'a', intro: ['Seen 77 times.'], pytorch: CODE, call: 'f(5)', schema: { n: { max: 32 } },\n" +
    "  setup() { el('h2', { class: 'c3', text: `Top ${n} of 10` }); select([['4', 'four']]); } });";
  assert.deepEqual(proseStrings(source).map((s) => s.text), ['Seen 77 times.', 'Top N of 10', 'four']);
});

test('every number typed into the lessons’ and the home page’s prose is notation or quoted with its source', () => {
  const unquoted = proseNumbers().filter((n) => !quotedBy(n.file, n.text, n.index));
  assert.deepEqual(unquoted.map(where), [], 'compute these in the page, or quote them in site/quoted-figures.js with their source');
});

test('each quoted figure is still in its page and still equals what its source measured', () => {
  for (const entry of QUOTED_FIGURES) {
    assert.ok(PROSE_FILES.includes(entry.file), `${entry.file} is not one of the prose files`);
    const inPage = proseStrings(readRepoFile(entry.file)).some((s) => s.text.includes(entry.quote));
    assert.ok(inPage, `${entry.file} no longer says “${entry.quote}”: remove or update its entry`);
    assert.ok(entry.source, `“${entry.quote}” has no source`);
    if (!entry.measured) continue;
    const figures = typedNumbers(entry.quote).map((n) => n.number);
    const values = entry.measured(files);
    assert.equal(values.length, figures.length, `“${entry.quote}”: ${figures.length} figures, ${values.length} measured values`);
    figures.forEach((figure, i) => {
      const stated = figureValue(figure), value = values[i], how = entry.compare?.[i] ?? 'equal';
      const ok = how === 'below' ? value < stated
        : how === 'about' ? Math.abs(value - stated) <= halfUnit(figure) + 1e-12
          : Math.abs(value - stated) <= 1e-12 * Math.max(1, Math.abs(stated));
      assert.ok(ok, `“${entry.quote}” says ${figure}; ${entry.source} gives ${value} (${how})`);
    });
  }
});

// Half a unit of a figure's last written digit, in its value's units: "3.5" → 0.05, "500" → 50,
// "95%" → 0.005, "three in a hundred" → 0.005.
function halfUnit(figure) {
  if (/\bin\b/.test(figure)) return figureValue(figure.replace(/^\w+/, 'one')) / 2;
  const digits = figure.replace(/%$/, '').replace(/,/g, '');
  const unit = digits.includes('.') ? 10 ** -digits.split('.')[1].length : 10 ** (/0*$/.exec(digits)[0].length);
  return (figure.endsWith('%') ? unit / 100 : unit) / 2;
}

// The found cases.

test('head-jobs: an even spread scores (1/T)·Σ 1/(i + 1) on induction, computed for the page’s T', () => {
  // The score of a head whose causal rows are uniform, from the matrix itself: row i of 2T has weight
  // 1/(i + 1) on keys 0 … i; induction averages A[i, i − T + 1] over the second copy's T rows.
  for (const T of [5, 30, 64]) {
    const n = 2 * T, A = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j <= i ? 1 / (i + 1) : 0)));
    let sum = 0;
    for (let i = T; i < n; i++) sum += A[i][i - T + 1];
    assert.ok(Math.abs(evenSpreadInduction(T) - sum / T) < 1e-15, `T = ${T}`);
  }
  assert.equal(evenSpreadInduction(30).toFixed(3), '0.023');  // not 1/(T + 1) = 0.032
  const page = readRepoFile('site/src/lessons/head-jobs/lesson.js');
  assert.match(page, /evenSpreadInduction\(T\)/);
  assert.doesNotMatch(page, /1 \/ \(T \+ 1\)/);
});

test('every lesson writes a projection by W_q, W_k, W_v or W_o as PyTorch stores it: X·Wᵀ', () => {
  for (const file of lessonSourceFiles()) {
    const formula = /formula: String\.raw`([^`]*)`/.exec(readRepoFile(file))?.[1] ?? '';
    for (const m of formula.matchAll(/W_(?:\{?[qkvoQKVO]\}?)(\^\{[^}]*\}|\^\\top)?/g)) {
      assert.ok(m[1]?.includes('\\top'), `${file}: ${m[0]} in ${formula.slice(0, 80)}… has no ᵀ`);
    }
  }
  assert.match(readRepoFile('site/src/lessons/step-by-step/lesson.js'), /out × in\), so the projection is X·Wᵀ/);
});

// The top-level README and the long parts it links to in docs/ (moved there from the README).
const readmeAndDocs = () => ['README.md', ...readdirSync(new URL('../../docs/', import.meta.url)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
  .map(readRepoFile).join('\n');

test('the site says it works offline only if a service worker keeps a copy', () => {
  const publicFiles = readdirSync(new URL('../../site/public/', import.meta.url)).filter((f) => f.endsWith('.js'));
  const caching = publicFiles.some((f) => /caches\.open|cache\.put/.test(readRepoFile(`site/public/${f}`)));
  if (caching) return;
  const prose = PROSE_FILES.flatMap((f) => proseStrings(readRepoFile(f)).map((s) => s.text)).concat(readmeAndDocs());
  const claims = prose.filter((t) => /\b(?:works|runs|everything runs) offline\b/i.test(t));
  assert.deepEqual(claims.map((t) => t.slice(0, 120)), []);
});

test('the found claims say what was measured', () => {
  const text = (file) => proseStrings(readRepoFile(file)).map((s) => s.text).join('\n');
  assert.doesNotMatch(text('site/src/home.js'), /last digit/);
  // Cross-attention: the log measures how often each layer's heads land on the gold word, not what
  // one layer passes to the next.
  assert.doesNotMatch(text('site/src/lessons/cross-attention/lesson.js'), /gathers what/);
  assert.doesNotMatch(readmeAndDocs(), /gathers what/);
  // Multi-head: split_heads is a reshape to (seq, heads, d_k), then a transpose.
  assert.match(text('site/src/lessons/multi-head/lesson.js'), /\(seq, d_model\) to \(seq, heads, d_k\) and transposes that to \(heads, seq, d_k\)/);
  // Masking: PyTorch's −∞ and softmax give NaN in a row with every key blocked; attnlab gives 0.
  assert.match(text('site/src/lessons/masking/lesson.js'), /PyTorch gives NaN there/);
  // Watch it learn: the intro tells the toy tasks' model from the translator's.
  const watch = text('site/src/lessons/watch-it-learn/lesson.js');
  assert.match(watch, /On the five toy tasks it is one layer/);
  assert.match(watch, /The translation task trains a bigger model/);
  // Induction heads: the lessons that show them say the training mixed in repeated passages, and why.
  assert.match(text('site/src/lessons/head-jobs/lesson.js'), /some of its training windows were one passage read over and over/);
  // KV cache (issue 53, item 4): the loop shares are attnlab's measurement of attnlab-kjv on other prompts,
  // said as such; the counts the page's own button makes are for the learner's prompt.
  assert.match(text('site/src/lessons/kv-cache/lesson.js'), /When attnlab measured attnlab-kjv on four prompts of its documentation/);
  assert.match(text('site/src/lessons/kv-cache/repeats-section.js'), /The counts are this page’s own, for your prompt/);
});

// Words (issue 53, item 9): a learner reads no repository path (cpp/train/…, training-log.jsonl), and a
// quotation inside a quotation takes the other quotation marks (“The ‘it’ sentence, trained”).
test('the prose names no repository file, and quotes inside quotes alternate', () => {
  const prose = PROSE_FILES.flatMap((file) => proseStrings(readRepoFile(file)).map((s) => ({ file, text: s.text })));
  const paths = prose.filter(({ text }) => /\b(?:cpp|web|site|scripts|tests|docs)\/[\w./-]+|\b[\w-]+\.(?:jsonl|cpp|hpp|mjs)\b/.test(text));
  assert.deepEqual(paths.map(({ file, text }) => `${file}: ${text.slice(0, 120)}`), []);
  const nested = prose.filter(({ text }) => /“[^”]*“/.test(text));
  assert.deepEqual(nested.map(({ file, text }) => `${file}: ${text.slice(0, 120)}`), []);
});

// One way of counting (issue 53, item 5): a layer, head, sentence, position, token, word or step that
// the code indexes is shown by its index, counted from 0 ("layer 1, head 0" means what model.forward's
// attention[1][0] is), never as index + 1; "3 of 7" counts (lessons, samples) are not indices. The home
// page says so, and only the home page: said once.
test('layers, heads, sentences, positions and words are counted from 0, as the code counts them, and the home page says so once', () => {
  const sources = [...readdirSync(new URL('../../site/src/', import.meta.url)).filter((f) => f.endsWith('.js')).map((f) => `site/src/${f}`),
    ...lessonSourceFiles()];
  const plusOne = /\b(layer|head|sentence|position|token|word|step)'?\}?\s*\$\{[^}]*\+\s*1\s*\}(?! of)/gi;
  const found = sources.flatMap((file) => [...readRepoFile(file).matchAll(plusOne)].map((m) => `${file}: ${m[0]}`));
  assert.deepEqual(found, []);
  const saying = sources.filter((file) => proseStrings(readRepoFile(file)).some((s) => /counted from 0/.test(s.text)));
  assert.deepEqual(saying, ['site/src/home.js']);
});

// Part two is one part of four, not where the site ends (issue 51.6).
test('the home page does not call part two the destination', () => {
  assert.doesNotMatch(proseStrings(readRepoFile('site/src/home.js')).map((s) => s.text).join(' '), /destination/i);
});

// Induction forming's formulas read N, P, L and A^h: its intro says what each is (issue 51.6).
test('induction forming defines every letter its formulas use', () => {
  const page = readRepoFile('site/src/lessons/induction-forming/lesson.js');
  const formula = /formula: String\.raw`([^`]*)`/.exec(page)[1];
  const intro = proseStrings(page).map((s) => s.text).join(' ');
  for (const letter of ['N', 'P', 'L']) {
    assert.match(formula, new RegExp(`\\b${letter}\\b`));
    assert.match(intro, new RegExp(`\\b${letter} (letters|before)\\b|\\bits ${letter} letters\\b`), `the intro does not say what ${letter} is`);
  }
  assert.match(intro, /A\^h is head h’s attention/);
});
