// The logit lens lesson's Try-this ("where does the answer first lead?", site/src/lessons/logit-lens/parts.js) accepts
// the one point at which plain PyTorch — the lesson's own program, site/src/lessons/logit-lens/program.py, run
// under Debian's python3-torch — first ranks the followed token 1, and refuses every other point and
// "never"; for the page's default and other prompts and tokens.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { checkPointGuess, firstFavourite } from '../../site/src/lessons/logit-lens/parts.js';
import { lab as loadLab } from './helpers.js';
import { lessonProgramPrinted } from './lesson-program.js';

const CASES = [
  { prompt: 'Thou shalt love thy neighbour as', position: -1, target: '' },
  { prompt: 'Thou shalt love thy neighbour as', position: -1, target: ' him' },
  { prompt: 'And the LORD spake unto Moses, saying', position: 3, target: '' },
  { prompt: 'In the beginning God created the heaven and the', position: -1, target: ' earth' },
];

// The ranks the PyTorch program prints, point by point in its order.
async function pytorchRanks(settings) {
  const printed = await lessonProgramPrinted('logit-lens', settings);
  return [...printed].filter(([label]) => label.endsWith(' rank')).map(([, [rank]]) => rank);
}

test('logit lens Try-this: the first point where plain PyTorch ranks the token 1 is accepted, every other refused', async () => {
  const lab = await loadLab(true);
  const { model, tokenizer } = await lab.loadBuiltinModel();
  const ranks = await Promise.all(CASES.map(pytorchRanks));
  const firsts = CASES.map((settings, i) => {
    const ids = Array.from(tokenizer.encode(settings.prompt));
    const position = settings.position < 0 ? ids.length - 1 : settings.position;
    const target = settings.target ? tokenizer.encode(settings.target)[0] : model.logitLens(ids, { position, k: 1 }).rows.at(-1).top[0].id;
    const { rows } = model.logitLens(ids, { position, k: 1, target });
    assert.deepEqual(rows.map((row) => row.target.rank), ranks[i], `${settings.prompt}: the package's ranks are PyTorch's`);
    const first = ranks[i].indexOf(1);
    assert.equal(firstFavourite(rows), first);
    for (let guess = -1; guess < rows.length; guess++) {
      const verdict = checkPointGuess(rows, guess);
      assert.equal(verdict.correct, guess === first, `${settings.prompt}: guess ${guess}: ${verdict.message}`);
    }
    assert.equal(checkPointGuess(rows, rows.length).correct, false);
    return first;
  });
  // the cases hold both kinds of answer: a point, and "never"
  assert.ok(firsts.some((f) => f >= 0) && firsts.some((f) => f < 0), `first points ${firsts}`);
});
