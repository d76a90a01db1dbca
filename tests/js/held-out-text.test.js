// Part four's held-out text is one module (issue 50): site/src/held-out-text.js, Judges 9, 1 Samuel 4, 1 Samuel 24
// and 2 Samuel 13 as attnlab's split holds them out. Shared keys and values, rotary positions and sliding
// windows read it and nothing else — no lesson keeps a copy of its own (they each had one, two of them starting
// with Genesis 20 and overlapping) — and each lesson's PyTorch program is given the text its page reads: a page
// setting holding the text's first whole lines, so what the program reads is what the page measures.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { CHAPTERS, firstChapters, HELD_OUT } from '../../site/src/held-out-text.js';

const SRC = fileURLToPath(new URL('../../site/src/', import.meta.url));
const LESSONS = join(SRC, 'lessons');
const READERS = ['shared-kv', 'rotary', 'windows-and-sinks'];
// Genesis 20's first verse: where the two old copies both began.
const GENESIS_20 = 'And Abraham journeyed from thence toward the south country';

const filesUnder = (dir) => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name);
  return statSync(path).isDirectory() ? filesUnder(path) : [path];
});

test('the held-out text: its chapters, one verse a line, a blank line after each; firstChapters cuts at a chapter', () => {
  const chapters = HELD_OUT.split('\n\n');
  assert.equal(chapters.at(-1), '', 'the text ends with a chapter\'s blank line');
  assert.equal(chapters.length - 1, CHAPTERS.length);
  assert.ok(HELD_OUT.startsWith('And Abimelech the son of Jerubbaal went to Shechem'), 'Judges 9 first');
  for (let n = 1; n <= CHAPTERS.length; n++) {
    const text = firstChapters(n);
    assert.ok(HELD_OUT.startsWith(text) && text.endsWith('\n\n') && text.split('\n\n').length === n + 1, `firstChapters(${n})`);
  }
});

test('no lesson keeps a held-out text of its own: only site/src/held-out-text.js holds one (programs get it from the page)', () => {
  const firstVerse = HELD_OUT.slice(0, HELD_OUT.indexOf('\n'));
  const copies = filesUnder(SRC)
    .filter((path) => !path.endsWith('held-out-text.js') && !path.endsWith('held-out-text.py') && !path.endsWith('program.py'))
    .filter((path) => { const text = readFileSync(path, 'utf8'); return text.includes(firstVerse) || text.includes(GENESIS_20); });
  assert.deepEqual(copies.map((path) => path.slice(SRC.length)), []);
});

test('part four\'s lessons read the one module, in the page or in its worker', () => {
  for (const slug of READERS) {
    const sources = readdirSync(join(LESSONS, slug)).filter((name) => name.endsWith('.js'))
      .map((name) => readFileSync(join(LESSONS, slug, name), 'utf8'));
    assert.ok(sources.some((text) => text.includes("from '../../held-out-text.js'")), `${slug} does not import site/src/held-out-text.js`);
  }
});

test('each part-four program is given the text its page reads: whole lines from the start of the held-out text', async () => {
  for (const slug of READERS) {
    const { PROGRAM } = await import(new URL(`../../site/src/lessons/${slug}/settings.js`, import.meta.url));
    const cases = await import(new URL(`snippet-cases/${slug}.js`, import.meta.url));
    const settings = PROGRAM.settings(cases.states[0]);
    const given = Object.values(settings).filter((value) => typeof value === 'string' && value.includes('\n'));
    assert.equal(given.length, 1, `${slug}'s program is given no held-out text (${Object.keys(settings).join(', ')})`);
    const [text] = given;
    assert.ok(text.length > 0 && HELD_OUT.startsWith(text) && text.endsWith('\n'), `${slug}: its program's text is not the held-out text's first lines`);
    // The program's own file reads nothing else: no held-out file beside it.
    const source = readFileSync(join(LESSONS, slug, 'program.py'), 'utf8');
    assert.doesNotMatch(source, /open\("[^"]*\.txt"/, `${slug}'s program opens a text file of its own`);
  }
});
