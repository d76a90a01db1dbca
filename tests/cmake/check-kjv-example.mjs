// Checks examples/cpp-kjv's output (read from stdin) against PyTorch: the logit lens of attnlab-kjv on
// "Thou shalt love thy neighbour as" that tests/fixtures/make_interp_fixtures.py computed (lens case 0 in
// tests/fixtures/interp/kjv.json, its probabilities in kjv-cache.safetensors): at every point the
// example's top token is PyTorch's argmax and its probability PyTorch's to the 3 decimals printed.
//   build/kjv web/models/kjv | node tests/cmake/check-kjv-example.mjs
import { readFileSync } from 'node:fs';

const fixtures = new URL('../fixtures/interp/', import.meta.url);
const { lens } = JSON.parse(readFileSync(new URL('kjv.json', fixtures), 'utf8'));
const file = readFileSync(new URL('kjv-cache.safetensors', fixtures));
const headerLength = Number(file.readBigUInt64LE(0));
const header = JSON.parse(file.subarray(8, 8 + headerLength).toString('utf8'));
const probabilities = (name) => {  // an F32 tensor of the cache file
  const [begin, end] = header[name].data_offsets;
  const bytes = file.subarray(8 + headerLength + begin, 8 + headerLength + end);
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};

const lines = readFileSync(0, 'utf8').trim().split('\n');
const expectations = [[0, /^4 layers, 4 heads, 2590848 parameters; the prompt is 6 tokens$/], [1, /^continued: ".+"$/]];
for (const [i, pattern] of expectations) {
  if (!pattern.test(lines[i])) throw new Error(`examples/cpp-kjv line ${i + 1}: ${JSON.stringify(lines[i])} is not ${pattern}`);
}
const { points } = lens[0];
if (lines.length !== 2 + points.length) throw new Error(`examples/cpp-kjv printed ${lines.length - 2} lens points, not ${points.length}`);
points.forEach((point, j) => {
  const p = probabilities(`lens0.${j}`);
  let top = 0;
  for (let t = 1; t < p.length; t++) if (p[t] > p[top]) top = t;
  const printed = lines[2 + j].match(/^(\S+)\s+(\d+)\s+".*"\s+([\d.]+)$/);
  if (!printed || printed[1] !== point || Number(printed[2]) !== top || Math.abs(Number(printed[3]) - p[top]) > 6e-4) {
    throw new Error(`examples/cpp-kjv lens line ${JSON.stringify(lines[2 + j])}: PyTorch has ${point} top ${top} at ${p[top].toFixed(4)}`);
  }
});
console.log(`examples/cpp-kjv: ${points.length} lens points agree with PyTorch`);
