// GPT training throughput (issue: the core's GPT, native training vs PyTorch): the model the trained-
// model issue uses (vocab 4096, context 128, d_model 192, 4 heads, 4 layers, 2.59M parameters), batches
// of 16×128 tokens, AdamW + clipping. attnlab natively (one thread: the core has no threads yet) and
// in wasm (Node, SIMD), PyTorch 1.13 with 1 and with 2 threads, in one run. Medians of the steps after
// the first. Writes bench/gpt-training-results.md. Run through scripts/bench.sh (it builds first).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';

import { init } from '../web/index.js';

const repo = new URL('../', import.meta.url).pathname;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const TOKENS = 16 * 128;

function runJson(command, args) {
  return JSON.parse(execFileSync(command, args, { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 26 }));
}

async function wasmSteps(steps) {
  const lab = await init({ simd: true });
  const model = await lab.createGPT({ vocabSize: 4096, contextLength: 128, dModel: 192, numHeads: 4, numLayers: 4, seed: 1 });
  model.startTraining({ maxLr: 1e-3, minLr: 1e-4, warmupSteps: 2, totalSteps: 1000 });
  const ids = new Int32Array(TOKENS);
  const targets = new Int32Array(TOKENS);
  const stepMs = [];
  for (let s = 0; s < steps; s++) {
    for (let i = 0; i < TOKENS; i++) {
      ids[i] = (i * 7919 + s * 104729) % 4096;
      targets[i] = (i * 31 + s) % 4096;
    }
    const start = performance.now();
    model.trainStep(ids, targets, 16);
    stepMs.push(performance.now() - start);
  }
  model.dispose();
  return { stepMs };
}

const rows = [
  ['attnlab native (1 thread)', runJson('build/native/bench/attnlab_bench_gpt_training', ['12'])],
  ['attnlab wasm SIMD in Node (1 thread)', await wasmSteps(6)],
  ['PyTorch 1.13, 1 thread', runJson('/usr/bin/python3', ['bench/gpt_training_torch.py', '1', '6'])],
  ['PyTorch 1.13, 2 threads', runJson('/usr/bin/python3', ['bench/gpt_training_torch.py', '2', '6'])],
].map(([name, { stepMs }]) => ({ name, ms: median(stepMs.slice(1)) }));

const native = rows[0].ms;
const table = rows.map(({ name, ms }) =>
  `| ${name} | ${ms.toFixed(0)} ms | ${Math.round(TOKENS / (ms / 1000)).toLocaleString('en-US')} | ${(ms / native).toFixed(2)}× |`);
const report = `# GPT training throughput

\`node bench/gpt-training.mjs\` (via \`scripts/bench.sh\`), ${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0].model}, ${os.cpus().length} cores.
Model: vocab 4096, context 128, d_model 192, 4 heads, 4 layers (2,590,848 parameters), tied output;
a step = 16 sequences × 128 tokens: forward, backward, clip at 1.0, AdamW. Median step time after the first.

| run | ms / step | tokens / s | attnlab native is faster by |
|---|---|---|---|
${table.join('\n')}
`;
writeFileSync(new URL('gpt-training-results.md', import.meta.url), report);
console.log(report);
