// What the lessons that train a model in a Web Worker share ("Watch it learn", "Watch induction heads
// form"): the Train / Stop / Resume / Reset buttons and the phase they show, the hand-off of keyboard focus
// when the pressed button becomes disabled, a live region for announcements, and the worker, started on
// first use, whose failures are reported in the learner's words.
import { AttnLabError } from 'attnlab';

import { el, field, select } from './dom.js';

// handlers: { train, stop, resume, reset }; stopText names the Stop button ('Stop' or 'Pause').
// → { group, buttons, live, phase(), setPhase(next), handOff(from, to), announce(text) }. readout, when given,
// carries the phase as data-state (idle | training | stopped | done | error) for tests to wait on.
export function trainingControls(handlers, { stopText = 'Stop', readout } = {}) {
  const button = (text, onClick) => el('button', { type: 'button', text, on: { click: onClick } });
  const buttons = { train: button('Train', handlers.train), stop: button(stopText, handlers.stop),
    resume: button('Resume', handlers.resume), reset: button('Reset', handlers.reset) };
  const live = el('p', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
  let phase = 'idle';
  return {
    group: el('div', { class: 'controls', role: 'group', 'aria-label': 'Training' }, buttons.train, buttons.stop, buttons.resume, buttons.reset),
    buttons,
    live,
    phase: () => phase,
    setPhase(next) {
      phase = next;
      buttons.train.disabled = phase === 'training';
      buttons.stop.disabled = phase !== 'training';
      buttons.resume.disabled = phase !== 'stopped';
      buttons.reset.disabled = phase === 'idle';
      if (readout) readout.dataset.state = phase;
    },
    // Keyboard users keep their place: when the pressed button becomes disabled, focus moves to the next useful one.
    handOff(from, to) {
      if (document.activeElement === buttons[from] && buttons[from].disabled) buttons[to].focus();
    },
    announce(text) {
      live.textContent = text;
    },
  };
}

// The worker at url() (a TrustedScriptURL from worker-url.js), created on the first get(); its messages go
// to onMessage, and a failure to start or run it to onError(AttnLabError) in the learner's words.
export function lessonWorker(url, onMessage, onError) {
  let worker = null;
  return {
    get() {
      if (worker) return worker;
      worker = new Worker(url(), { type: 'module' });
      worker.addEventListener('message', onMessage);
      worker.addEventListener('error', (e) => {
        e.preventDefault();
        onError(new AttnLabError(`The training worker failed${e.message ? `: ${e.message}` : ' to start'}.`));
      });
      return worker;
    },
    post(message) {
      worker?.postMessage(message);
    },
  };
}

// draw() on the next animation frame, once however many times this is called before it: a lesson redraws
// per worker message, and several may arrive within one frame.
export function frameQueue(draw) {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      draw();
    });
  };
}

// A lesson's whole training run in a worker: the controls, the worker, the run's state and its four
// transitions (train, pause or stop, resume, reset), and the Speed select. The lesson supplies:
//   fresh()            the untrained run's state (computed on the page, so it shows at once)
//   start()            the fields of the worker's 'train' message beyond type, id and speed
//   progress(run, m)   folds a 'progress' message into run; may call session.finish(text) or session.fail(text)
//   draw(run)          redraws the page from run (at most once per animation frame)
//   words              { started(), paused(run) }: what the live region says
//   onReset()          optional: what else goes back to its start (an exercise's verdict)
// → { controls, run(), queueDraw(), speedField(), finish(text), fail(text), restartOn(key) }.
export function trainingSession(ctx, { workerUrl, readout, stopText, fresh, start, progress, draw, words, onReset }) {
  const { state } = ctx;
  let run = null;
  let runId = 0;       // the worker's messages carry the id of the run they belong to
  let key = null;
  const controls = trainingControls({ train, stop, resume, reset }, { stopText, readout });
  const { announce, handOff } = controls;
  const worker = lessonWorker(workerUrl, onMessage, (error) => fail(error.message));
  const queueDraw = frameQueue(() => run && draw(run));

  function fail(message) {
    worker.post({ type: 'stop' });
    controls.setPhase('error');
    ctx.report(new AttnLabError(message));
    announce('Training stopped by an error.');
    queueDraw();
  }
  function finish(text) {
    controls.setPhase('done');
    announce(text);
    handOff('stop', 'reset');
  }
  function onMessage({ data: message }) {
    if (!run || message.id !== runId) return;
    if (message.type === 'error') return fail(message.message);
    if (message.type !== 'progress' || controls.phase() !== 'training') return;
    progress(run, message);
    queueDraw();
  }

  function train() {
    ctx.clearError();
    run = fresh();
    controls.setPhase('training');
    worker.get().postMessage({ ...start(), type: 'train', id: ++runId, speed: state.speed });
    announce(words.started());
    handOff('train', 'stop');
    queueDraw();
  }
  function stop() {
    if (controls.phase() !== 'training') return;
    worker.post({ type: 'stop' });
    controls.setPhase('stopped');
    announce(words.paused(run));
    handOff('stop', 'resume');
    queueDraw();
  }
  function resume() {
    if (controls.phase() !== 'stopped') return;
    controls.setPhase('training');
    worker.post({ type: 'resume', speed: state.speed });
    announce('Training resumed.');
    handOff('resume', 'stop');
    queueDraw();
  }
  // Back to the untrained model of these settings (the worker's run, if any, is abandoned).
  function reset() {
    worker.post({ type: 'stop' });
    runId++;
    ctx.clearError();
    onReset?.();
    run = fresh();
    controls.setPhase('idle');
    announce('Reset to the untrained model.');
    handOff('reset', 'train');
    queueDraw();
  }

  return {
    controls,
    run: () => run,
    queueDraw,
    finish,
    fail,
    speedField: () => field('Speed', select([['watch', 'watchable (50 steps/s)'], ['full', 'full speed']], state.speed, (speed) => {
      ctx.remember({ speed });
      worker.post({ type: 'speed', speed });
    })),
    // Called on every state change: new settings (key) start over from the untrained model, drawn at once,
    // so the page is ready with its figures painted.
    restartOn(next) {
      if (next === key) return;
      key = next;
      reset();
      announce('');
      draw(run);
    },
  };
}
