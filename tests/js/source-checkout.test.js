// A source checkout whose WebAssembly modules were never built (a fresh clone used through file:../../web,
// as examples/node is): init() says which module is missing and how to build it, not ENOENT.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

test('init in a checkout without dist/ names the missing module and the command that builds it', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'attnlab-checkout-'));
  try {
    const web = new URL('../../web/', import.meta.url).pathname;
    // The package's sources without its built modules, and the glue stubs the bundler-visible imports
    // need (the .mjs are build outputs too): only the .wasm bytes are read from disk.
    cpSync(web, copy, { recursive: true, filter: (path) => !path.includes('/models/') && !path.endsWith('.wasm') });
    const { init, AttnLabError } = await import(join(copy, 'index.js'));
    await assert.rejects(init({ simd: true }), (error) => error instanceof AttnLabError &&
      /^init: attnlab-simd\.wasm is not built \(.*\/dist\/attnlab-simd\.wasm is missing\)\. This attnlab is a source checkout: build its modules with scripts\/build-wasm\.sh/.test(error.message));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
