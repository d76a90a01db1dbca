// The "Watch it learn" lesson's trainer, off the page's thread: a module Web Worker that loads attnlab,
// builds a TaskModel and trains it in short chunks, posting progress after every chunk (well over 10
// times a second) so the page can redraw while it stays free to handle clicks and scrolling.
//
// Page → worker: { type: 'train', task, seed, speed, id } (a fresh model), { type: 'stop' },
//                { type: 'resume', speed }.
// Worker → page: { type: 'progress', step, losses: [[step, loss], …] since the last message,
//                  (translation: rowTokens, colTokens: the watched sentence's French and English words),
//                  accuracy?: [step, accuracy, loss, sequenceAccuracy] when just evaluated, attention: Matrix[][],
//                  predictions: [{ input, answer, predicted, right }] on a few held-out examples (the translation
//                  task: only when it has just evaluated), running, done }
//                { type: 'error', message, step }; each with the run's id.
import { AttnLabError, init } from 'attnlab';

import {
  PREDICTED_EXAMPLES, TASK_SETTINGS, TRANSLATION_EVALUATED, batchAt, predictions, toyTaskModel, translationState,
} from './parts.js';
import { pacer } from '../../pace.js';

const CHUNK = 2;              // Adam steps between two looks at the message queue (and two progress messages)
const EVALUATE_EVERY = 10;    // steps between two held-out evaluations (200 examples)
const WATCH_STEPS_PER_SECOND = 50;  // "watch" speed: slow enough to see the curve and the heads move
// …and slower still for the first steps, where the heads change most: copy and reverse reach 95% in
// about 50 steps, which at full watching speed would be over in one second.
const SLOW_STEPS = 100;
const SLOW_STEPS_PER_SECOND = 10;
const pace = pacer();
const TARGET = 0.95;

let labPromise = null;
let model = null;      // a TaskModel, or for the translation task a TranslatorTrainer
let data = null;       // { train, test, watched }
let running = false;
let speed = 'watch';
let pending = [];      // [step, loss] not yet posted
let timer = 0;
let runId = 0;      // echoed in every message, so the page can drop a previous run's late ones

const post = (message) => self.postMessage({ ...message, id: runId });

function attention() {
  // Matrices cross as structured clones (their Float32Array copies).
  return model.attentionWeights(data.watched).layers;
}

function fail(error) {
  running = false;
  clearTimeout(timer);
  post({ type: 'error', message: error instanceof AttnLabError ? error.message : `Training failed: ${error?.message ?? error}`,
    step: model?.steps ?? 0 });
}

async function start({ task, seed, id }) {
  running = false;
  runId = id;
  clearTimeout(timer);
  const lab = await (labPromise ??= init({ training: true }));  // TaskModel lives in the training module
  model?.dispose();
  const settings = TASK_SETTINGS[task];
  if (settings.translator) {
    model = await lab.createTranslatorTrainer({ seed });
    data = { translator: true, batch: settings.batch };
  } else {
    const made = toyTaskModel(lab, task, seed);
    model = made.model;
    data = { train: made.train, test: made.test, watched: made.watched };
  }
  pending = [];
  running = true;
  pace.reset();
  schedule();
}

function schedule() {
  // "watch": one chunk per CHUNK/rate seconds (10 steps a second for the first 100, then 50); "full": as fast as the worker goes,
  // still yielding to the message queue between chunks so Stop is heard at once.
  // (A translation step takes about a tenth of a second by itself: no pause needed to watch it.)
  const rate = model.steps < SLOW_STEPS ? SLOW_STEPS_PER_SECOND : WATCH_STEPS_PER_SECOND;
  const flat = speed === 'full' || data.translator;
  if (flat) pace.reset();
  timer = setTimeout(chunk, flat ? 0 : pace.wait(CHUNK, rate));
}

// The translation task's chunk: one AdamW step on a batch of fresh sentence pairs (about a tenth of a
// second in wasm), an evaluation every EVALUATE_EVERY steps.
function translationChunk() {
  const [loss] = model.train(1, { batch: data.batch });
  if (!Number.isFinite(loss)) throw new AttnLabError(`TranslatorTrainer.train: the loss became ${loss} at step ${model.steps}; training stopped`);
  pending.push([model.steps, loss]);
  let evaluated = null;
  if (model.steps % EVALUATE_EVERY === 0) {
    const result = model.evaluate(TRANSLATION_EVALUATED);
    evaluated = [model.steps, result.tokenAccuracy, result.loss, result.exactMatch];
  }
  const done = evaluated !== null && evaluated[1] >= TARGET;
  if (done) running = false;
  const { attention: cross, predictions: shown, rowTokens, colTokens } = translationState(model, { predictions: evaluated !== null });
  post({ type: 'progress', step: model.steps, losses: pending, accuracy: evaluated, attention: cross, predictions: shown,
    rowTokens, colTokens, running, done });
  pending = [];
  if (running) schedule();
}

function chunk() {
  if (!running) return;
  if (data.translator) {
    try {
      translationChunk();
    } catch (error) {
      fail(error);
    }
    return;
  }
  try {
    const { train, test } = data;
    let evaluated = null;
    for (let i = 0; i < CHUNK; i++) {
      const loss = model.trainStep(batchAt(train, model.steps));
      if (!Number.isFinite(loss)) throw new AttnLabError(`TaskModel.trainStep: the loss became ${loss} at step ${model.steps}; training stopped`);
      pending.push([model.steps, loss]);
      if (model.steps % EVALUATE_EVERY === 0) {
        const result = model.evaluate(test);
        evaluated = [model.steps, result.accuracy, result.loss, result.sequenceAccuracy];
        if (result.accuracy >= TARGET) break;
      }
    }
    const done = evaluated !== null && evaluated[1] >= TARGET;
    if (done) running = false;
    post({ type: 'progress', step: model.steps, losses: pending, accuracy: evaluated, attention: attention(),
      predictions: predictions(model, data.test.slice(0, PREDICTED_EXAMPLES)), running, done });
    pending = [];
    if (running) schedule();
  } catch (error) {
    fail(error);
  }
}

self.addEventListener('message', ({ data: message }) => {
  if (message?.type === 'train') {
    speed = message.speed;
    start(message).catch(fail);
  } else if (message?.type === 'stop') {
    running = false;
    clearTimeout(timer);
    post({ type: 'stopped', step: model?.steps ?? 0 });
  } else if (message?.type === 'resume' && model && !running) {
    speed = message.speed;
    running = true;
    pace.reset();
    schedule();
  } else if (message?.type === 'speed') {
    speed = message.speed;
  }
});
