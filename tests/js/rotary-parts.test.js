// The rotary lesson's DOM-free parts (site/src/lessons/rotary/parts.js) against hand computation: each pair's
// speed and wavelength, the turn in Hugging Face's rotate_half pairing, the largest difference, the next-token
// loss, the passages and their means, and the Try-this's check.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { blockMeans, checkComeBack, frequencies, largestDifference, lossWords, meanLoss, nextTokenLosses, passages, rotate,
  scoresBlock, wavelengths, wrapped } from '../../site/src/lessons/rotary/parts.js';

const near = (a, b, tolerance = 1e-12) => assert.ok(Math.abs(a - b) <= tolerance, `${a} vs ${b}`);

test('ω_i = θ^(−2i/d): pair 0 turns one radian a token, pair i of d = 4 at θ = 100 a tenth', () => {
  const omega = frequencies(100, 4);
  assert.equal(omega.length, 2);
  near(omega[0], 1);
  near(omega[1], 0.1);
  near(frequencies(10000, 48)[12], 0.01);  // 10000^(−24/48) = 1/100
  near(wavelengths(omega)[1], 20 * Math.PI);
});

test('rotate pairs dimension i with i + d/2 and turns the pair anticlockwise by p·ω_i', () => {
  const omega = Float64Array.of(Math.PI / 2, Math.PI);  // d = 4: pairs (0, 2) and (1, 3)
  const out = rotate([1, 2, 0, 5], 1, omega);
  // pair 0: (1, 0) turned a quarter → (0, 1); pair 1: (2, 5) turned a half → (−2, −5)
  [0, -2, 1, -5].forEach((v, i) => near(out[i], v));
  const still = rotate([3, 4, 5, 6], 0, omega);
  [3, 4, 5, 6].forEach((v, i) => near(still[i], v));
  // a turn keeps each pair's length
  const q = [0.3, -1.2, 0.7, 0.25];
  const r = rotate(q, 17, frequencies(10000, 4));
  near(Math.hypot(r[0], r[2]), Math.hypot(q[0], q[2]));
  near(Math.hypot(r[1], r[3]), Math.hypot(q[1], q[3]));
  near(wrapped(5 * Math.PI), Math.PI);
});

test('the largest difference skips scores masked in both and refuses a mask in one', () => {
  assert.deepEqual(largestDifference([1, -Infinity, 3], [1.5, -Infinity, 2.75]), { value: 0.5, index: 0 });
  assert.equal(largestDifference([1, -Infinity], [1, 0]).value, Infinity);
  assert.deepEqual(largestDifference([-Infinity], [-Infinity]), { value: 0, index: -1 });
});

test('scoresBlock cuts one head’s queries and keys from a later start', () => {
  // 2 heads × 3 × 3, value = 100·head + 10·query + key
  const data = Float32Array.from({ length: 18 }, (_, i) => 100 * Math.floor(i / 9) + 10 * Math.floor((i % 9) / 3) + (i % 3));
  assert.deepEqual(Array.from(scoresBlock({ shape: [2, 3, 3], data }, 1, 1, 2)), [111, 112, 121, 122]);
});

test('the next token’s loss is −log softmax: logits (0, ln 3) give ln 4 for token 0 and ln(4/3) for token 1', () => {
  const logits = { rows: 2, cols: 2, data: Float32Array.of(0, Math.log(3), 0, Math.log(3)) };
  const losses = nextTokenLosses(logits, [9, 0, 1]);
  near(losses[0], Math.log(4), 1e-6);
  near(losses[1], Math.log(4 / 3), 1e-6);
  assert.equal(nextTokenLosses(logits, [9, 0, 1], 1).length, 1);  // a slice starting at 1: one next token left
});

test('passages are cut end to end; block means average over passages and positions', () => {
  assert.deepEqual(passages([0, 1, 2, 3, 4, 5, 6], 3, 3).map((p) => Array.from(p)), [[0, 1, 2], [3, 4, 5]]);
  const per = [[1, 2, 3, 4, 5], [3, 4, 5, 6, 7]];
  assert.deepEqual(blockMeans(per, 2), [[0, 2.5], [2, 4.5], [4, 6]]);
  near(meanLoss(per, 0, 2), 2.5);
  const words = lossWords([[1, 1, 3, 3], [1, 1, 3, 3]], 2);
  near(words.inside, 1);
  assert.deepEqual(words.past, [3]);
  assert.match(words.text, /^Mean loss per token: 1\.00 nats at positions 0–1, inside the length it was trained on; 3\.00 nats at positions 2–3\. Every stretch past/);
  assert.match(lossWords([[2, 2, 1, 1]], 2).text, /no worse than the first/);
});

test('Try this: a pair comes back round after 2π/ω tokens, to within half a token', () => {
  const omega = frequencies(10000, 48);  // pair 2: 2π·10000^(4/48) = 13.54 tokens
  assert.equal(checkComeBack(14, 2, omega).correct, true);
  assert.equal(checkComeBack(13.5, 2, omega).correct, true);
  assert.equal(checkComeBack(13, 2, omega).correct, false);
  assert.match(checkComeBack(13, 2, omega).message, /13\.54 tokens/);
  assert.equal(checkComeBack(Number.NaN, 2, omega).correct, false);
  assert.equal(checkComeBack(6, 0, omega).correct, true);  // pair 0: 2π
});
