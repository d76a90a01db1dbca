// The implementations the benchmark puts side by side, each as prepare(shape) → { run, output }:
// run() computes once (what is timed); output() returns the last result as a Float32Array so it can
// be checked against attnlab's before timing.
import { createRequire } from 'node:module';

import { attentionCoreModel, multiHeadModel } from './onnx-graphs.mjs';

const require = createRequire(import.meta.url);

// Inputs every implementation gets: the same seeded matrices from attnlab.
export function coreInputs(lab, n, d) {
  return { q: lab.randn(n, d, 1), k: lab.randn(n, d, 2), v: lab.randn(n, d, 3) };
}

export function mhaInputs(lab, n, dModel, heads) {
  const mha = new lab.MultiHeadAttention({ dModel, numHeads: heads, seed: 7 });
  return { mha, x: lab.randn(n, dModel, 4), weights: mha.weights() };
}

// ---- attnlab (wasm, through the package's public API) ----
export function attnlabCore(lab, { q, k, v }) {
  let last;
  return { run: () => { last = lab.scaledDotProductAttention(q, k, v, { weights: false }); }, output: () => last.output.data };
}

export function attnlabMha(lab, { mha, x }) {
  let last;
  return { run: () => { last = mha.forward(x, x, x, { weights: false }); }, output: () => last.output.data };
}

// ---- onnxruntime-web (wasm, SIMD, one thread) ----
let ortWeb;
async function ortWebModule() {
  if (!ortWeb) {
    ortWeb = await import('onnxruntime-web');
    ortWeb.env.wasm.numThreads = 1;
  }
  return ortWeb;
}

async function ortSession(ort, bytes, feeds, options) {
  const session = await ort.InferenceSession.create(bytes, options);
  // A feed is a Matrix [rows×cols] or a tensor { shape, data }.
  const tensors = Object.fromEntries(Object.entries(feeds).map(([name, m]) => [name, new ort.Tensor('float32', m.data, m.shape ?? [m.rows, m.cols])]));
  let last;
  // session.run is async; the harness awaits each call.
  return { run: async () => { last = await session.run(tensors); }, output: () => last.out.data, async: true };
}

export async function ortWebCore({ q, k, v }) {
  return ortSession(await ortWebModule(), attentionCoreModel(q.rows, q.cols), { q, k, v }, { executionProviders: ['wasm'] });
}

export async function ortWebMha({ x, weights }, heads) {
  return ortSession(await ortWebModule(), multiHeadModel(x.rows, x.cols, heads, weights), { x }, { executionProviders: ['wasm'] });
}

// The same layer on x (batch, n, d_model) in one session.run.
export async function ortWebBatchedMha({ x, weights }, heads) {
  const [batch, n, dModel] = x.shape;
  return ortSession(await ortWebModule(), multiHeadModel(n, dModel, heads, weights, batch), { x }, { executionProviders: ['wasm'] });
}

// ---- onnxruntime-node (native, one thread) ----
export async function ortNodeCore({ q, k, v }) {
  const ort = require('onnxruntime-node');
  return ortSession(ort, attentionCoreModel(q.rows, q.cols), { q, k, v }, { intraOpNumThreads: 1, interOpNumThreads: 1 });
}

export async function ortNodeMha({ x, weights }, heads) {
  const ort = require('onnxruntime-node');
  return ortSession(ort, multiHeadModel(x.rows, x.cols, heads, weights), { x }, { intraOpNumThreads: 1, interOpNumThreads: 1 });
}

// ---- @tensorflow/tfjs-backend-wasm (SIMD, one thread): its fast path, explicit transpose + 2-D matMuls ----
let tf;
async function tfjs() {
  if (!tf) {
    tf = await import('@tensorflow/tfjs-core');
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    wasm.setThreadsCount(1);
    wasm.setWasmPaths(`${new URL('../node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url).pathname}`);
    await tf.setBackend('wasm');
    await tf.ready();
  }
  return tf;
}

export async function tfjsCore({ q, k, v }) {
  const t = await tfjs();
  const [tq, tk, tv] = [q, k, v].map((m) => t.tensor2d(m.data, [m.rows, m.cols]));
  const scale = 1 / Math.sqrt(q.cols);
  let last;
  return {
    run: () => {
      last?.dispose();
      last = t.tidy(() => t.matMul(t.softmax(t.mul(t.matMul(tq, t.transpose(tk)), scale)), tv));
    },
    output: () => last.dataSync(),
  };
}

// ---- optimised plain JS (Float32Array loops): Kᵀ and P·V in cache-friendly orders ----
export function plainJsCore({ q, k, v }) {
  const n = q.rows, nk = k.rows, d = q.cols, dv = v.cols;
  const scale = 1 / Math.sqrt(d);
  const out = new Float32Array(n * dv);
  const row = new Float32Array(nk);
  return {
    run: () => {
      out.fill(0);
      for (let i = 0; i < n; i++) {
        let max = -Infinity;
        for (let j = 0; j < nk; j++) {
          let s = 0;
          for (let t = 0; t < d; t++) s += q.data[i * d + t] * k.data[j * d + t];
          row[j] = s * scale;
          if (row[j] > max) max = row[j];
        }
        let sum = 0;
        for (let j = 0; j < nk; j++) { row[j] = Math.exp(row[j] - max); sum += row[j]; }
        const inv = 1 / sum;
        for (let j = 0; j < nk; j++) {
          const w = row[j] * inv;
          for (let t = 0; t < dv; t++) out[i * dv + t] += w * v.data[j * dv + t];
        }
      }
    },
    output: () => out,
  };
}
