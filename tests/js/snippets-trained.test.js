// The trained-model lessons' PyTorch programs (site/src/lessons/<slug>/program.py after the model part
// site/snippets/trained/gpt2_kjv.py, and for part four's llama_kjv.py too, as the page's Copy button joins them) run under Debian's python3-torch beside attnlab-kjv's
// three files and print what the page shows. For each lesson, tests/js/snippet-cases/<slug>.js gives the
// settings to try (the lesson's defaults first, in full) and computes with the package what the page
// shows for them; the printed numbers must match within snippet-output.js's tolerance (1e-5 of each
// quantity's largest magnitude, plus 1e-6 for the print's six decimals): four float32 layers summed in
// another order than the package's differ by at most 7.2e-7 of the largest beyond the print's rounding
// (measured over every case below). Lines that start with "#" are words for the learner (a token's text,
// which may hold anything), not numbers: they are left out before reading.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { lessonModuleUrl, lessonSlugs } from '../../site/lesson-files.js';
import { MODERN_FILES } from '../../site/snippets/modern/model-files.js';
import { MODEL_FILES } from '../../site/snippets/trained/model-files.js';
import { wholeProgram } from '../../site/snippets/trained/program.js';
import { renderSnippet } from '../../site/src/snippet-render.js';
import { lab as loadLab } from './helpers.js';
import { closeTo, printedChart, printedNumbers, samePercent } from './snippet-output.js';

const PYTHON = '/usr/bin/python3';  // Debian's, with python3-torch (scripts/install-deps.sh)
const TRAINED = new URL('../../site/snippets/trained/', import.meta.url);
const LESSONS = new URL('../../site/src/lessons/', import.meta.url);
const MODEL_PART = readFileSync(new URL('gpt2_kjv.py', TRAINED), 'utf8');
// Part four's programs: the GPT part, then attnlab-kjv-llama's (site/src/modern-program.js joins them so).
const MODERN_PART = wholeProgram(MODEL_PART, readFileSync(new URL('../../site/snippets/modern/llama_kjv.py', import.meta.url), 'utf8'));
// Each lesson keeps its program in its folder: program.py, and settings.js's PROGRAM.settings. The trained
// ones show it after a model part: attnlab-kjv's (gpt2_kjv.py?raw) or part four's (MODERN_PROGRAM).
const lessonSource = (slug) => readFileSync(lessonModuleUrl(slug), 'utf8');
const GPT_PROGRAMS = lessonSlugs().filter((slug) => existsSync(new URL(`${slug}/program.py`, LESSONS))
  && /snippets\/trained\/gpt2_kjv\.py\?raw/.test(lessonSource(slug)));
const MODERN_PROGRAMS = lessonSlugs().filter((slug) => existsSync(new URL(`${slug}/program.py`, LESSONS))
  && /\bMODERN_PROGRAM\b/.test(lessonSource(slug)));
const run = promisify(execFile);

// slug → { source, settings, modelPart, files } of its program.
async function lessonProgram(slug) {
  const { PROGRAM } = await import(new URL(`${slug}/settings.js`, LESSONS));
  const modern = MODERN_PROGRAMS.includes(slug);
  // PROGRAM.files: a program that reads more than the models (a lesson's held-out text) names every file it reads.
  return { source: readFileSync(new URL(`${slug}/program.py`, LESSONS), 'utf8'), settings: PROGRAM.settings,
    modelPart: modern ? MODERN_PART : MODEL_PART, files: PROGRAM.files ?? (modern ? MODERN_FILES : MODEL_FILES) };
}

let builtin = null;
let builtinLlama = null;
// The package with attnlab-kjv (model, tokenizer) and, for part four's programs, attnlab-kjv-llama (llama, llamaTokenizer).
async function labAndModel({ llama = false } = {}) {
  const lab = await loadLab(true);
  builtin ??= await lab.loadBuiltinModel();
  if (llama) builtinLlama ??= await lab.loadBuiltinLlama();
  return { lab, ...builtin, ...(llama ? { llama: builtinLlama.model, llamaTokenizer: builtinLlama.tokenizer } : {}) };
}

