// The patching lesson's Try-this ("which position carries it into block 1?", site/src/lessons/patching/parts.js)
// accepts the one position whose resid_pre patch restores most by plain PyTorch — the lesson's own program,
// site/src/lessons/patching/program.py, run under Debian's python3-torch — and refuses every other one, for the
// three presets and a pair of the learner's; a refusal names the right position. The attribution-patching section's
// readout (estimateMiss, estimateWords) names the cell where the estimate misses most and the rows it holds in.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { isolated } from '../../site/src/dom.js';
import { checkPositionGuess, differingPositions, ESTIMATE_CLOSE, estimateMiss, estimateWords, exerciseLayer, lengthMismatch,
  PRESETS } from '../../site/src/lessons/patching/parts.js';
import { lab as loadLab } from './helpers.js';
import { lessonProgramPrinted } from './lesson-program.js';

const CASES = [...PRESETS, { clean: 'And Moses took the rod. And Moses took', corrupted: 'And Moses held the rod. And Moses took', target: ' the', baseline: ' his' }];

test('patching Try-this: the position PyTorch finds strongest entering block 1 is accepted, every other refused', async () => {
  const lab = await loadLab(true);
  const { model, tokenizer } = await lab.loadBuiltinModel();
  const layer = exerciseLayer(model.config.numLayers);
  assert.equal(layer, 1);
  const printed = await Promise.all(CASES.map((c) => lessonProgramPrinted('patching', { ...c, layer: -1, head: -1 })));
  for (const [i, c] of CASES.entries()) {
    const clean = Array.from(tokenizer.encode(c.clean)), corrupted = Array.from(tokenizer.encode(c.corrupted));
    assert.equal(lengthMismatch(tokenizer, clean, corrupted), null);
    const T = clean.length;
    const row = printed[i].get('resid_pre patched, layer × position').slice(layer * T, (layer + 1) * T);
    const sorted = [...row].sort((a, b) => b - a);
    assert.ok(sorted[0] - sorted[1] > 1e-3, `${c.clean}: the two best positions nearly tie`);
    const right = row.indexOf(sorted[0]);
    const metric = { target: tokenizer.encode(c.target)[0], baseline: tokenizer.encode(c.baseline)[0] };
    const { grid } = await model.activationPatching(clean, corrupted, { what: 'resid_pre', metric });
    const labels = clean.map((id) => tokenizer.decode([id]));
    for (let j = 0; j < T; j++) {
      const verdict = checkPositionGuess(grid, layer, j, labels, differingPositions(clean, corrupted));
      assert.equal(verdict.correct, j === right, `${c.clean}: position ${j}: ${verdict.message}`);
      assert.ok(verdict.message.includes(`position ${right} (`), verdict.message);
    }
    assert.equal(checkPositionGuess(grid, layer, T, labels, []).correct, false);
  }
});

test('patching: prompts of different token lengths are refused with both tokenisations', async () => {
  const lab = await loadLab(true);
  const { tokenizer } = await lab.loadBuiltinModel();
  const clean = Array.from(tokenizer.encode('And Abner saw Aaron.')), corrupted = Array.from(tokenizer.encode('And Abner beheld Aaron in Mahanaim.'));
  assert.notEqual(clean.length, corrupted.length);
  const message = lengthMismatch(tokenizer, clean, corrupted);
  assert.ok(message.includes(`clean prompt is ${clean.length} tokens and the corrupted one ${corrupted.length}`), message);
  for (const id of [...clean, ...corrupted]) assert.ok(message.includes(`“${isolated(tokenizer.tokenString(id).replaceAll(' ', '·'))}”`), `${message} lacks token ${id}`);
});

const grid = (rows, cols, data) => ({ shape: [rows, cols], data: Float32Array.from(data) });

