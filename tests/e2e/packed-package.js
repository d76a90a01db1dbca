// The npm package as a user gets it: `npm pack` of web/, installed into an empty project of its own
// (package.json with type: module, nothing else) → { tarball, project }. package.test.js and
// examples.test.js each start from one.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const web = new URL('../../web/', import.meta.url).pathname;
const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export function installPackedPackage(prefix) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const tarball = join(work, run('npm', ['pack', '--silent', '--pack-destination', work], web).trim().split('\n').pop());
  const project = join(work, 'app');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--silent', tarball], project);
  return { tarball, project };
}
