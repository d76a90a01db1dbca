// Ties among induction heads (issue 51, item 1): on attnlab-kjv at repeat length 30, seed 0, L1H1 scores 0.945,
// L1H0 0.938 and L1H3 0.935 — within 0.01, so the induction circuit lesson must call them a tie, not name
// "the strongest induction head"; and at length 10 L1H3 is first. The words are checked on the numbers
// by hand, and the ranking on the model's scores as the lesson measures them.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { inductionRanking, tieWords, TIE } from '../../site/src/head-ties.js';
import { repeatScores } from '../../site/src/lessons/induction-circuit/parts.js';
import { lab as loadLab } from './helpers.js';

const config = { numLayers: 2, numHeads: 4 };
const names = (heads) => heads.map(({ layer, head }) => `L${layer}H${head}`);

test('induction heads within 0.01 of the best are a tie, named with their scores (the issue\'s numbers)', () => {
  // Layer 0 scores are left out (nothing before them to read); layer 1 as the issue gives it.
  const induction = Float64Array.from([0.99, 0, 0, 0, 0.938, 0.945, 0.017, 0.935]);
  const ranking = inductionRanking({ induction }, config);
  assert.deepEqual(names(ranking.ranked), ['L1H1', 'L1H0', 'L1H3', 'L1H2']);
  assert.deepEqual(names(ranking.tied), ['L1H1', 'L1H0', 'L1H3']);
  const words = tieWords(ranking);
  assert.match(words, /L1H1’s, 0\.945, but L1H0 \(0\.938\) and L1H3 \(0\.935\) are within 0\.01 of it: a tie/);
  assert.doesNotMatch(words, /strongest/);
  // 0.945 against 0.930: 0.015 apart, no tie.
  const apart = inductionRanking({ induction: Float64Array.from([0, 0, 0, 0, 0.93, 0.945, 0.017, 0.9]) }, config);
  assert.deepEqual(names(apart.tied), ['L1H1']);
  assert.match(tieWords(apart), /more than 0\.01 above any other/);
  assert.equal(TIE, 0.01);
});

test('on attnlab-kjv the lesson\'s scores tie L1H1, L1H0 and L1H3 at length 30, and put L1H3 first at length 10', async () => {
  const lab = await loadLab(true);
  const { model } = await lab.loadBuiltinModel();
  const range = { seed: 0, low: 256, high: model.config.vocabSize - 1 };
  const thirty = inductionRanking(repeatScores(lab, model, { ...range, length: 30 }), model.config);
  assert.deepEqual(names(thirty.tied), ['L1H1', 'L1H0', 'L1H3']);
  [0.945, 0.938, 0.935].forEach((score, i) => assert.ok(Math.abs(thirty.tied[i].score - score) < 5e-4, `${thirty.tied[i].score}`));
  const ten = inductionRanking(repeatScores(lab, model, { ...range, length: 10 }), model.config);
  assert.equal(names(ten.ranked)[0], 'L1H3');
  assert.ok(ten.tied.length > 1, 'length 10 is a tie too');
  model.dispose();
});
