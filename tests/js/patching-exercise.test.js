// The patching lesson's Try-this ("which position carries it into block 1?", site/src/lessons/patching/parts.js)
// accepts the one position whose resid_pre patch restores most by plain PyTorch — the lesson's own program,
// site/src/lessons/patching/program.py, run under Debian's python3-torch — and refuses every other one, for the
// three presets and a pair of the learner's; a refusal names the right position.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { isolated } from '../../site/src/dom.js';
import { checkPositionGuess, differingPositions, exerciseLayer, lengthMismatch, PRESETS } from '../../site/src/lessons/patching/parts.js';
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