// Runs one whole program in a fresh folder holding the model's files (each where the program looks for it);
// resolves to what it printed, or with `written` to { stdout, files: name → the bytes of each file it wrote by that name }.
async function runProgram(program, written, files = MODEL_FILES) {
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-trained-snippet-'));
  try {
    writeFileSync(join(dir, 'program.py'), program);
    for (const f of files) {
      mkdirSync(dirname(join(dir, f.name)), { recursive: true });
      copyFileSync(fileURLToPath(f.url), join(dir, f.name));
    }
    const { stdout } = await run(PYTHON, ['program.py'], { cwd: dir, maxBuffer: 1 << 27, env: { ...process.env, PYTHONHASHSEED: '0' } });
    if (!written) return stdout;
    return { stdout, files: Object.fromEntries(written.map((name) => [name, readFileSync(join(dir, name))])) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('trained snippets: every program has a lesson that shows it, a case, and the model part', () => {
  assert.ok(GPT_PROGRAMS.length && MODERN_PROGRAMS.length);
  for (const slug of [...GPT_PROGRAMS, ...MODERN_PROGRAMS]) {
    assert.ok(existsSync(new URL(`snippet-cases/${slug}.js`, import.meta.url)), `tests/js/snippet-cases/${slug}.js is missing`);
    assert.ok(existsSync(new URL(`${slug}/settings.js`, LESSONS)), `site/src/lessons/${slug}/settings.js is missing`);
    assert.match(lessonSource(slug), /'\.\/program\.py\?raw'/, `site/src/lessons/${slug}/lesson.js does not show its program`);
  }
});

for (const slug of [...GPT_PROGRAMS, ...MODERN_PROGRAMS]) {
  test(`trained snippet ${slug}: runs under python3-torch on attnlab's models and prints what the page shows`, async () => {
    const { source, settings, modelPart, files } = await lessonProgram(slug);
    const models = await labAndModel({ llama: modelPart === MODERN_PART });
    const { lab } = models;
    const cases = await import(new URL(`snippet-cases/${slug}.js`, import.meta.url));
    // The file on disk is itself the lesson's part for the lesson's default settings.
    assert.equal(renderSnippet(source, settings?.(cases.states[0]) ?? {}), source, `${slug}'s program is not its own default rendering`);
    assert.ok(cases.states.length >= 2, 'the default settings and at least one other');
    const results = await Promise.all(cases.states.map(async (partial) => {
      const state = { ...cases.states[0], ...partial };
      const printed = await runProgram(wholeProgram(modelPart, renderSnippet(source, settings?.(state) ?? {})), undefined, files);
      const numbers = printedNumbers(printed.split('\n').filter((line) => !line.startsWith('#')).join('\n'));
      return { state, expected: await cases.expected(lab, models, state), printed: numbers, text: printed,
        charts: await cases.charts?.(lab, models, state) };
    }));
    for (const { state, expected, printed, text, charts } of results) {
      for (const [label, values] of Object.entries(expected)) {
        assert.ok(printed.has(label), `${JSON.stringify(state)}: the program printed no "${label}:" (it printed ${[...printed.keys()].join(', ')})`);
        const problem = closeTo(printed.get(label), Array.from(values), label);
        assert.equal(problem, null, `${JSON.stringify(state)}: ${problem}`);
      }
      // The page's bar charts, printed as the page draws them: the same tokens by the same labels, in
      // the same order, each probability as the page rounds it, the drawn one marked (issue 53, item 7).
      for (const [title, bars] of Object.entries(charts ?? {})) {
        const rows = printedChart(text, title);
        assert.ok(rows, `${JSON.stringify(state)}: the program printed no chart "${title}"`);
        assert.deepEqual(rows.map((r) => r.label), bars.map((b) => b.label), `${JSON.stringify(state)}: ${title}`);
        assert.deepEqual(rows.map((r) => r.chosen), bars.map((b) => b.chosen), `${JSON.stringify(state)}: ${title}, the bar marked chosen`);
        rows.forEach((r, i) => assert.ok(samePercent(r.percent, bars[i].probability),
          `${JSON.stringify(state)}: ${title}, ${r.label}: printed ${r.percent}%, the page shows ${100 * bars[i].probability}%`));
      }
      if (cases.maxLines) {
        const lines = text.trimEnd().split('\n').length;
        assert.ok(lines <= cases.maxLines, `${JSON.stringify(state)}: the program printed ${lines} lines; its page reads in at most ${cases.maxLines}`);
      }
    }
  });
}

// The file your-model's program writes is one the page loads: the package reads it and computes
// attnlab-kjv's very logits (the float16 weights widened to float32 both ways).
test('trained snippet your-model: the model file it writes loads in the package as attnlab-kjv', async () => {
  const { lab, model } = await labAndModel();
  const source = readFileSync(new URL('your-model/program.py', LESSONS), 'utf8');
  const { files } = await runProgram(wholeProgram(MODEL_PART, source), ['my-model.safetensors']);
  const written = await lab.loadGPT(files['my-model.safetensors']);
  try {
    assert.deepEqual(written.config, model.config);
    const ids = [1130, 258, 2081, 386, 3355];
    assert.deepEqual(written.forward(ids).logits.data, model.forward(ids).logits.data);
  } finally {
    written.dispose();
  }
});
