// A trained-model lesson's PyTorch program as the page renders it for `settings` (the model part
// site/snippets/trained/gpt2_kjv.py, then site/src/lessons/<slug>/program.py with its "# page setting" lines filled in), run under
// Debian's python3-torch in a fresh folder beside attnlab-kjv's three files → what it printed, as
// snippet-output.js reads it (label → numbers; the "#" lines, words for the learner, left out). The
// lessons' Try-this tests use it to check an exercise's answer against plain PyTorch.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { MODEL_FILES } from '../../site/snippets/trained/model-files.js';
import { wholeProgram } from '../../site/snippets/trained/program.js';
import { renderSnippet } from '../../site/src/snippet-render.js';
import { printedNumbers } from './snippet-output.js';

const TRAINED = new URL('../../site/snippets/trained/', import.meta.url);
const LESSONS = new URL('../../site/src/lessons/', import.meta.url);

export async function lessonProgramPrinted(slug, settings) {
  const dir = mkdtempSync(join(tmpdir(), `attnlab-${slug}-`));
  try {
    const { PROGRAM } = await import(new URL(`${slug}/settings.js`, LESSONS));
    const source = renderSnippet(readFileSync(new URL(`${slug}/program.py`, LESSONS), 'utf8'), PROGRAM.settings(settings));
    writeFileSync(join(dir, 'program.py'), wholeProgram(readFileSync(new URL('gpt2_kjv.py', TRAINED), 'utf8'), source));
    for (const f of MODEL_FILES) copyFileSync(fileURLToPath(f.url), join(dir, f.name));
    const { stdout } = await promisify(execFile)('/usr/bin/python3', ['program.py'], { cwd: dir, maxBuffer: 1 << 26 });
    return printedNumbers(stdout.split('\n').filter((line) => !line.startsWith('#')).join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
