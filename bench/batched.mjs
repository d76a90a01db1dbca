// Multi-head attention on a batch, the tutorials' shapes: x (batch 8, seq 128, d_model 512), 8 heads,
// in Node on one thread: attnlab's tensor call with weights: false (output only, as the peer computes)
// and with the (8, 8, 128, 128) weights, attnlab's Matrix call once per sequence (output only), and
// onnxruntime-web's session.run of the same layer with a batch dim (bench/onnx-graphs.mjs
// multiHeadModel). Every output is checked against attnlab's tensor call before timing; interleaved
// medians (bench/harness.mjs) → bench/batched-results.md.
import { writeFileSync } from 'node:fs';

import { init } from '../web/index.js';
import { mismatch, SAMPLES, timeInterleaved } from './harness.mjs';
import { ortWebBatchedMha } from './peers.mjs';

const [BATCH, N, D, HEADS] = [8, 128, 512, 8];
const lab = await init({ simd: true, threads: 1 });
const mha = new lab.MultiHeadAttention({ dModel: D, numHeads: HEADS, seed: 7 });
const x = lab.randn([BATCH, N, D], 4);
const sequences = Array.from({ length: BATCH }, (_, b) => ({ rows: N, cols: D, data: x.data.subarray(b * N * D, (b + 1) * N * D) }));

let last;
const tensorCall = { run: () => { last = mha.forward(x, x, x); }, output: () => last.output.data };
let lean;
const tensorLean = { run: () => { lean = mha.forward(x, x, x, { weights: false }); }, output: () => lean.output.data };
let loopOut;
const loopCall = {
  run: () => { loopOut = sequences.map((s) => mha.forward(s, s, s, { weights: false }).output.data); },
  output: () => { const out = new Float32Array(BATCH * N * D); loopOut.forEach((o, b) => out.set(o, b * N * D)); return out; },
};
const ort = await ortWebBatchedMha({ x, weights: mha.weights() }, HEADS);

const impls = [['attnlab wasm SIMD: mha.forward(x (8, 128, 512), { weights: false }) (output only)', tensorLean],
  ['attnlab wasm SIMD: mha.forward(x (8, 128, 512)) (with the (8, 8, 128, 128) weights)', tensorCall],
  ['attnlab wasm SIMD: mha.forward per sequence, weights: false (output only)', loopCall],
  ['onnxruntime-web session.run on (8, 128, 512) (wasm SIMD, 1 thread, output only)', ort]];
for (const [, impl] of impls) await impl.run();
const reference = tensorCall.output();
const errors = impls.map(([, impl]) => mismatch(impl.output(), reference));
const times = await timeInterleaved(impls.map(([, impl]) => impl));
const flops = BATCH * (4 * N * N * D + 8 * N * D * D);
const base = times[0].median;
const rows = impls.map(([name], i) => `| ${name} | ${times[i].median.toFixed(2)} | ${times[i].min.toFixed(2)}–${times[i].max.toFixed(2)} | ` +
  `${(flops / (times[i].median * 1e6)).toFixed(1)} | ${(times[i].median / base).toFixed(2)}× | ${errors[i].toExponential(1)} |`);
const text = `# Multi-head attention on a batch: (8, 128, 512), 8 heads

\`node bench/batched.mjs\`, Node ${process.version}, one thread, medians of ${SAMPLES} interleaved samples.
GFLOP/s counts 4·n²·d + 8·n·d² per sequence. "vs first" is each median over the first row's.
Max difference: largest |output − attnlab's tensor call's output (with weights)| over the largest |output|.

| implementation | median ms | min–max ms | GFLOP/s | vs first | max difference |
|---|---|---|---|---|---|
${rows.join('\n')}
`;
writeFileSync(new URL('./batched-results.md', import.meta.url), text);
console.log(text);
mha.dispose();
