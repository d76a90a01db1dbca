// web/README.md's and docs/library.md's sizes are the built package's (scripts/readme-figures.mjs): each is a marked span
// measured here from web/ as built — files, gzipped files, the npm tarball, two Vite apps — and a size
// written by hand, outside a span, is refused unless its line names the committed measurement it quotes.
// When a build changes a size, this fails until `node scripts/readme-figures.mjs` rewrites the spans.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { LIBRARY, measureSpans, README, spans } from '../../scripts/readme-figures.mjs';

const readme = readFileSync(README, 'utf8');
const FIGURE = /\b\d[\d.,]*\s?(kB|MB)\b/g;

test('every size in web/README.md is measured from the build, or quotes a committed measurement', () => {
  const unmarked = readme.replace(/<!--(size|gzip|tarball|app)[^>]*-->.*?<!--\/-->/g, '')
    .split('\n')
    .filter((line) => line.match(FIGURE) && !/bench\/[\w-]+-results\.md/.test(line));
  assert.deepEqual(unmarked, [], 'sizes typed by hand: mark them (scripts/readme-figures.mjs) or name the results file they quote');
});

for (const [name, path, least] of [['web/README.md', README, 15], ['docs/library.md', LIBRARY, 20]]) {
  test(`${name}'s marked sizes agree with the package as built`, () => {
    const list = spans(readFileSync(path, 'utf8'));
    assert.ok(list.length >= least, `${list.length} marked figures`);
    const measured = measureSpans(list);
    const wrong = list.map((s, i) => ({ span: `<!--${s.kind} ${s.arg}-->`, shown: s.shown, measured: measured[i] }))
      .filter((s) => s.shown !== s.measured);
    assert.deepEqual(wrong, [], 'run node scripts/readme-figures.mjs to write the measured sizes');
  });
}
