// The heatmap legend's three ticks (low, middle, high of the colour domain) printed with the heatmap's
// `decimals`, unless that would misstate a tick by more than 2.5% of the domain's width.
import assert from 'node:assert/strict';
import test from 'node:test';

import { legendTickLabels } from '../../web/components/format.js';

test('ticks use the heatmap\'s decimals', () => {
  assert.deepEqual(legendTickLabels(0, 1, 1), ['0', '0.5', '1']);
  assert.deepEqual(legendTickLabels(-1.23, 1.23, 1), ['\u22121.2', '0', '1.2']);  // not −1.23 … 1.23
  assert.deepEqual(legendTickLabels(0, 1 / 3, 4), ['0', '0.1667', '0.3333']);
  assert.deepEqual(legendTickLabels(0, 8, 0), ['0', '4', '8']);
});

test('a tick that the decimals would misstate gets the places it needs', () => {
  // decimals 0 on [0, 1]: the middle is 0.5, not "1" (or "0"), and a 0/1 mask's legend says so.
  assert.deepEqual(legendTickLabels(0, 1, 0), ['0', '0.5', '1']);
  // decimals 1 on [0, 0.36]: "0.2" for 0.18 and "0.4" for 0.36 are 6% and 11% of the width off; one
  // place more states all three.
  assert.deepEqual(legendTickLabels(0, 0.36, 1), ['0', '0.18', '0.36']);
});
