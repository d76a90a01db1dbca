// Shared by the JS tests: the package under test (built into web/dist by scripts/build-wasm.sh), the
// PyTorch fixtures, and a tolerance comparison.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { init } from '../../web/index.js';

export { init };
export const VARIANTS = [
  { name: 'simd', simd: true },
  { name: 'scalar', simd: false },
];

const labs = new Map();
export async function lab(simd) {
  if (!labs.has(simd)) labs.set(simd, await init({ simd }));
  return labs.get(simd);
}

// The same lab with its training module (TaskModel) loaded.
export async function trainingLab(simd) {
  return (await lab(simd)).loadTraining();
}

// tests/fixtures/<name>.json with tensors as Matrix / Float32Array / array of per-head Matrix.
export function fixture(name) {
  const raw = JSON.parse(readFileSync(new URL(`../fixtures/${name}.json`, import.meta.url), 'utf8'));
  const out = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === null || typeof value !== 'object' || !('shape' in value)) {
      out[key] = value;
      continue;
    }
    const { shape, data } = value;
    if (shape.length === 1) out[key] = Float32Array.from(data);
    else if (shape.length === 2) out[key] = { rows: shape[0], cols: shape[1], data: Float32Array.from(data) };
    else {
      const size = shape[1] * shape[2];
      out[key] = Array.from({ length: shape[0] }, (_, h) => ({
        rows: shape[1], cols: shape[2], data: Float32Array.from(data.slice(h * size, (h + 1) * size)),
      }));
    }
  }
  return out;
}

// |a − e| ≤ atol + rtol·|e| for every entry, with the first offender in the message.
export function assertClose(actual, expected, { atol = 1e-5, rtol = 1e-5, what = 'matrix' } = {}) {
  assert.equal(actual.rows, expected.rows, `${what}: rows`);
  assert.equal(actual.cols, expected.cols, `${what}: cols`);
  assert.ok(actual.data instanceof Float32Array, `${what}: data is a Float32Array`);
  assert.equal(actual.data.length, expected.data.length, `${what}: length`);
  for (let i = 0; i < expected.data.length; i++) {
    const a = actual.data[i];
    const e = expected.data[i];
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) {
      assert.fail(`${what}: entry ${i} (row ${Math.floor(i / expected.cols)}, col ${i % expected.cols}) is ${a}, expected ${e}`);
    }
  }
}

export function rowSums(m) {
  return Array.from({ length: m.rows }, (_, r) => m.data.slice(r * m.cols, (r + 1) * m.cols).reduce((s, x) => s + x, 0));
}

export function at(m, r, c) {
  return m.data[r * m.cols + c];
}

// A .safetensors file of F32 tensors (the fixture scripts write only those) → name → { shape, data }.
export function readSafetensors(url) {
  const file = readFileSync(url);
  const length = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.subarray(8, 8 + length).toString('utf8'));
  const tensors = new Map();
  for (const [name, { shape, data_offsets: [begin, end] }] of Object.entries(header)) {
    const raw = file.subarray(8 + length + begin, 8 + length + end);
    tensors.set(name, { shape, data: new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length)) });
  }
  return tensors;
}