test('patching, attribution: the largest miss and where, and the rows the estimate holds in, said of each grid', () => {
  const patched = grid(3, 2, [0, 1, 0.5, 0.2, 0, 0.9]);
  const estimate = grid(3, 2, [0, 1.05, 0.1, 0.2, 0, 0.85]);
  const miss = estimateMiss(patched, estimate);
  assert.deepEqual({ row: miss.row, col: miss.col }, { row: 1, col: 0 });
  assert.ok(Math.abs(miss.miss - 0.4) < 1e-6 && Math.abs(miss.patched - 0.5) < 1e-6 && Math.abs(miss.estimate - 0.1) < 1e-6);
  assert.deepEqual(miss.rowMiss.map((m) => Math.round(m * 100) / 100), [0.05, 0.4, 0.05]);
  // Equal misses: the first cell. No miss at all: the first cell, 0.
  assert.deepEqual(estimateMiss(grid(1, 3, [0, 0, 0]), grid(1, 3, [0, 0.2, -0.2])).col, 1);
  assert.deepEqual(estimateMiss(grid(1, 2, [1, 1]), grid(1, 2, [1, 1])), { row: 0, col: 0, patched: 1, estimate: 1, miss: 0, rowMiss: [0] });

  const heads = { patched: grid(2, 2, [0.8, 0, 0.1, 0.3]), estimate: grid(2, 2, [0.2, 0, 0.1, 0.32]) };
  const { text, resid, heads: h } = estimateWords({ patched, estimate }, heads, [' And', ' Abner', ' saw']);
  assert.equal(resid.row, 1);
  assert.deepEqual([h.row, h.col], [0, 0]);
  assert.ok(text.startsWith(`Largest miss in the residual stream: entering block 1 at position 0 (“${isolated(' And')}”), patched 0.50, estimated 0.10. `), text);
  assert.match(text, /Largest miss among the heads: L0H0, patched 0\.80, estimated 0\.20\. /);
  assert.match(text, /in every cell entering blocks 0 and 2 and for the heads of layer 1; it misses by more entering block 1 and for the heads of layer 0\.$/);
  assert.ok(text.includes(`within ${ESTIMATE_CLOSE}`), text);
  // Everywhere close, nowhere close.
  assert.match(estimateWords({ patched, estimate: patched }, { ...heads, estimate: heads.patched }, ['a', 'b']).text, /in every cell of both grids\.$/);
  const far = (g) => grid(...g.shape, Array.from(g.data, (x) => x + 1));
  assert.match(estimateWords({ patched, estimate: far(patched) }, { ...heads, estimate: far(heads.patched) }, ['a', 'b']).text, /not within .* anywhere/);
});

test('patching, attribution: on the presets the readout\'s largest misses are the package\'s grids\' largest differences', async () => {
  const lab = await loadLab(true);
  const { model, tokenizer } = await lab.loadBuiltinModel();
  for (const c of PRESETS) {
    const clean = tokenizer.encode(c.clean), corrupted = tokenizer.encode(c.corrupted);
    const metric = { target: tokenizer.encode(c.target)[0], baseline: tokenizer.encode(c.baseline)[0] };
    const pairs = [];
    for (const [what, per] of [['resid_pre', 'position'], ['z', 'head']]) {
      pairs.push({ patched: (await model.activationPatching(clean, corrupted, { what, per, metric })).grid,
        estimate: model.attributionPatching(clean, corrupted, { what, per, metric }).grid });
    }
    const { resid, heads } = estimateWords(...pairs, Array.from(clean, (id) => tokenizer.decode([id])));
    for (const [said, { patched, estimate }] of [[resid, pairs[0]], [heads, pairs[1]]]) {
      const misses = Array.from(patched.data, (p, i) => Math.abs(estimate.data[i] - p));
      const worst = misses.indexOf(Math.max(...misses));
      assert.deepEqual([said.row, said.col], [Math.floor(worst / patched.shape[1]), worst % patched.shape[1]], c.id);
    }
  }
});
