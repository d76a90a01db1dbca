// "Watch induction heads form"'s trainer, off the page's thread: a module Web Worker that builds the
// recipe's model (parts.js) and trains it on fresh batches, EVALUATE_EVERY steps per chunk,
// posting each chunk's losses, the held-out scores and the watched example's attention.
//
// Page → worker: { type: 'train', id, layers, positions, seed, speed }, { type: 'stop' }, { type: 'resume' },
//                { type: 'speed', speed }.
// Worker → page: { type: 'progress', id, losses: [[step, loss], …], evaluation: [step, loss, previous, induction],
//                  attention: Matrix[layer][head] on held-out example 0, running, done }
//                { type: 'error', id, message, step }.
import { AttnLabError, init } from 'attnlab';

import { batchAt, evaluation, EVALUATE_EVERY, heldOut, makeModel, MAX_STEPS } from './parts.js';
import { pacer } from '../../pace.js';

const WATCH_STEPS_PER_SECOND = 50;  // "watch": the phase change comes after tens of seconds, not in one

let labPromise = null;
let model = null;
let run = null;  // { id, seed, test, running, speed }
let timer = 0;
const pace = pacer();

const post = (message) => self.postMessage({ ...message, id: run.id });

function fail(error) {
  run.running = false;
  clearTimeout(timer);
  post({ type: 'error', message: error instanceof AttnLabError ? error.message : `Training failed: ${error?.message ?? error}`, step: model?.steps ?? 0 });
}

function schedule() {
  if (run.speed === 'full') pace.reset();
  timer = setTimeout(chunk, run.speed === 'full' ? 0 : pace.wait(EVALUATE_EVERY, WATCH_STEPS_PER_SECOND));
}

function chunk() {
  if (!run.running) return;
  try {
    const losses = [];
    for (let i = 0; i < EVALUATE_EVERY; i++) {
      const loss = model.trainStep(batchAt(model, run.seed, model.steps));
      if (!Number.isFinite(loss)) throw new AttnLabError(`TaskModel.trainStep: the loss became ${loss} at step ${model.steps}; training stopped`);
      losses.push([model.steps, loss]);
    }
    const done = model.steps >= MAX_STEPS;
    if (done) run.running = false;
    post({ type: 'progress', losses, evaluation: evaluation(model, run.test), attention: model.attentionWeights(run.test[0]).layers,
      running: run.running, done });
    if (run.running) schedule();
  } catch (error) {
    fail(error);
  }
}

async function start({ id, layers, positions, seed, speed }) {
  clearTimeout(timer);
  run = { id, seed, speed, running: false, test: null };
  const lab = await (labPromise ??= init({ training: true }));
  if (run.id !== id) return;  // a newer run started while the module loaded
  model?.dispose();
  model = makeModel(lab, { layers, positions, seed });
  run.test = heldOut(model, seed);
  run.running = true;
  pace.reset();
  schedule();
}

self.addEventListener('message', ({ data: message }) => {
  if (message?.type === 'train') {
    start(message).catch((error) => fail(error));
  } else if (!run) {
    // nothing to stop, resume or speed up yet
  } else if (message.type === 'stop') {
    run.running = false;
    clearTimeout(timer);
  } else if (message.type === 'resume' && model && !run.running) {
    run.running = true;
    pace.reset();
    schedule();
  } else if (message.type === 'speed') {
    run.speed = message.speed;
  }
});
