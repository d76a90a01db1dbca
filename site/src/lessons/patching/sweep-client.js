// The page's side of sweep-worker.js: the same calls as sweeps.js's patchingOps, each a promise that a stop
// (its signal) rejects at once with the signal's reason while the worker drops the call at its next cell. One
// worker, started on the first call and kept (the model stays loaded for the next sweep).
import { AttnLabError } from 'attnlab';

// makeWorker() → a Worker running sweep-worker.js.
export function workerOps(makeWorker) {
  let worker = null;
  let nextId = 0;
  const pending = new Map();  // id → { resolve, reject, progress }

  function start() {
    worker = makeWorker();
    worker.addEventListener('message', ({ data }) => {
      const call = pending.get(data.id);
      if (!call) return;  // stopped meanwhile
      if (data.type === 'progress') return call.progress(data.text);
      pending.delete(data.id);
      if (data.type === 'result') call.resolve(data.value);
      else call.reject(new AttnLabError(data.message));
    });
    worker.addEventListener('error', (event) => {
      const error = new AttnLabError(`The sweep could not run in a worker: ${event.message ?? 'the browser gave no reason'}.`);
      for (const call of pending.values()) call.reject(error);
      pending.clear();
      worker.terminate();
      worker = null;
    });
  }

  const call = (op) => (args, { signal, progress = () => {} } = {}) => new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    if (!worker) start();
    const id = ++nextId;
    const stop = () => {
      pending.delete(id);
      worker?.postMessage({ type: 'abort', id });
      reject(signal.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
    const settle = (fn) => (value) => {
      signal?.removeEventListener('abort', stop);
      fn(value);
    };
    pending.set(id, { resolve: settle(resolve), reject: settle(reject), progress });
    worker.postMessage({ type: 'call', id, op, args });
  });
  return { grids: call('grids'), path: call('path'), takenAway: call('takenAway'), attention: call('attention') };
}
