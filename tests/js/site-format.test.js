// The site's number formats (no "−0.00", probabilities readable at every size) and its definition of a loop.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { formatNumber, formatPercent } from '../../site/src/dom.js';

test('a value that rounds to zero is 0, never −0', () => {
  assert.equal(formatNumber(-0.001), '0.00');
  assert.equal(formatNumber(-0), '0.00');
  assert.equal(formatNumber(-0.004, 2), '0.00');
  assert.equal(formatNumber(-0.005001, 2), '−0.01');
  assert.equal(formatNumber(1.236, 2), '1.24');
  assert.equal(formatNumber(-Infinity), '−∞');
});

test('probabilities: one decimal from 0.1 %, two significant digits below, 0 % only for zero', () => {
  assert.equal(formatPercent(0.5), '50.0%');
  assert.equal(formatPercent(0.001), '0.1%');
  assert.equal(formatPercent(0.00031), '0.031%');
  assert.equal(formatPercent(2.5e-7), '0.000025%');
  assert.equal(formatPercent(0), '0%');
});

test('a sample loops when a 4-gram of its tokens occurs three times (counted by hand)', async () => {
  const { loops } = await import('../../site/src/loops.js');
  assert.equal(loops([1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]), true);   // "1 2 3 4" three times
  assert.equal(loops([1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 5]), false);  // twice, and 4-grams overlapping once more
  assert.equal(loops([7, 7, 7, 7, 7, 7]), true);                     // "7 7 7 7" at 0, 1 and 2
  assert.equal(loops([7, 7, 7, 7, 7]), false);
  assert.equal(loops([]), false);
});
