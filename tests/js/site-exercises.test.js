// The site's exercises (site/src/lessons/exercises/parts.js) accept every correct answer and refuse wrong ones,
// over 300 seeds, against an independent solution: the learner's working from the X the page shows
// (two decimals), done here in double precision from the formula.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { exerciseSet, QUERY_ROW, SCORE_AT } from '../../site/src/lessons/exercises/parts.js';
import { lab } from './helpers.js';

const SEEDS = 300;
const dot = (x, i, j) => {
  let s = 0;
  for (let c = 0; c < x.cols; c++) s += Number(x.data[i * x.cols + c].toFixed(2)) * Number(x.data[j * x.cols + c].toFixed(2));
  return s;
};

test('exercises: every correct answer is accepted and wrong ones refused, 300 seeds', async () => {
  const l = await lab(true);
  for (let seed = 0; seed < SEEDS; seed++) {
    const { tokens, x, check } = exerciseSet(l, seed);
    const n = tokens.length;
    // X as printed on the page (two decimals) is X itself.
    for (const v of x.data) assert.ok(Math.abs(v - Number(v.toFixed(2))) < 1e-6, `seed ${seed}: X holds ${v}, not its two-decimal print`);
    // 1: the softmax is monotone, so the most-weighted key has the largest score q·k/√8 (ties: every one).
    const row = Array.from({ length: n }, (_, j) => dot(x, QUERY_ROW, j) / Math.sqrt(8));
    const top = Math.max(...row);
    for (let j = 0; j < n; j++) {
      const isTop = Math.abs(row[j] - top) < 1e-9;
      if (Math.abs(row[j] - top) < 1e-4 && !isTop) continue;  // a near-tie float32 may order either way
      assert.equal(check.key(j).correct, isTop, `seed ${seed}: key ${j} (${tokens[j]}), score ${row[j]} vs best ${top}`);
    }
    // 2: the score from the shown digits, rounded to two decimals or cut off — both right; 0.05 off is wrong.
    const truth = dot(x, ...SCORE_AT);
    assert.ok(check.score(truth.toFixed(2)).correct, `seed ${seed}: score ${truth.toFixed(2)} (exact ${truth})`);
    assert.ok(check.score(String(Math.trunc(truth * 100) / 100)).correct, `seed ${seed}: cut-off score`);
    assert.ok(!check.score((truth + 0.05).toFixed(2)).correct, `seed ${seed}: a wrong score`);
    assert.ok(!check.score('').correct);
  }
});

test('exercises: the mask, shape and row-sum answers, 300 seeds', async () => {
  const l = await lab(true);
  for (let seed = 0; seed < SEEDS; seed++) {
    const { check } = exerciseSet(l, seed);
    assert.ok(check.mask('causal').correct);
    assert.ok(!check.mask('none').correct);
    assert.ok(!check.mask('padding').correct);
    // Q 4×8 against K, V 6×8: one output row per query, as wide as V.
    assert.ok(check.shape('4', '8').correct);
    assert.ok(!check.shape('6', '8').correct);
    assert.ok(check.rowSum('1').correct && check.rowSum('1.00').correct);
    assert.ok(!check.rowSum('').correct && !check.rowSum('0').correct);
  }
});
