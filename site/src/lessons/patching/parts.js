// Patching with two prompts, DOM-free (the page and tests/js/patching-exercise.test.js share it): the
// presets, whether both prompts have the same number of tokens, where they differ, the head a
// sweep found strongest, the Try-this's check, and where attribution patching's estimates miss the patched grids.
import { formatNumber, isolated } from '../../dom.js';
import { tokenLabel } from '../../token-label.js';

// Pairs chosen by measuring attnlab-kjv (the page shows each run's logit difference live): each corrupted
// prompt changes one token of the clean one, and the logit difference changes sign.
export const PRESETS = [
  { id: 'induction', label: 'A repeated phrase (the induction circuit)',
    clean: 'And Abner saw Aaron. And Abner saw', corrupted: 'And Abner met Aaron. And Abner saw', target: ' Aaron', baseline: ' Abner' },
  { id: 'name', label: 'A name to copy',
    clean: 'And the son of Abraham went out. And the son of', corrupted: 'And the son of Abner went out. And the son of', target: ' Abraham', baseline: ' Abner' },
  { id: 'phrase', label: 'A phrase the model knows',
    clean: 'In the beginning God created the heaven and the', corrupted: 'In the beginning God created the water and the', target: ' earth', baseline: ' water' },
];

// The preset the four texts are, or undefined (the learner's own pair).
export const presetOf = ({ clean, corrupted, target, baseline }) =>
  PRESETS.find((p) => p.clean === clean && p.corrupted === corrupted && p.target === target && p.baseline === baseline);

const spelled = (tokenizer, ids) => ids.map((id) => `“${isolated(tokenLabel(tokenizer, id))}”`).join(' ');

// Patching puts position j of one run into position j of the other, so the prompts must be as long in
// tokens: null when they are, else what to tell the learner, with both tokenisations.
export function lengthMismatch(tokenizer, clean, corrupted) {
  if (clean.length === corrupted.length) return null;
  return `The clean prompt is ${clean.length} tokens and the corrupted one ${corrupted.length}: patching puts ` +
    'each position of one run into the same position of the other, so they must be the same length. ' +
    `Clean: ${spelled(tokenizer, clean)}. Corrupted: ${spelled(tokenizer, corrupted)}. Change words so the counts match ` +
    '(a common word with its leading space is usually one token).';
}

// The positions whose tokens differ: [j].
export const differingPositions = (clean, corrupted) => Array.from(clean.keys()).filter((j) => clean[j] !== corrupted[j]);

// Every head of a per-head grid (Tensor [layers, heads]), largest value first: [{ layer, head, value }].
export function rankedHeads(grid) {
  const heads = grid.shape[1];
  return Array.from(grid.data, (value, i) => ({ layer: Math.floor(i / heads), head: i % heads, value }))
    .sort((a, b) => b.value - a.value);
}

// The (layer, head) with the largest value of a per-head grid (Tensor [layers, heads]), among the layers
// below `belowLayer` (a sender needs a later layer to send to).
export function strongestHead(grid, belowLayer = grid.shape[0]) {
  const heads = grid.shape[1];
  let best = null;
  for (let i = 0; i < belowLayer * heads; i++) if (best === null || grid.data[i] > grid.data[best]) best = i;
  return { layer: Math.floor(best / heads), head: best % heads, value: grid.data[best] };
}

// The block whose incoming stream the Try-this asks about: block 1, where block 0's heads have already
// moved information between positions (block 0 of a one-layer model).
export const exerciseLayer = (numLayers) => Math.min(1, numLayers - 1);

// The position whose resid_pre patch restores most in one layer's row of the resid_pre grid (Tensor
// [layers, seq]); the first of equals.
export function strongestPosition(grid, layer) {
  const T = grid.shape[1], row = grid.data.subarray(layer * T, (layer + 1) * T);
  let best = 0;
  for (let j = 1; j < T; j++) if (row[j] > row[best]) best = j;
  return { position: best, value: row[best] };
}

// "Which position carries the answer into block `layer`?": the learner's position against the sweep.
export function checkPositionGuess(grid, layer, guess, labels, differing) {
  const { position, value } = strongestPosition(grid, layer);
  const T = grid.shape[1];
  if (!(guess >= 0 && guess < T)) return { correct: false, message: `The prompt has no position ${guess}.` };
  const at = (j) => `position ${j} (“${isolated(labels[j])}”)`;
  const restored = (j) => formatNumber(grid.data[layer * T + j], 2);
  const moved = differing.includes(position) ? '' : ` The prompts differ at ${differing.map(at).join(' and ')}: ` +
    `the blocks before ${layer} have already carried that difference to ${at(position)}.`;
  return guess === position
    ? { correct: true, message: `Right: patching ${at(position)} restores ${formatNumber(value, 2)} of the clean answer, more than any other position.${moved}` }
    : { correct: false, message: `Not this one: patching ${at(guess)} restores ${restored(guess)}. The position that restores most is ${at(position)}, ${formatNumber(value, 2)}.${moved}` };
}

