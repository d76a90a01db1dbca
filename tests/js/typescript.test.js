// The hand-written index.d.ts type-checks a TypeScript example that uses the whole API.
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

test('tsc --noEmit on tests/js/types/example.ts', () => {
  const tsc = new URL('../../node_modules/typescript/bin/tsc', import.meta.url).pathname;
  const project = new URL('./types/tsconfig.json', import.meta.url).pathname;
  execFileSync(process.execPath, [tsc, '--noEmit', '-p', project], { stdio: 'inherit' });
});
