// What the typings say a module exports as a value is what it exports at run time, for the ES module
// (index.js / index.d.ts) and the CommonJS door (index.cjs / index.d.cts): an author whose
// `import { X } from 'attnlab'` type-checks under tsc --strict gets X in Node and in a bundler.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const web = (file) => fileURLToPath(new URL(`../../web/${file}`, import.meta.url));

// The names a declaration file exports as values (classes, functions, consts), not types and interfaces.
function declaredValueExports(file) {
  const program = ts.createProgram([file], { strict: true, noEmit: true, module: ts.ModuleKind.NodeNext,
                                             moduleResolution: ts.ModuleResolutionKind.NodeNext });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const symbol = checker.getSymbolAtLocation(source);
  return checker.getExportsOfModule(symbol)
    .filter((s) => (s.flags & ts.SymbolFlags.Value) !== 0)
    .map((s) => s.name)
    .sort();
}

test('index.d.ts declares as values exactly what index.js exports', async () => {
  const runtime = Object.keys(await import('../../web/index.js')).sort();
  assert.deepEqual(declaredValueExports(web('index.d.ts')), runtime);
});

test('index.d.cts declares as values exactly what index.cjs exports', () => {
  const runtime = Object.keys(require('../../web/index.cjs')).sort();
  assert.deepEqual(declaredValueExports(web('index.d.cts')), runtime);
});

test('the instance types are interfaces, and the Lab carries their constructors', () => {
  const declared = declaredValueExports(web('index.d.ts'));
  for (const name of ['MultiHeadAttention', 'TransformerEncoderLayer', 'TaskModel', 'GPTModel', 'GPTSession', 'Tokenizer']) {
    assert.ok(!declared.includes(name), `${name} must not be declared as a value export`);
  }
});