// What the page says when the package finds that the clean run does not favour the target over the baseline
// more than the corrupted run does (its result's warning): the two values, and why the grids' shares then
// say nothing about restoring. t and b: the target and baseline as the page quotes them.
export function unfavourableWords(clean, corrupted, t, b) {
  const more = clean <= corrupted ? 'as much or more' : 'barely less';
  return `Careful: patching cannot be read on this pair. It measures how much of the gap between the two runs’ ` +
    `logit[${t}] − logit[${b}] a patch brings back, so the clean prompt has to favour ${t} over ${b} clearly more than ` +
    `the corrupted one. Here the clean prompt gives ${formatNumber(clean, 3)} and the corrupted one ${formatNumber(corrupted, 3)}: ` +
    `the corrupted prompt favours ${t} ${more}. The grids below divide by that gap (${formatNumber(clean - corrupted, 3)}), ` +
    'so a share above 1 or below 0 is not “more than all” or “less than none” of an answer, only a small or backwards gap ' +
    `made large. Swap the target and the baseline, or change the corrupted prompt so that it favours ${b}.`;
}

// Said in place of each readout of a pair patching cannot read.
export const NOT_READ = 'Not read: on this pair these shares do not measure what comes back (see the warning above).';

// Attribution patching beside activation patching: the estimate "holds" in a row of a grid (a block's positions,
// a layer's heads) when every cell of it is within this of the patched share — a tenth of the clean − corrupted gap.
export const ESTIMATE_CLOSE = 0.1;

// A patched grid and its estimate ({ shape: [rows, cols], data }, one shape): the cell where they differ most
// (the first of equals) as { row, col, patched, estimate, miss }, and rowMiss: each row's largest |estimate − patched|.
export function estimateMiss(patched, estimate) {
  const [rows, cols] = patched.shape;
  const rowMiss = new Array(rows).fill(0);
  let worst = 0, largest = -1;
  for (let i = 0; i < rows * cols; i++) {
    const miss = Math.abs(estimate.data[i] - patched.data[i]);
    const row = Math.floor(i / cols);
    rowMiss[row] = Math.max(rowMiss[row], miss);
    if (miss > largest) [worst, largest] = [i, miss];
  }
  return { row: Math.floor(worst / cols), col: worst % cols, patched: patched.data[worst], estimate: estimate.data[worst], miss: largest, rowMiss };
}

// "0", "0 and 2", "0, 1 and 3".
const listed = (xs) => (xs.length < 2 ? String(xs[0]) : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);
const rowsWhere = (rowMiss, holds) => rowMiss.flatMap((miss, row) => ((miss <= ESTIMATE_CLOSE) === holds ? [row] : []));

// The readout under the estimate grids, from the two pairs of grids (resid, heads: { patched, estimate }; labels: the
// clean prompt's tokens): each grid's largest |estimate − patched| and where, then the rows the estimate holds in on
// this pair and the rows it misses in. → { text, resid, heads } (the two estimateMiss results).
export function estimateWords(resid, heads, labels) {
  const r = estimateMiss(resid.patched, resid.estimate), h = estimateMiss(heads.patched, heads.estimate);
  const numbers = (m) => `patched ${formatNumber(m.patched, 2)}, estimated ${formatNumber(m.estimate, 2)}`;
  const blocks = (xs) => `entering block${xs.length > 1 ? 's' : ''} ${listed(xs)}`;
  const layers = (xs) => `for the heads of layer${xs.length > 1 ? 's' : ''} ${listed(xs)}`;
  const part = (holds) => [[r.rowMiss, blocks], [h.rowMiss, layers]].flatMap(([rowMiss, words]) => {
    const rows = rowsWhere(rowMiss, holds);
    return rows.length ? [words(rows)] : [];
  });
  const [holds, fails] = [part(true), part(false)];
  const close = `within ${formatNumber(ESTIMATE_CLOSE, 1)} of the patched share (a tenth of the clean − corrupted gap)`;
  const verdict = fails.length === 0 ? `On this pair the estimate is ${close} in every cell of both grids.`
    : holds.length === 0 ? `On this pair the estimate is not ${close} anywhere: every block’s row and every layer’s heads hold a cell it misses by more.`
    : `On this pair the estimate is ${close} in every cell ${holds.join(' and ')}; it misses by more ${fails.join(' and ')}.`;
  const text = `Largest miss in the residual stream: entering block ${r.row} at position ${r.col} (“${isolated(labels[r.col])}”), ` +
    `${numbers(r)}. Largest miss among the heads: L${h.row}H${h.col}, ${numbers(h)}. ${verdict}`;
  return { text, resid: r, heads: h };
}
