// Every PyTorch snippet the site shows (site/snippets/<slug>.py, rendered by site/src/snippet-render.js as
// the page renders it) runs under Debian's python3-torch and prints the numbers the page shows. For each
// snippet, tests/js/snippet-cases/<slug>.js gives the settings to try (the lesson's defaults, then others)
// and computes, with the package, what the page shows for them; the file the page offers for download
// (site/snippets/<slug>.js, tensors()) is written beside the program, the program is run, and what it
// prints is compared within snippet-output.js's tolerance.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { safetensorsBytes } from '../../site/src/safetensors-file.js';
import { renderSnippet } from '../../site/src/snippet-render.js';
import { lab as loadLab } from './helpers.js';
import { closeTo, printedNumbers } from './snippet-output.js';

const PYTHON = '/usr/bin/python3';  // Debian's, with python3-torch (scripts/install-deps.sh)
const SNIPPETS = new URL('../../site/snippets/', import.meta.url);
const LESSONS = new URL('../../site/src/lessons/', import.meta.url);
const run = promisify(execFile);

const slugs = readdirSync(SNIPPETS).filter((f) => f.endsWith('.py')).map((f) => f.slice(0, -3)).sort();

// The lesson's defaults, from its schema (site/snippets/<slug>.js exports the schema the lesson uses).
const defaults = (schema) => Object.fromEntries(Object.entries(schema).map(([key, s]) => [key, s.default]));

// Runs one rendered program in a fresh folder holding its file; resolves to what it printed.
async function runSnippet(program, files) {
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-snippet-'));
  try {
    writeFileSync(join(dir, 'snippet.py'), program);
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
    const { stdout } = await run(PYTHON, ['snippet.py'], { cwd: dir, maxBuffer: 1 << 26, env: { ...process.env, PYTHONHASHSEED: '0' } });
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('snippets: every lesson whose PyTorch code is a program has a snippet case and a page spec', () => {
  for (const slug of slugs) {
    assert.ok(existsSync(new URL(`${slug}.js`, SNIPPETS)), `site/snippets/${slug}.js (the lesson's schema, settings and file) is missing`);
    assert.ok(existsSync(new URL(`snippet-cases/${slug}.js`, import.meta.url)), `tests/js/snippet-cases/${slug}.js is missing`);
    const lesson = readFileSync(new URL(`${slug}.js`, LESSONS), 'utf8');
    assert.match(lesson, new RegExp(`snippets/${slug}\\.py\\?raw`), `site/src/lessons/${slug}.js does not show site/snippets/${slug}.py`);
  }
});

// The lessons that still show a fragment instead of a program (issue 41, item 1: none should).
test('snippets: every lesson shows a program that runs', { todo: missingPrograms().length ? `still fragments: ${missingPrograms().join(', ')}` : false }, () => {
  assert.deepEqual(missingPrograms(), []);
});
function missingPrograms() {
  return readdirSync(LESSONS).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3)).filter((slug) => !slugs.includes(slug));
}

for (const slug of slugs) {
  test(`snippet ${slug}: runs under python3-torch and prints what the page shows`, async () => {
    const lab = await loadLab(true);
    const spec = (await import(new URL(`${slug}.js`, SNIPPETS))).snippet;
    const cases = await import(new URL(`snippet-cases/${slug}.js`, import.meta.url));
    const source = readFileSync(new URL(`${slug}.py`, SNIPPETS), 'utf8');
    const base = defaults(spec.schema);
    // The file on disk is itself the program for the default settings.
    assert.equal(renderSnippet(source, spec.settings?.(base) ?? {}), source, `site/snippets/${slug}.py is not its own default rendering`);
    assert.ok(cases.states.length >= 2, 'the default settings and at least one other');
    await cases.prepare?.(lab);
    const results = await Promise.all(cases.states.map(async (partial) => {
      const state = { ...base, ...partial };
      const program = renderSnippet(source, spec.settings?.(state) ?? {});
      const files = spec.file ? { [spec.file]: safetensorsBytes(spec.tensors(lab, state, await cases.prepared?.(lab))) } : {};
      const expected = await cases.expected(lab, state);
      return { state, expected, printed: printedNumbers(await runSnippet(program, files)) };
    }));
    for (const { state, expected, printed } of results) {
      for (const [label, values] of Object.entries(expected)) {
        assert.ok(printed.has(label), `${JSON.stringify(state)}: the snippet printed no "${label}:" (it printed ${[...printed.keys()].join(', ')})`);
        const problem = closeTo(printed.get(label), Array.from(values), label);
        assert.equal(problem, null, `${JSON.stringify(state)}: ${problem}`);
      }
    }
  });
}
