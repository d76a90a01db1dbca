// The page's one Trusted Types policy (site/csp.js allows this name and no other): it turns the
// bundled training worker's URL into the TrustedScriptURL the Worker constructor requires under
// require-trusted-types-for 'script', and refuses any other URL, so it cannot launder anything else.
import workerUrl from './train-worker.js?worker&url';

let policy = null;

export function trainWorkerUrl() {
  const expected = new URL(workerUrl, import.meta.url).href;
  if (!globalThis.trustedTypes) return expected;  // a browser without Trusted Types takes the plain URL
  policy ??= trustedTypes.createPolicy('attnlab-worker', {
    createScriptURL(url) {
      if (url !== expected) throw new TypeError(`attnlab-worker: refusing script URL ${url}`);
      return url;
    },
  });
  return policy.createScriptURL(expected);
}
