// Rotary positions, DOM-free (the page, tests/js/rotary-parts.test.js and the snippet case share it): how
// fast each pair of a head's dimensions turns, the page's own rotation of a query in Hugging Face's pairing,
// the largest difference between two computations, the loss of each next token from the logits, and the
// Try-this's check. Everything here is double precision; the package computes in float32.
import { formatNumber } from '../../dom.js';

export const TAU = 2 * Math.PI;

// ω_i = θ^(−2i/d) for i = 0 … d/2 − 1: how many radians pair i turns per position (Hugging Face's inv_freq).
export function frequencies(theta, dHead) {
  return Float64Array.from({ length: dHead / 2 }, (_, i) => theta ** (-(2 * i) / dHead));
}

// 2π/ω_i: after how many positions pair i has turned once round.
export const wavelengths = (omega) => Float64Array.from(omega, (w) => TAU / w);

// Hugging Face's rotate_half pairing: dimension i is paired with i + d/2, and the pair (x_i, x_{i+d/2}) at
// position p is turned by the angle p·ω_i: (x_i cos − x_{i+d/2} sin, x_{i+d/2} cos + x_i sin).
// q: one head's d numbers (any array) → Float64Array of d.
export function rotate(q, position, omega) {
  const half = omega.length;
  const out = new Float64Array(2 * half);
  for (let i = 0; i < half; i++) {
    const angle = position * omega[i];
    const c = Math.cos(angle), s = Math.sin(angle);
    out[i] = q[i] * c - q[i + half] * s;
    out[i + half] = q[i + half] * c + q[i] * s;
  }
  return out;
}

// The angle as it shows on a dial: p·ω wrapped into [0, 2π).
export const wrapped = (angle) => angle - TAU * Math.floor(angle / TAU);

// The largest |a − b| over the entries both hold as numbers; −∞ (a masked score) must be −∞ in both.
// → { value, index } (index −1 when nothing was compared); Infinity if a mask differs.
export function largestDifference(a, b) {
  if (a.length !== b.length) throw new Error(`largestDifference: ${a.length} and ${b.length} numbers`);
  let value = 0, index = -1;
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i]) || !Number.isFinite(b[i])) {
      if (a[i] !== b[i]) return { value: Infinity, index: i };
      continue;
    }
    const d = Math.abs(a[i] - b[i]);
    if (index < 0 || d > value) ({ value, index } = { value: d, index: i });
  }
  return { value, index };
}

// One head's attention scores (heads, t, t) cut to the queries and keys of positions from … from + n − 1.
export function scoresBlock(scores, head, from, n) {
  const [, t] = scores.shape;
  const out = new Float32Array(n * n);
  for (let i = 0; i < n; i++) out.set(scores.data.subarray((head * t + from + i) * t + from, (head * t + from + i) * t + from + n), i * n);
  return out;
}

// −log p(ids[start + r + 1]) for each row r of logits (rows × vocabulary, the rows after tokens start … ):
// the next token's loss at each position, in double precision from the float32 logits.
export function nextTokenLosses(logits, ids, start = 0) {
  const { rows, cols, data } = logits;
  const out = [];
  for (let r = 0; r < rows && start + r + 1 < ids.length; r++) {
    const row = data.subarray(r * cols, (r + 1) * cols);
    let max = -Infinity;
    for (const v of row) if (v > max) max = v;
    let sum = 0;
    for (const v of row) sum += Math.exp(v - max);
    out.push(Math.log(sum) + max - row[ids[start + r + 1]]);
  }
  return out;
}

// The held-out ids cut into `count` passages of `length` tokens, end to end from the first (as the training
// run cuts its held-out stream into windows): [Int32Array] of those that fit.
export function passages(ids, count, length) {
  return Array.from({ length: Math.min(count, Math.floor(ids.length / length)) }, (_, p) => ids.slice(p * length, (p + 1) * length));
}

// The mean of each block of `size` positions of per-position losses (arrays of equal length, averaged over
// the passages first): [[first position of the block, mean loss], …].
export function blockMeans(perPassage, size) {
  const n = Math.min(...perPassage.map((l) => l.length));
  const points = [];
  for (let from = 0; from < n; from += size) {
    const to = Math.min(n, from + size);
    let sum = 0;
    for (const losses of perPassage) for (let t = from; t < to; t++) sum += losses[t];
    points.push([from, sum / (perPassage.length * (to - from))]);
  }
  return points;
}

// The mean loss over positions [from, to) of every passage.
export function meanLoss(perPassage, from, to) {
  let sum = 0, n = 0;
  for (const losses of perPassage) for (let t = from; t < Math.min(to, losses.length); t++, n++) sum += losses[t];
  return n ? sum / n : NaN;
}

// What the curve shows, in words computed from it: the mean loss within the trained context and in each
// later stretch of the same length, and whether the later ones are higher. context: the trained length.
export function lossWords(perPassage, context) {
  const n = Math.min(...perPassage.map((l) => l.length));
  const stretches = [];
  for (let from = 0; from < n; from += context) stretches.push({ from, to: Math.min(n, from + context), mean: meanLoss(perPassage, from, from + context) });
  const [inside, ...past] = stretches;
  const nats = (x) => `${formatNumber(x, 2)} nats`;
  const said = past.map((s) => `${nats(s.mean)} at positions ${s.from}–${s.to - 1}`).join(', ');
  const worse = past.filter((s) => s.mean > inside.mean + 0.05).length;
  const verdict = worse === past.length
    ? 'Every stretch past the trained length is worse than the first: the model has never seen a query and a key this far apart, ' +
      'nor a pair turned this far, and what it learned does not carry over by itself.'
    : worse === 0
      ? 'The stretches past the trained length are no worse than the first here: on this text the model carries on past it.'
      : 'Some stretches past the trained length are worse than the first and some are not.';
  return { inside: inside.mean, past: past.map((s) => s.mean),
    text: `Mean loss per token: ${nats(inside.mean)} at positions 0–${inside.to - 1}, inside the length it was trained on; ${said}. ${verdict}` };
}

// Try this: after how many tokens has pair `pair` turned once round? Right within half a token of 2π/ω.
export function checkComeBack(guess, pair, omega) {
  const wavelength = TAU / omega[pair];
  if (!Number.isFinite(guess) || guess <= 0) return { correct: false, message: 'Type a number of tokens above 0.' };
  const exact = `2π / ω_${pair} = ${formatNumber(wavelength, 2)} tokens`;
  if (Math.abs(guess - wavelength) <= 0.5) {
    return { correct: true, message: `Right: ${exact}. At position ${Math.round(wavelength)} its dial points almost where it pointed at position 0, ` +
      'so this pair alone cannot tell position 0 from that one: the slower pairs can.' };
  }
  return { correct: false, message: `Not quite: pair ${pair} turns ${formatNumber(omega[pair], 4)} radians per token, so a full turn (2π radians) takes ` +
    `${exact}. (You said ${formatNumber(guess, 2)}.)` };
}

// The pair the Try-this asks about: the third, which comes back round within a short prompt at θ = 10,000.
export const EXERCISE_PAIR = 2;
