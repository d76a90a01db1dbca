// Loads the wasm modules: the main one at init(), the training one (TaskModel), the GPT one and the
// referent one (lesson 1's "it" encoder) when asked, each in
// the SIMD build when the engine validates SIMD, else the scalar build. In Node the .wasm bytes are
// read from disk next to this package; in browsers and bundlers they are fetched relative to this file
// (import.meta.url), or from where `locateFile` says.
import { AttnLabError } from './errors.js';
import { entryOfBuild, registeredBuild, registeredBuilds } from './registry.js';

// wasm-feature-detect's SIMD probe: a one-function module doing i32.const 0, i8x16.splat,
// i8x16.popcnt; it validates only where the engine has (final) WebAssembly SIMD.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

export function engineHasSimd() {
  return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
}

// The main module's builds, by file name. Each import() and new URL(…, import.meta.url) is spelled out
// literally so that bundlers see it and emit the file; none is fetched until that build is loaded.
// The other modules' builds are in the feature entries (lib/ship-*.js, lib/registry.js), so that an
// app's bundle holds them only if it imports their entry.
const MAIN_BUILDS = {
  'attnlab-simd': {
    factory: () => import('../dist/attnlab-simd.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-simd.wasm', import.meta.url),
  },
  'attnlab-scalar': {
    factory: () => import('../dist/attnlab-scalar.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-scalar.wasm', import.meta.url),
  },
  // The threaded build (pthreads on a shared heap): it has a worker script next to it, which the
  // module starts once per extra core; listed here so that bundlers emit it too. Its script is a plain
  // asset, imported by URL (see instantiate), not an import(): the page and its workers then load one
  // copy of it, and a bundler does not bundle the glue's own fallback worker, which never runs.
  'attnlab-simd-mt': {
    wasmUrl: () => new URL('../dist/attnlab-simd-mt.wasm', import.meta.url),
    workerUrl: () => new URL('../dist/attnlab-simd-mt.worker.js', import.meta.url),
    scriptUrl: () => new URL('../dist/attnlab-simd-mt.mjs', import.meta.url),
  },
};

// Whether a bundler has moved this package's files: it rewrote the literal URL above (to a hashed
// asset, a data: URL, or the dev server's pre-bundled copy's relative path), so the one computed at run
// time from the same path (which bundlers leave alone) no longer matches it. Unmoved (Node, a page that
// imports the package as it is installed), the feature entries and their files are where they sit in
// the package, and a module not imported yet is imported now; moved, only what the app imported is there.
export function filesMoved() {
  const path = ['..', 'dist', 'attnlab-simd.wasm'].join('/');
  return MAIN_BUILDS['attnlab-simd'].wasmUrl().href !== new URL(path, import.meta.url).href;
}

// Imports the feature entry lib/ship-<entry>.js (which registers its files) where the package sits
// unmoved; in a bundle that left it out, an AttnLabError naming `fn`, `what` is missing and the import
// that ships it.
export async function importEntry(entry, fn, what, alternative = '') {
  if (filesMoved()) {
    throw new AttnLabError(`${fn}: ${what} is not in this app's bundle: add import 'attnlab/${entry}'; to the app ` +
      `so that the bundler ships it${alternative}`);
  }
  const url = new URL(['.', `ship-${entry}.js`].join('/'), import.meta.url);
  try {
    await import(/* @vite-ignore */ /* webpackIgnore: true */ url.href);
  } catch (error) {
    throw new AttnLabError(`${fn}: could not load ${url.href} (${error?.message ?? error})`);
  }
}

// The build named `name` (a file name in dist/ without .wasm), importing its feature entry if needed.
async function buildNamed(name, fn) {
  const build = MAIN_BUILDS[name] ?? registeredBuild(name);
  if (build) return build;
  const { entry, what } = entryOfBuild(name);
  await importEntry(entry, fn, what);
  return registeredBuild(name);
}

const threadedBuilds = () => [MAIN_BUILDS['attnlab-simd-mt'], ...registeredBuilds()].filter((b) => b.workerUrl);

export const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

export async function readFromDisk(url) {
  const fsModule = 'node:fs/promises'; // a variable, so bundlers leave the Node-only import alone
  const { readFile } = await import(/* @vite-ignore */ fsModule);
  return readFile(url);
}

