// A long computation (a patching sweep) run beside the page: its progress said in a status line with a
// Stop button, one sweep at a time. start(key, job) begins job({ signal, progress }) unless the sweep
// for the same key is running or finished already (a control that changes nothing the sweep reads
// does not restart it); a new key stops the old sweep first. A stopped sweep offers "Run again". The
// line's data-state reads 'running', 'done' or 'stopped', so tests wait for a state, never for time.
import { el } from './dom.js';

// → { node, start(key, job), halt() }; onError(error) gets what a job threw other than its own stop.
export function sweepRunner(what, onError) {
  const status = el('span', { class: 'sweep-status' });
  const button = el('button', { type: 'button', text: 'Stop', hidden: true });
  // The button first: the status after it changes length as the sweep goes on, and Stop stays where it was tapped.
  const node = el('p', { class: 'sweep', role: 'status', 'data-state': 'done' }, button, ' ', status);
  let current = null;  // { key, job, controller }

  const run = (key, job) => {
    const mine = { key, job, controller: new AbortController() };
    current = mine;
    node.dataset.state = 'running';
    status.textContent = `Computing ${what}…`;
    button.textContent = 'Stop';
    button.hidden = false;
    const progress = (text) => { if (current === mine) status.textContent = `Computing ${what}: ${text}`; };
    job({ signal: mine.controller.signal, progress }).then(
      () => {
        if (current !== mine) return;
        node.dataset.state = 'done';
        status.textContent = '';
        button.hidden = true;
      },
      (error) => {
        if (current !== mine) return;  // a newer sweep replaced this one: it says what it is doing
        if (error?.name === 'AbortError') {
          node.dataset.state = 'stopped';
          status.textContent = `Stopped: what is shown below is from before. `;
          button.textContent = 'Run again';
        } else {
          node.dataset.state = 'done';
          status.textContent = '';
          button.hidden = true;
          onError(error);
        }
      });
  };
  button.addEventListener('click', () => {
    if (node.dataset.state === 'running') current.controller.abort();
    else if (node.dataset.state === 'stopped') run(current.key, current.job);
  });
  return {
    node,
    start(key, job) {
      if (current?.key === key) return;
      current?.controller.abort();
      run(key, job);
    },
    // Stops and forgets the sweep (its inputs were refused): the next start() runs whatever its key.
    halt() {
      current?.controller.abort();
      current = null;
      node.dataset.state = 'done';
      status.textContent = '';
      button.hidden = true;
    },
  };
}

// Resolves after the browser has had a turn (input, painting) between two parts of a sweep, or rejects
// with an AbortError if the sweep was stopped meanwhile.
export function nextTurn(signal) {
  return new Promise((resolve, reject) => setTimeout(() => (signal.aborted
    ? reject(new DOMException('The sweep was stopped', 'AbortError')) : resolve())));
}
