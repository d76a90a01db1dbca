// The induction circuit lesson's Try-this ("which head feeds the keys?", site/src/lessons/induction-circuit/parts.js)
// accepts the one layer-0 head whose output plain PyTorch says the induction head's keys read most — the
// lesson's own program, site/src/lessons/induction-circuit/program.py, run under Debian's python3-torch, which
// also names the circuit's heads — and refuses the others, for the page's default seed and two more; the
// page's repeatScores finds the same heads as that program.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { checkKeyReader, circuitHeads, PROCESSINGS, processingRows, processingWords, repeatScores } from '../../site/src/lessons/induction-circuit/parts.js';
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

// The processing table's rows and words on hand-made scores: 2 layers of 2 heads, previous-token head L0H1,
// induction head L1H0. Under the third processing L0H0's output is what L1H0's keys read most, and the copying
// score of L1H0 changes sign: the words must say both, with the values.
test('induction circuit: which readings hold under each processing, from the scores', () => {
  const pair = (from, to, k) => ({ from: { layer: 0, head: from }, to: { layer: 1, head: to }, q: 0, k, v: 0 });
  const compositions = [[0.1, 0.4], [0.2, 0.5], [0.6, 0.3], [0.6, 0.3]].map(([k0, k1]) => ({ pairs: [pair(0, 0, k0), pair(1, 0, k1), pair(0, 1, 0.9), pair(1, 1, 0.9)], baseline: 0.1 }));
  const copyings = [[0.1, 0.2, 0.5, 0.9], [0.1, 0.2, 0.4, 0.9], [0.1, 0.2, -0.3, 0.9], [0.1, 0.2, 0.25, 0.3]];
  const prev = { layer: 0, head: 1 }, induction = { layer: 1, head: 0 };
  const rows = processingRows(compositions, copyings, prev, induction, 2);
  assert.deepEqual(rows.map((r) => r.label), PROCESSINGS.map((p) => p.label));
  assert.deepEqual(rows.map((r) => [Number(r.ratio.toFixed(6)), r.keyReader.head, r.copying, r.higher]),
    [[4, 1, 0.5, 1], [5, 1, 0.4, 1], [3, 0, -0.3, 3], [3, 0, 0.25, 1]]);
  const words = processingWords(rows, prev, induction);
  assert.match(words, /^L0H1 is the layer-0 head L1H0’s keys read most only with raw weights, LayerNorms folded;/);
  assert.match(words, /its K-composition is 3\.00 to 5\.00 times the random baseline, above it under each;/);
  assert.match(words, /the copying score of L1H0 changes sign between them \(0\.50, 0\.40, −0\.30, 0\.25\)/);
  const steady = processingWords(rows.slice(0, 2), prev, induction);
  assert.match(steady, /^L0H1 is the layer-0 head whose output L1H0’s keys read most under every processing;/);
  assert.match(steady, /keeps its sign \(0\.50, 0\.40\) and its rank among the heads/);
  const below = processingWords(rows.map((r) => ({ ...r, ratio: 0.5 })), prev, induction);
  assert.match(below, /its K-composition is 0\.50 times the random baseline, below it under each;/);
});
