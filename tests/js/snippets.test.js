// Every PyTorch snippet the site shows runs under Debian's python3-torch and prints the numbers the page
// shows. A lesson shows a program, site/src/lessons/<slug>/program.py (its own, or another lesson's), rendered
// by site/src/snippet-render.js for its settings as the page renders it (PROGRAM in the lesson's settings.js).
// For each lesson, tests/js/snippet-cases/<slug>.js gives the settings to try (the lesson's defaults, then
// others) and computes, with the package, what the page shows for them; the file the page offers for download
// (the spec's tensors(), or the file the package ships) is written beside the program, the program is
// run, and what it prints is compared within snippet-output.js's tolerance.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { lessonModuleUrl, lessonSlugs } from '../../site/lesson-files.js';
import { safetensorsBytes } from '../../site/src/safetensors-file.js';
import { renderSnippet } from '../../site/src/snippet-render.js';
import { lab as loadLab } from './helpers.js';
import { closeTo, printedNumbers } from './snippet-output.js';

const PYTHON = '/usr/bin/python3';  // Debian's, with python3-torch (scripts/install-deps.sh)
const LESSONS = new URL('../../site/src/lessons/', import.meta.url);
const REPOSITORY = new URL('../../', import.meta.url);
const run = promisify(execFile);

const lessons = lessonSlugs();
const lessonSource = (slug) => readFileSync(lessonModuleUrl(slug), 'utf8');
// The trained-model lessons show their program after a model part (gpt2_kjv.py, or part four's
// MODERN_PROGRAM): snippets-trained.test.js runs them.
const trainedProgram = (slug) => /snippets\/trained\/gpt2_kjv\.py\?raw|\bMODERN_PROGRAM\b/.test(lessonSource(slug));
// slug → the lesson whose program it imports ('./program.py?raw' its own, '../<other>/program.py?raw' another's).
const programs = new Map(lessons.filter((slug) => !trainedProgram(slug)).flatMap((slug) => {
  const match = /'(?:\.\/|\.\.\/([\w-]+)\/)program\.py\?raw'/.exec(lessonSource(slug));
  return match ? [[slug, match[1] ?? slug]] : [];
}));
const slugs = [...programs.keys()];
// A lesson's program file: program.py, or another the spec names (programFor) in the same folder.
const programFile = (slug, name = 'program') => new URL(`${slug}/${name}.py`, LESSONS);
// The lesson's program spec: PROGRAM in its settings.js (the schema the lesson uses, its settings and file).
const programSpec = async (slug) => (await import(new URL(`${slug}/settings.js`, LESSONS))).PROGRAM;

// The lesson's defaults, from its schema.
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

test('snippets: every lesson whose PyTorch code is a program has a snippet case and a page spec', async () => {
  for (const [slug, program] of programs) {
    assert.ok(existsSync(new URL(`${slug}/settings.js`, LESSONS)), `site/src/lessons/${slug}/settings.js (the lesson's schema, settings and file) is missing`);
    assert.ok(existsSync(new URL(`snippet-cases/${slug}.js`, import.meta.url)), `tests/js/snippet-cases/${slug}.js is missing`);
    const spec = await programSpec(slug);
    assert.equal(spec.program ?? slug, program, `site/src/lessons/${slug}/lesson.js shows ${program}'s program.py, its spec says ${spec.program ?? slug}'s`);
  }
});

// The lessons that still show a fragment instead of a program (issue 41, item 1: none should).
test('snippets: every lesson shows a program that runs', { todo: missingPrograms().length ? `still fragments: ${missingPrograms().join(', ')}` : false }, () => {
  assert.deepEqual(missingPrograms(), []);
});
function missingPrograms() {
  return lessons.filter((slug) => !programs.has(slug) && !trainedProgram(slug));
}

// The program the spec names for these settings instead of the lesson's own (programFor: Watch it
// learn's translation task), which the lesson must import as it imports its own; null for the lesson's own.
function programSource(slug, spec, state) {
  const name = spec.programFor?.(state);
  if (!name) return null;
  assert.ok(lessonSource(slug).includes(`'./${name}.py?raw'`),
    `site/src/lessons/${slug}/lesson.js does not import ./${name}.py, which its spec shows for ${JSON.stringify(state)}`);
  return readFileSync(programFile(slug, name), 'utf8');
}

for (const slug of slugs) {
  test(`snippet ${slug}: runs under python3-torch and prints what the page shows`, async () => {
    const lab = await loadLab(true);
    const spec = await programSpec(slug);
    const cases = await import(new URL(`snippet-cases/${slug}.js`, import.meta.url));
    const source = readFileSync(programFile(programs.get(slug)), 'utf8');
    const base = defaults(spec.schema);
    // What the page has loaded by the time it shows the program: the lab and the lesson's model.
    const loaded = { lab, prepared: await cases.prepared?.(lab) };
    // The file on disk is itself the program for its own lesson's default settings.
    if (!spec.program) assert.equal(renderSnippet(source, spec.settings?.(base, loaded)), source, `site/src/lessons/${slug}/program.py is not its own default rendering`);
    assert.ok(cases.states.length >= 2, 'the default settings and at least one other');
    await cases.prepare?.(lab);
    const results = await Promise.all(cases.states.map(async (partial) => {
      const state = { ...base, ...partial };
      const program = renderSnippet(programSource(slug, spec, state) ?? source, spec.settings?.(state, loaded));
      // The files the package ships (the repository's copies), or the one the page writes (a Promise when
      // its module loads on demand).
      const files = spec.shippedFiles
        ? Object.fromEntries(Object.entries(spec.shippedFiles).map(([name, path]) => [name, readFileSync(new URL(path, REPOSITORY))]))
        : spec.file ? { [spec.file]: safetensorsBytes(await spec.tensors(lab, state, loaded.prepared)) } : {};
      const expected = await cases.expected(lab, state);
      const text = await runSnippet(program, files);
      // Lines that start with "#" are words for the learner (as in snippets-trained.test.js), not numbers.
      return { state, expected, text, printed: printedNumbers(text.split('\n').filter((line) => !line.startsWith('#')).join('\n')) };
    }));
    for (const { state, expected, printed, text } of results) {
      // What it prints reads like its page: a case may bound its length (issue 53, item 7).
      if (cases.maxLines) {
        const lines = text.trimEnd().split('\n').length;
        assert.ok(lines <= cases.maxLines, `${JSON.stringify(state)}: the program printed ${lines} lines; its page reads in at most ${cases.maxLines}`);
      }
      // A quantity is its numbers, or { values, absolute } with the extra room its case explains.
      for (const [label, quantity] of Object.entries(expected)) {
        assert.ok(printed.has(label), `${JSON.stringify(state)}: the snippet printed no "${label}:" (it printed ${[...printed.keys()].join(', ')})`);
        const { values, absolute } = typeof quantity.absolute === 'number' ? quantity : { values: quantity, absolute: 0 };
        const problem = closeTo(printed.get(label), Array.from(values), label, undefined, absolute);
        assert.equal(problem, null, `${JSON.stringify(state)}: ${problem}`);
      }
    }
  });
}
