// Loads the wasm modules: the main one at init(), the training one (TaskModel), the GPT one and the
// referent one (lesson 1's "it" encoder) when asked, each in
// the SIMD build when the engine validates SIMD, else the scalar build. In Node the .wasm bytes are
// read from disk next to this package; in browsers and bundlers they are fetched relative to this file
// (import.meta.url), or from where `locateFile` says.
import { AttnLabError } from './errors.js';

// wasm-feature-detect's SIMD probe: a one-function module doing i32.const 0, i8x16.splat,
// i8x16.popcnt; it validates only where the engine has (final) WebAssembly SIMD.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

export function engineHasSimd() {
  return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
}

// Every build in dist/, by file name. Each import() and new URL(…, import.meta.url) is spelled out
// literally so that bundlers see it and emit the file; none is fetched until that build is loaded.
const BUILDS = {
  'attnlab-simd': {
    factory: () => import('../dist/attnlab-simd.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-simd.wasm', import.meta.url),
  },
  'attnlab-scalar': {
    factory: () => import('../dist/attnlab-scalar.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-scalar.wasm', import.meta.url),
  },
  'attnlab-train-simd': {
    factory: () => import('../dist/attnlab-train-simd.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-train-simd.wasm', import.meta.url),
  },
  'attnlab-train-scalar': {
    factory: () => import('../dist/attnlab-train-scalar.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-train-scalar.wasm', import.meta.url),
  },
  'attnlab-gpt-simd': {
    factory: () => import('../dist/attnlab-gpt-simd.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-gpt-simd.wasm', import.meta.url),
  },
  'attnlab-gpt-scalar': {
    factory: () => import('../dist/attnlab-gpt-scalar.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-gpt-scalar.wasm', import.meta.url),
  },
  'attnlab-referent-simd': {
    factory: () => import('../dist/attnlab-referent-simd.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-referent-simd.wasm', import.meta.url),
  },
  // The threaded builds (pthreads on a shared heap): each has a worker script next to it, which the
  // module starts once per extra core; listed here so that bundlers emit it too.
  'attnlab-simd-mt': {
    factory: () => import('../dist/attnlab-simd-mt.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-simd-mt.wasm', import.meta.url),
    workerUrl: () => new URL('../dist/attnlab-simd-mt.worker.js', import.meta.url),
    scriptUrl: () => new URL('../dist/attnlab-simd-mt.mjs', import.meta.url),
  },
  'attnlab-gpt-simd-mt': {
    factory: () => import('../dist/attnlab-gpt-simd-mt.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-gpt-simd-mt.wasm', import.meta.url),
    workerUrl: () => new URL('../dist/attnlab-gpt-simd-mt.worker.js', import.meta.url),
    scriptUrl: () => new URL('../dist/attnlab-gpt-simd-mt.mjs', import.meta.url),
  },
  'attnlab-referent-scalar': {
    factory: () => import('../dist/attnlab-referent-scalar.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-referent-scalar.wasm', import.meta.url),
  },
};

export const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

export async function readFromDisk(url) {
  const fsModule = 'node:fs/promises'; // a variable, so bundlers leave the Node-only import alone
  const { readFile } = await import(/* @vite-ignore */ fsModule);
  return readFile(url);
}

// 'simd' or 'scalar', from init's `simd` option and what the engine supports.
export function chooseVariant(wanted = 'auto') {
  if (wanted !== 'auto' && wanted !== true && wanted !== false) {
    throw new AttnLabError(`init: simd must be 'auto', true or false, got ${String(wanted)}`);
  }
  const hasSimd = engineHasSimd();
  if (wanted === true && !hasSimd) {
    throw new AttnLabError('init: simd: true was requested but this engine does not support WebAssembly SIMD');
  }
  return (wanted === 'auto' ? hasSimd : wanted) ? 'simd' : 'scalar';
}

// Whether this page can run the threaded build: WebAssembly threads need a SharedArrayBuffer heap,
// which browsers give only to cross-origin-isolated pages (COOP: same-origin, COEP: require-corp).
// Node runs the single-threaded builds: Emscripten 3.1.6's pthread glue for an ES module cannot
// start its workers under Node.
// A single core has nothing to share.
// A page whose Content-Security-Policy names the Trusted Types policies it allows, without attnlab
// among them, cannot start the workers either.
export function pageCanUseThreads() {
  return !isNode && typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated === true &&
    (globalThis.navigator?.hardwareConcurrency | 0) > 1 && workerPolicy() !== null;
}

