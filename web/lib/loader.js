// Loads the wasm module: the SIMD build when the engine validates SIMD, else the scalar build.
// In Node the .wasm bytes are read from disk next to this package; in browsers and bundlers they
// are fetched relative to this file (import.meta.url), or from where `locateFile` says.
import { AttnLabError } from './errors.js';

// wasm-feature-detect's SIMD probe: a one-function module doing i32.const 0, i8x16.splat,
// i8x16.popcnt; it validates only where the engine has (final) WebAssembly SIMD.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

export function engineHasSimd() {
  return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
}

const VARIANTS = {
  simd: {
    factory: () => import('../dist/attnlab-simd.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-simd.wasm', import.meta.url),
  },
  scalar: {
    factory: () => import('../dist/attnlab-scalar.mjs'),
    wasmUrl: () => new URL('../dist/attnlab-scalar.wasm', import.meta.url),
  },
};

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

async function readFromDisk(url) {
  const fsModule = 'node:fs/promises'; // a variable, so bundlers leave the Node-only import alone
  const { readFile } = await import(/* @vite-ignore */ fsModule);
  return readFile(url);
}

export async function loadModule(options) {
  const wanted = options.simd ?? 'auto';
  if (wanted !== 'auto' && wanted !== true && wanted !== false) {
    throw new AttnLabError(`init: simd must be 'auto', true or false, got ${String(wanted)}`);
  }
  const hasSimd = engineHasSimd();
  if (wanted === true && !hasSimd) {
    throw new AttnLabError('init: simd: true was requested but this engine does not support WebAssembly SIMD');
  }
  const simd = wanted === 'auto' ? hasSimd : wanted;
  const variant = VARIANTS[simd ? 'simd' : 'scalar'];
  const moduleArgs = {};
  if (options.wasmBinary) moduleArgs.wasmBinary = options.wasmBinary;
  else if (options.locateFile) moduleArgs.locateFile = options.locateFile;
  else if (isNode) moduleArgs.wasmBinary = await readFromDisk(variant.wasmUrl());
  else moduleArgs.locateFile = () => variant.wasmUrl().href;
  const { default: createModule } = await variant.factory();
  try {
    return { raw: await createModule(moduleArgs), simd };
  } catch (error) {
    // Both builds use WebAssembly exception handling; an engine without it cannot compile them.
    throw new AttnLabError(`init: the WebAssembly module could not be loaded (${error?.message ?? error}). attnlab needs ` +
      'WebAssembly exception handling: Chrome/Edge 95+, Firefox 100+, Safari 15.2+, Node 18+.');
  }
}
