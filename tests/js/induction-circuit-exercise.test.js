// The induction circuit lesson's Try-this ("which head feeds the keys?", site/src/lessons/induction-circuit/parts.js)
// accepts the one layer-0 head whose output plain PyTorch says the induction head's keys read most — the
// lesson's own program, site/src/lessons/induction-circuit/program.py, run under Debian's python3-torch, which
// also names the circuit's heads — and refuses the others, for the page's default seed and two more; the
// page's repeatScores finds the same heads as that program.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { checkKeyReader, circuitHeads, repeatScores } from '../../site/src/lessons/induction-circuit/parts.js';
import { lab as loadLab } from './helpers.js';
import { lessonProgramPrinted } from './lesson-program.js';

const CASES = [{ length: 30, seed: 0, mode: 'zero' }, { length: 20, seed: 11, mode: 'zero' }, { length: 64, seed: 3, mode: 'mean' }];

const pytorchPrinted = (settings) => lessonProgramPrinted('induction-circuit', settings);

test('induction circuit Try-this: the layer-0 head plain PyTorch finds the keys read most is accepted, the others refused', async () => {
  const lab = await loadLab(true);
  const { model } = await lab.loadBuiltinModel();
  const { numLayers: L, numHeads: H, vocabSize } = model.config;
  const { pairs } = model.compositionScores();
  for (const settings of CASES) {
    const printed = await pytorchPrinted(settings);
    const [, previous, , , layer, head] = printed.get('circuit (previous-token head, runner-up, induction head)');
    const found = circuitHeads(repeatScores(lab, model, { length: settings.length, seed: settings.seed, low: 256, high: vocabSize - 1 }), model.config);
    assert.deepEqual([found.previous[0].head, found.induction.layer, found.induction.head], [previous, layer, head], JSON.stringify(settings));
    // PyTorch's K-composition from each layer-0 head (rows) to the later heads (L1H0 … in order, columns)
    const k = printed.get('K-composition, layer-0 heads to later heads');
    const column = (layer - 1) * H + head, later = (L - 1) * H;
    const into = Array.from({ length: H }, (_, a) => k[a * later + column]);
    const best = into.indexOf(Math.max(...into));
    assert.ok([...into].sort((a, b) => b - a).slice(0, 2).reduce((a, b) => a - b) > 1e-4, `${JSON.stringify(settings)}: a near-tie in ${into}`);
    for (let guess = 0; guess < H; guess++) {
      const verdict = checkKeyReader(pairs, found.induction, guess);
      assert.equal(verdict.correct, guess === best, `${JSON.stringify(settings)}: L0H${guess}: ${verdict.message}`);
      assert.ok(verdict.message.includes(`L0H${best}`), verdict.message);
    }
  }
});
