// First benchmark: scaled dot-product attention (one head, d_k 64) at seq 64 … 1024 — wasm SIMD vs
// wasm scalar (the full JS call, copies in and out included) vs native (Google Benchmark).
// Prints a table and writes bench/results.md. Run through scripts/bench.sh, which builds first.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';

import { init } from '../web/index.js';
import { measureSite } from './site.mjs';

const D_K = 64;
const SEQS = [64, 128, 256, 512, 1024];
const SAMPLES = 15;
const flops = (n) => 4 * n * n * D_K;

// Median, min and max per-call milliseconds: each sample repeats the call until ≥ 25 ms have passed.
function time(call) {
  call();
  const samples = [];
  for (let s = 0; s < SAMPLES; s++) {
    let iterations = 0;
    const start = performance.now();
    let elapsed = 0;
    do {
      call();
      iterations++;
      elapsed = performance.now() - start;
    } while (elapsed < 25);
    samples.push(elapsed / iterations);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(SAMPLES / 2)], min: samples[0], max: samples.at(-1) };
}

async function wasmTimes(simd) {
  const lab = await init({ simd });
  const times = {};
  for (const n of SEQS) {
    const q = lab.randn(n, D_K, 1), k = lab.randn(n, D_K, 2), v = lab.randn(n, D_K, 3);
    times[n] = time(() => lab.scaledDotProductAttention(q, k, v));
  }
  return times;
}

function nativeTimes() {
  const binary = new URL('../build/native/bench/attnlab_bench_attention', import.meta.url).pathname;
  const report = JSON.parse(execFileSync(binary, ['--benchmark_format=json'], { encoding: 'utf8' }));
  const times = {};
  for (const n of SEQS) {
    const pick = (stat) => report.benchmarks.find((b) => b.run_name.startsWith(`attention/${n}/`) && b.aggregate_name === stat).real_time;
    // Google Benchmark gives mean/median/stddev/cv over repetitions, no min/max: report mean ± stddev instead.
    const [median, mean, stddev] = [pick('median'), pick('mean'), pick('stddev')];
    times[n] = { median, min: mean - stddev, max: mean + stddev };
  }
  return times;
}

const implementations = [
  ['attnlab wasm SIMD', await wasmTimes(true)],
  ['attnlab wasm scalar', await wasmTimes(false)],
  ['attnlab native (Eigen)', nativeTimes()],
];
const base = implementations[0][1];
const siteTable = await measureSite();

const header = '| implementation | seq | median ms | min–max ms | GFLOP/s | ratio to wasm SIMD |';
const rows = [];
for (const n of SEQS) {
  for (const [name, times] of implementations) {
    const t = times[n];
    const gflops = flops(n) / (t.median * 1e6);
    rows.push(`| ${name} | ${n} | ${t.median.toFixed(3)} | ${t.min.toFixed(3)}–${t.max.toFixed(3)} | ${gflops.toFixed(1)} | ${(base[n].median / t.median).toFixed(2)}× |`);
  }
}
const table = [header, '|---|---|---|---|---|---|', ...rows].join('\n');
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const markdown = `# Benchmark results

Scaled dot-product attention, one head, d_k = ${D_K}, softmax(QKᵀ/√d_k)V, float32, one thread.
Machine: ${cpu}, ${os.cpus().length} cores; Node ${process.versions.node}. Produced by \`scripts/bench.sh\`.

- wasm rows time the whole JS call \`lab.scaledDotProductAttention(q, k, v)\`: copying Q, K, V in and
  the five result matrices (output, weights, raw/scaled/masked scores) out. ${SAMPLES} samples of ≥ 25 ms
  each; median per call, min–max over samples.
- native rows are Google Benchmark (9 repetitions; median, and mean ± stddev in the min–max column)
  of the C++ call \`scaled_dot_product_attention\`.
- GFLOP/s counts 4·n²·d_k. The ratio column is (wasm SIMD median) / (this row's median): above 1×
  means faster than attnlab's wasm SIMD build, below 1× slower.

${table}

## The site's live budget (Chromium)

Recompute + redraw after editing the sentence, measured in headless Chromium on the built site:
from the input event until every heatmap has rendered and layout is up to date (${'median of 40 edits'}).

${siteTable}
`;
console.log(table);
console.log(siteTable);
writeFileSync(new URL('./results.md', import.meta.url), markdown);