// Under require-trusted-types-for 'script' the Worker constructor takes only a TrustedScriptURL. The
// package's one Trusted Types policy, 'attnlab', makes one for a threaded build's own worker file and
// refuses every other URL, so it cannot launder anything else. → the policy; undefined in a browser
// without Trusted Types (plain URLs do); null when the page's trusted-types directive refuses the name.
let policy;
function workerPolicy() {
  if (!globalThis.trustedTypes) return undefined;
  if (policy !== undefined) return policy;
  const workerFiles = new Set(Object.values(BUILDS).filter((b) => b.workerUrl).map((b) => b.workerUrl().href));
  try {
    policy = trustedTypes.createPolicy('attnlab', {
      createScriptURL(url) {
        if (!workerFiles.has(url) && !workerBlobUrls.has(url)) throw new TypeError(`attnlab: refusing script URL ${url}`);
        return url;
      },
    });
  } catch {
    policy = null;
  }
  return policy;
}

// The URL a threaded build's worker is started from (a TrustedScriptURL where the page has Trusted Types).
function workerScriptUrl(build) {
  const href = sameOriginWorkerUrl(build.workerUrl().href);
  return workerPolicy()?.createScriptURL(href) ?? href;
}

// A bundler may inline the small worker script as a data: URL (Vite does below its default
// assetsInlineLimit of 4 KB: TOOLCHAIN.md 15). A worker started from a data: URL has an opaque origin
// and cannot import the module's script, so the threaded build would never finish loading. The same
// text as a blob: URL runs with the page's origin. (Blob URLs made here, for the Trusted Types policy.)
// One blob: URL per worker script, made once (locateFile asks again for every worker it starts).
const workerBlobUrls = new Set();
const blobUrlOf = new Map();  // data: URL → its blob: URL
function sameOriginWorkerUrl(href) {
  const match = /^data:([^,]*),(.*)$/s.exec(href);
  if (!match) return href;
  if (!blobUrlOf.has(href)) {
    const text = match[1].endsWith(';base64') ? atob(match[2]) : decodeURIComponent(match[2]);
    const url = URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
    workerBlobUrls.add(url);
    blobUrlOf.set(href, url);
  }
  return blobUrlOf.get(href);
}

// init's `threads` option: 'auto' (every core the page may use) or a whole number ≥ 1.
export function checkThreads(threads = 'auto') {
  if (threads !== 'auto' && !(Number.isInteger(threads) && threads >= 1)) {
    throw new AttnLabError(`init: threads must be 'auto' or a whole number ≥ 1, got ${String(threads)}`);
  }
  return threads;
}

// Instantiates dist/<name>.wasm with the bytes the caller gave (`wasmBinary`), else from where
// `locateFile` says, else from disk (Node) or next to this file (browsers). `fn` names the caller in errors.
export async function instantiate(name, { wasmBinary, locateFile }, fn) {
  const build = BUILDS[name];
  const moduleArgs = {};
  if (wasmBinary) moduleArgs.wasmBinary = wasmBinary;
  else if (locateFile) moduleArgs.locateFile = locateFile;
  else if (isNode) moduleArgs.wasmBinary = await readFromDisk(build.wasmUrl());
  else moduleArgs.locateFile = (file) => (file.endsWith('.worker.js') ? workerScriptUrl(build) : build.wasmUrl().href);
  // A threaded build's workers import the module's script itself (by this URL: a bundler may have
  // renamed the factory's copy).
  if (build.scriptUrl) moduleArgs.mainScriptUrlOrBlob = build.scriptUrl().href;
  const { default: createModule } = await build.factory();
  try {
    return await createModule(moduleArgs);
  } catch (error) {
    // Every build uses WebAssembly exception handling; an engine without it cannot compile them.
    throw new AttnLabError(`${fn}: the WebAssembly module ${name}.wasm could not be loaded (${error?.message ?? error}). ` +
      'attnlab needs WebAssembly exception handling: Chrome/Edge 95+, Firefox 100+, Safari 15.2+, Node 18+.');
  }
}
