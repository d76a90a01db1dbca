// The heatmap's room for labels (web/components/heatmap-layout.js): it comes in steps, and a heatmap
// relabelling in place keeps it, so typing in a word rewrites labels instead of rebuilding the SVG.
import assert from 'node:assert/strict';
import test from 'node:test';

import { heatmapLayout } from '../../web/components/heatmap-layout.js';

// The multi-head lesson's sentence: 31 words, so the column labels are rotated.
const words = 'the animal did not cross the street because it was too tired and the cat sat on the warm mat while rain fell over quiet hills near an old stone bridge'.split(' ');
const spec = (labels) => ({ rows: labels.length, cols: labels.length, rowLabels: labels, colLabels: labels,
  rowTitle: 'Query', colTitle: 'Key', blocked: false });
const withWord = (i, word) => words.map((w, j) => (j === i ? word : w));

test('the room for labels comes in steps of 16 units at the natural font', () => {
  for (const labels of [words, withWord(3, 'nothing'), withWord(3, 'notwithstanding')]) {
    const { room, gridX, rotated } = heatmapLayout(spec(labels));
    assert.ok(rotated);
    assert.equal(room.left % 16, 0);
    assert.equal(room.band % 16, 0);
    assert.equal(gridX, room.left + 2);
  }
});

test('with an earlier layout\'s room, shorter labels move nothing and longer ones only grow it', () => {
  const long = heatmapLayout(spec(withWord(3, 'nevertheless')));
  const fresh = heatmapLayout(spec(words));
  assert.ok(fresh.gridX < long.gridX && fresh.height < long.height, 'the long word needs more room');
  const kept = heatmapLayout({ ...spec(words), room: long.room });
  for (const field of ['gridX', 'width', 'height']) assert.equal(kept[field], long[field], field);
  assert.deepEqual(kept.room, long.room);
  assert.deepEqual(kept.rowLabels.map(({ x, y }) => [x, y]), long.rowLabels.map(({ x, y }) => [x, y]));
  const longer = heatmapLayout({ ...spec(withWord(3, 'notwithstanding')), room: long.room });
  assert.ok(longer.room.left > long.room.left, 'a label past the kept room widens it');
});
