// What the lessons that train a model in a Web Worker share ("Watch it learn", "Watch induction heads
// form"): the Train / Stop / Resume / Reset buttons and the phase they show, the hand-off of keyboard focus
// when the pressed button becomes disabled, a live region for announcements, and the worker, started on
// first use, whose failures are reported in the learner's words.
import { AttnLabError } from 'attnlab';

import { el } from './dom.js';

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
