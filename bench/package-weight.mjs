// What a tutorial author ships: the packed package's size, and the `dist` of two no-config Vite apps
// built from it — (a) attention only, (b) attention and the built-in trained model. Prints a markdown
// report (bench/package-weight-results.md holds one). Needs web/dist built (scripts/build-wasm.sh).
//   node bench/package-weight.mjs [--keep]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const repo = new URL('../', import.meta.url).pathname;
const web = join(repo, 'web');
const vite = join(repo, 'node_modules/vite/bin/vite.js');
const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const ATTENTION = `const lab = await init();
const q = lab.randn(4, 8, 1), k = lab.randn(4, 8, 2), v = lab.randn(4, 8, 3);
document.body.textContent = lab.scaledDotProductAttention(q, k, v, { causal: true }).weights.rows;
`;
const MODEL = `const { model, tokenizer } = await lab.loadBuiltinModel();
document.body.textContent += tokenizer.decode([model.forward(tokenizer.encode('In the')).logits.rows]);
`;

// The import lines an app writes: the package's feature entry for the built-in model where it has one.
function appSource(withModel, exportsMap) {
  const lines = ["import { init } from 'attnlab';"];
  if (withModel && exportsMap['./builtin-model']) lines.push("import 'attnlab/builtin-model';");
  return `${lines.join('\n')}\n${ATTENTION}${withModel ? MODEL : ''}`;
}

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
const MB = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;

export function measure({ keep = false } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'attnlab-weight-'));
  try {
    const tarball = join(work, run('npm', ['pack', '--silent', '--pack-destination', work], web).trim().split('\n').pop());
    const project = join(work, 'app');
    run('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    run('npm', ['install', '--no-audit', '--no-fund', '--silent', tarball], project);
    const exportsMap = JSON.parse(readFileSync(join(project, 'node_modules/attnlab/package.json'), 'utf8')).exports;
    const apps = {};
    for (const [name, withModel] of [['attention only', false], ['with the built-in model', true]]) {
      const dir = join(project, withModel ? 'with-model' : 'attention-only');
      run('mkdir', ['-p', dir]);
      writeFileSync(join(dir, 'index.html'), '<!doctype html><html><body><script type="module" src="./main.js"></script></body></html>');
      writeFileSync(join(dir, 'main.js'), appSource(withModel, exportsMap));
      run('node', [vite, 'build', '--logLevel', 'error'], dir);
      const files = filesUnder(join(dir, 'dist')).map((f) => ({ name: relative(join(dir, 'dist'), f), bytes: statSync(f).size }));
      files.sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
      apps[name] = { source: readFileSync(join(dir, 'main.js'), 'utf8'), files, total: files.reduce((s, f) => s + f.bytes, 0) };
    }
    const listing = run('tar', ['-tvzf', tarball], work).trim().split('\n');
    return { tarball: statSync(tarball).size, unpacked: listing.reduce((s, l) => s + Number(l.split(/\s+/)[2]), 0), fileCount: listing.length, apps, work };
  } finally {
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}

export function report({ tarball, unpacked, fileCount, apps }) {
  const out = [`npm pack: ${MB(tarball)} tarball, ${MB(unpacked)} unpacked, ${fileCount} files.`, ''];
  for (const [name, { source, files, total }] of Object.entries(apps)) {
    out.push(`### Vite app, ${name}: dist ${MB(total)} in ${files.length} files`, '', '```js', source.trim(), '```', '');
    out.push('| file | size |', '|---|---|');
    for (const { name: file, bytes } of files) out.push(`| ${file} | ${kB(bytes)} |`);
    out.push('');
  }
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = measure({ keep: process.argv.includes('--keep') });
  console.log(report(result));
  if (process.argv.includes('--keep')) console.log(`(kept in ${result.work})`);
}