// A build's .wasm from disk. Missing, it is a source checkout whose modules were never built (dist/ is
// made by the build, and shipped in the npm package): say how to get them, not ENOENT.
async function readBuild(url, name, fn) {
  try {
    return await readFromDisk(url);
  } catch (error) {
    if (error?.code !== 'ENOENT') throw error;
    throw new AttnLabError(`${fn}: ${name}.wasm is not built (${url.pathname} is missing). This attnlab is a source ` +
      'checkout: build its modules with scripts/build-wasm.sh at the repository\'s top (scripts/start.sh builds ' +
      'everything), or use the published package (npm install attnlab).');
  }
}

// 'simd' or 'scalar', from init's `simd` option and what the engine supports.
export function chooseVariant(wanted = 'auto', fn = 'init') {
  if (wanted !== 'auto' && wanted !== true && wanted !== false) {
    throw new AttnLabError(`${fn}: simd must be 'auto', true or false, got ${String(wanted)}`);
  }
  const hasSimd = engineHasSimd();
  if (wanted === true && !hasSimd) {
    throw new AttnLabError(`${fn}: simd: true was requested but this engine does not support WebAssembly SIMD`);
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
  // The threaded builds registered when a worker starts (the GPT one comes with 'attnlab/gpt').
  const workerFile = (url) => threadedBuilds().some((b) => b.workerUrl().href === url);
  try {
    policy = trustedTypes.createPolicy('attnlab', {
      createScriptURL(url) {
        if (!workerFile(url) && !workerBlobUrls.has(url)) throw new TypeError(`attnlab: refusing script URL ${url}`);
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
// Builds whose .wasm and glue a page asked for early (prefetch in index.js): name → the bytes' promise.
const prefetchedBuilds = new Map();

// Starts downloading a single-threaded build's .wasm and importing its glue, so that instantiate()
// later finds them under way (a lesson's model module fetched beside the main one, not after it).
export function prefetchBuild(name) {
  if (prefetchedBuilds.has(name) || isNode) return;
  const build = MAIN_BUILDS[name] ?? registeredBuild(name);
  if (!build || build.workerUrl) return;  // not shipped with this app, or threaded (its workers load it)
  build.factory().catch(() => {});  // instantiate imports it again: the same module, already evaluated
  prefetchedBuilds.set(name, fetch(build.wasmUrl()).then((r) => (r.ok ? r.arrayBuffer() : null)).catch(() => null));
}

// The glue's own messages reach the console as the glue would print them (console.warn), but one: a
// threaded build's main thread waits for its worker pool inside a parallel loop, and the glue warns
// about any wait on the main thread once ("Blocking on the main thread is very dangerous"), because a
// wait for a worker that needs the main thread to start would hang the page. These waits cannot: the
// pool's workers have all started before the module is handed out (its factory resolves only then, see
// startThreaded in index.js), and the loops' workers never wait for the main thread.
const SAFE_HERE = 'Blocking on the main thread is very dangerous';
function printGlueMessage(text) {
  if (!String(text).startsWith(SAFE_HERE)) console.warn(text);
}

export async function instantiate(name, { wasmBinary, locateFile }, fn) {
  const build = await buildNamed(name, fn);
  const moduleArgs = {};
  // A prefetched build's bytes (a failed prefetch leaves the load to the glue, which reports it).
  const prefetched = !wasmBinary && !locateFile ? await prefetchedBuilds.get(name) : null;
  prefetchedBuilds.delete(name);
  if (prefetched) moduleArgs.wasmBinary = prefetched;
  else if (wasmBinary) moduleArgs.wasmBinary = wasmBinary;
  else if (locateFile) moduleArgs.locateFile = locateFile;
  else if (isNode) moduleArgs.wasmBinary = await readBuild(build.wasmUrl(), name, fn);
  else moduleArgs.locateFile = (file) => (file.endsWith('.worker.js') ? workerScriptUrl(build) : build.wasmUrl().href);
  // A threaded build's workers import the module's script itself, by this URL (a bundler renames it),
  // and so does the page: one copy of the script, fetched once.
  const scriptUrl = build.scriptUrl?.().href;
  if (scriptUrl) moduleArgs.mainScriptUrlOrBlob = scriptUrl;
  moduleArgs.printErr = printGlueMessage;
  const { default: createModule } = await (scriptUrl ? import(/* @vite-ignore */ /* webpackIgnore: true */ scriptUrl) : build.factory());
  try {
    return await createModule(moduleArgs);
  } catch (error) {
    // Every build uses WebAssembly exception handling; an engine without it cannot compile them.
    throw new AttnLabError(`${fn}: the WebAssembly module ${name}.wasm could not be loaded (${error?.message ?? error}). ` +
      'attnlab needs WebAssembly exception handling: Chrome/Edge 95+, Firefox 100+, Safari 15.2+, Node 18+.');
  }
}
