// The training module (TaskModel) is a second .wasm that init() does not load: loadTraining() (or
// init({ training: true })) loads the same variant, through the same locateFile, with the lab's
// memory budget. The browser's way of loading (locateFile → fetch) runs here against a stand-in fetch
// that serves web/dist and records what was asked for.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { afterEach, test } from 'node:test';

import { AttnLabError, init } from '../../web/index.js';

const dist = (name) => new URL(`../../web/dist/${name}`, import.meta.url);
const NOT_LOADED = 'TaskModel: the training module is not loaded; call await lab.loadTraining() first, or init({ training: true })';

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

// Installs a fetch that answers https://attnlab.test/<file> from web/dist (or with a 404 for the files
// in `missing`) and returns the list of files asked for.
function serveDist({ missing = [] } = {}) {
  const requests = [];
  globalThis.fetch = async (url) => {
    const name = new URL(url).pathname.slice(1);
    requests.push(name);
    if (missing.includes(name)) return new Response('not found', { status: 404 });
    return new Response(await readFile(dist(name)), { headers: { 'content-type': 'application/wasm' } });
  };
  return requests;
}
const locateFile = (file) => `https://attnlab.test/${file}`;

// One Adam step on a small copy model: a finite loss means the module trains.
function trainsOneStep(lab) {
  const model = new lab.TaskModel({ task: 'copy', seed: 1 });
  const loss = model.trainStep(model.examples(4, 1));
  model.dispose();
  return Number.isFinite(loss) && loss > 0;
}

test('init() loads only the main module; TaskModel says what to call; loadTraining() loads the training module once', async () => {
  const requests = serveDist();
  const lab = await init({ locateFile });
  assert.deepEqual(requests, ['attnlab-simd.wasm']);
  assert.throws(() => new lab.TaskModel({ task: 'copy' }), (e) => e instanceof AttnLabError && e.message === NOT_LOADED);
  assert.equal(lab.memory().training, undefined);

  const { TaskModel } = lab;  // taken before loading: the same class works afterwards
  const loading = lab.loadTraining();
  assert.equal(lab.loadTraining(), loading, 'a second call returns the same promise');
  assert.equal(await loading, lab);
  assert.equal(await lab.loadTraining(), lab);
  assert.deepEqual(requests, ['attnlab-simd.wasm', 'attnlab-train-simd.wasm']);
  const model = new TaskModel({ task: 'sort', seed: 2 });
  assert.ok(model instanceof lab.TaskModel);
  model.dispose();
  assert.ok(trainsOneStep(lab));
});

test('init({ training: true }) loads both modules of the scalar build', async () => {
  const requests = serveDist();
  const lab = await init({ simd: false, training: true, locateFile });
  assert.deepEqual(requests, ['attnlab-scalar.wasm', 'attnlab-train-scalar.wasm']);
  assert.equal(lab.kernels, 'wasm-scalar');
  assert.ok(trainsOneStep(lab));
});

test('wasmBinary and trainingWasmBinary: the caller\'s bytes, nothing fetched', async () => {
  const requests = serveDist();
  const lab = await init({
    wasmBinary: await readFile(dist('attnlab-simd.wasm')),
    trainingWasmBinary: await readFile(dist('attnlab-train-simd.wasm')),
    locateFile,
  });
  await lab.loadTraining();
  assert.deepEqual(requests, []);
  assert.ok(trainsOneStep(lab));
});

test('a failed load is an AttnLabError, and the next loadTraining() tries again', async () => {
  const requests = serveDist({ missing: ['attnlab-train-simd.wasm'] });
  const lab = await init({ locateFile });
  const warn = console.warn;
  console.warn = () => {};  // the glue's own report of the 404, not this test's output
  try {
    await assert.rejects(lab.loadTraining(), (e) => e instanceof AttnLabError &&
      e.message.startsWith('loadTraining: the WebAssembly module attnlab-train-simd.wasm could not be loaded'));
  } finally {
    console.warn = warn;
  }
  assert.throws(() => new lab.TaskModel({ task: 'copy' }), (e) => e instanceof AttnLabError && e.message === NOT_LOADED);
  serveDist();
  await lab.loadTraining();
  assert.ok(trainsOneStep(lab));
  assert.ok(requests.includes('attnlab-train-simd.wasm'));
});

test('the memory budget holds in the training module: the one set before loading, and later changes', async () => {
  const lab = await init({ memoryBudget: 2 ** 20 });
  await lab.loadTraining();
  assert.equal(lab.memory().training.budget, 2 ** 20);
  const model = new lab.TaskModel({ task: 'copy', seed: 1 });
  // A copy example is 12 token ids and 12 targets: 100,000 of them are 2 × 100,000 × 12 × 4 bytes = 9.155 MiB.
  assert.throws(() => model.split(100000, 0), (e) => e instanceof AttnLabError &&
    /^TaskModel\.split: .*needs about 9\.155 MiB .*but the memory budget is 1 MiB \(init\(\{ memoryBudget \}\) or lab\.setMemoryBudget\(\) sets it\)$/.test(e.message));
  lab.setMemoryBudget(2 ** 24);
  assert.equal(lab.memory().training.budget, 2 ** 24);
  assert.equal(model.split(100000, 0).train.length, 100000);
  model.dispose();
});

test('a budget changed while the training module loads is the one it gets', async () => {
  const lab = await init();
  const loading = lab.loadTraining();
  lab.setMemoryBudget(3 * 2 ** 20);
  await loading;
  assert.equal(lab.memory().training.budget, 3 * 2 ** 20);
  assert.equal(lab.memory().budget, 3 * 2 ** 20);
});

test('init checks the training option', async () => {
  await assert.rejects(init({ training: 'yes' }), (e) => e instanceof AttnLabError && e.message === "init: training must be a boolean, got 'yes'");
});
