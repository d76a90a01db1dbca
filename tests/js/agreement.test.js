// Native vs wasm, and SIMD vs scalar: the same seeded cases must agree to 1e-5 (relative). The native
// results come from build/native/tests/attnlab_agreement_dump (built by scripts/test.sh first).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';

import { VARIANTS, assertClose, lab } from './helpers.js';

const dumpPath = new URL('../../build/native/tests/attnlab_agreement_dump', import.meta.url).pathname;

function nativeResults() {
  assert.ok(existsSync(dumpPath), `${dumpPath} is missing: build the native tree first (scripts/test.sh does)`);
  const toMatrix = ({ rows, cols, data }) => ({ rows, cols, data: Float32Array.from(data) });
  const raw = JSON.parse(execFileSync(dumpPath, { encoding: 'utf8', maxBuffer: 1 << 26 }));
  return {
    randn: toMatrix(raw.randn),
    sdpa: { output: toMatrix(raw.sdpa.output), weights: toMatrix(raw.sdpa.weights) },
    mha: { output: toMatrix(raw.mha.output), weights: raw.mha.weights.map(toMatrix) },
    crossRotary: toMatrix(raw.cross_rotary.output),
    encoder: toMatrix(raw.encoder.output),
    sinusoidal: toMatrix(raw.sinusoidal),
  };
}

// The same cases as tests/tools/agreement_dump.cpp, through the package.
function wasmResults(l) {
  const sdpa = l.scaledDotProductAttention(l.randn(5, 8, 1), l.randn(7, 8, 2), l.randn(7, 6, 3), { causal: true });
  const mha = new l.MultiHeadAttention({ dModel: 16, numHeads: 4, seed: 3 });
  const x = l.randn(6, 16, 4);
  const attention = mha.forward(x, x, x, { causal: true });
  const cross = new l.MultiHeadAttention({ dModel: 16, numHeads: 2, positions: 'rotary', seed: 8 });
  const memory = l.randn(5, 16, 11);
  const crossRotary = cross.forward(l.randn(3, 16, 10), memory, memory).output;
  const layer = new l.TransformerEncoderLayer({ dModel: 16, numHeads: 2, dFF: 32, normFirst: true, norm: 'rmsnorm', seed: 5 });
  const encoder = layer.forward(l.randn(5, 16, 6));
  [mha, cross, layer].forEach((module) => module.dispose());
  return {
    randn: l.randn(3, 4, 9),
    sdpa: { output: sdpa.output, weights: sdpa.weights },
    mha: { output: attention.output, weights: attention.weights },
    crossRotary,
    encoder,
    sinusoidal: l.positionalEncoding(10, 16),
  };
}

function assertAgree(actual, expected) {
  const tolerance = { atol: 1e-6, rtol: 1e-5 };
  assert.deepEqual(actual.randn.data, expected.randn.data, 'seeded inputs are bit-identical');
  assertClose(actual.sdpa.output, expected.sdpa.output, { ...tolerance, what: 'sdpa output' });
  assertClose(actual.sdpa.weights, expected.sdpa.weights, { ...tolerance, what: 'sdpa weights' });
  assertClose(actual.mha.output, expected.mha.output, { ...tolerance, what: 'mha output' });
  actual.mha.weights.forEach((w, h) => assertClose(w, expected.mha.weights[h], { ...tolerance, what: `mha head ${h}` }));
  assertClose(actual.crossRotary, expected.crossRotary, { ...tolerance, what: 'cross-attention with RoPE' });
  assertClose(actual.encoder, expected.encoder, { ...tolerance, what: 'encoder layer' });
  assertClose(actual.sinusoidal, expected.sinusoidal, { atol: 1e-7, rtol: 0, what: 'sinusoidal' });
}

describe('native vs wasm agreement', () => {
  const native = nativeResults();
  for (const variant of VARIANTS) {
    test(`native vs wasm ${variant.name}`, async () => assertAgree(wasmResults(await lab(variant.simd)), native));
  }
  test('wasm SIMD vs wasm scalar, larger shapes', async () => {
    const [simd, scalar] = [await lab(true), await lab(false)];
    for (const [n, d] of [[33, 64], [128, 64], [17, 40]]) {
      const run = (l) => l.scaledDotProductAttention(l.randn(n, d, 1), l.randn(n, d, 2), l.randn(n, d, 3), { causal: true });
      const [a, b] = [run(simd), run(scalar)];
      assertClose(a.weights, b.weights, { atol: 1e-6, rtol: 1e-5, what: `weights ${n}×${d}` });
      assertClose(a.output, b.output, { atol: 1e-6, rtol: 1e-5, what: `output ${n}×${d}` });
    }
  });
});
