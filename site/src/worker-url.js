// The page's own Trusted Types policy (site/csp.js allows this name and the package's 'attnlab'):
// it turns the script URLs the site starts itself into the TrustedScriptURLs that the Worker
// constructor and serviceWorker.register require under require-trusted-types-for 'script' — the
// bundled workers ("Watch it learn", "Watch induction heads form", "Shared keys and values", "Patching") and the isolation service
// worker (src/isolation.js) —
// and refuses any other URL, so it cannot launder anything else.
import inductionUrl from './lessons/induction-forming/worker.js?worker&url';
import workerUrl from './lessons/watch-it-learn/worker.js?worker&url';
import poolUrl from './lessons/shared-kv/pool-worker.js?worker&url';
import cacheUrl from './lessons/windows-and-sinks/cache-worker.js?worker&url';
import patchingUrl from './lessons/patching/sweep-worker.js?worker&url';

// At the site's root, so that its scope is every page (public/isolation-sw.js, copied as is). The
// base is read into a variable so that Vite leaves this URL alone instead of emitting an asset.
const moduleUrl = import.meta.url;
const isolationWorker = new URL('../isolation-sw.js', moduleUrl).href;

let policy = null;

function trusted(url) {
  if (!globalThis.trustedTypes) return url;  // a browser without Trusted Types takes the plain URL
  const allowed = new Set([workerUrl, inductionUrl, poolUrl, cacheUrl, patchingUrl].map((u) => new URL(u, import.meta.url).href).concat(isolationWorker));
  policy ??= trustedTypes.createPolicy('attnlab-worker', {
    createScriptURL(url) {
      if (!allowed.has(url)) throw new TypeError(`attnlab-worker: refusing script URL ${url}`);
      return url;
    },
  });
  return policy.createScriptURL(url);
}

export const trainWorkerUrl = () => trusted(new URL(workerUrl, import.meta.url).href);
export const inductionWorkerUrl = () => trusted(new URL(inductionUrl, import.meta.url).href);
// "Shared keys and values": the pooled models' held-out loss (lessons/shared-kv/pool-worker.js).
export const poolWorkerUrl = () => trusted(new URL(poolUrl, import.meta.url).href);
// "Sliding windows and attention sinks": the four caches (lessons/windows-and-sinks/cache-worker.js).
export const cacheWorkerUrl = () => trusted(new URL(cacheUrl, import.meta.url).href);
// "Patching": the activation- and path-patching sweeps (lessons/patching/sweep-worker.js).
export const patchingWorkerUrl = () => trusted(new URL(patchingUrl, import.meta.url).href);
export const isolationWorkerUrl = () => trusted(isolationWorker);
