#!/usr/bin/env node
// Sizes in web/README.md and docs/library.md come from the built package, never from a hand: each is a marked span,
//   <!--size dist/attnlab-simd.wasm-->316 kB<!--/-->
// whose text this script measures and writes. Kinds (paths relative to web/, a trailing / sums a folder):
//   size PATH     the file's bytes, or the folder's
//   gzip PATH     the file gzipped at zlib's default level (what a host that compresses sends)
//   tarball       the `npm pack` tarball
//   app NAME      a no-config Vite app built from the packed package (bench/package-weight.mjs builds
//                 'attention only' and 'with the built-in model'): "1.27 MB, 8 files"
// Units are decimal, as npm and Vite print them: under 1 MB in kB (whole), else MB to two places.
//   node scripts/readme-figures.mjs           rewrites both documents' spans from web/ as built
//   node scripts/readme-figures.mjs --check   lists the spans that disagree; exit status 1 if any
// tests/js/readme-figures.test.js runs the check, so a build that changes a size fails until the
// documents are rewritten.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

import { measure as measurePackage } from '../bench/package-weight.mjs';

const web = new URL('../web/', import.meta.url).pathname;
export const README = join(web, 'README.md');
export const LIBRARY = new URL('../docs/library.md', import.meta.url).pathname;
const DOCUMENTS = { 'web/README.md': README, 'docs/library.md': LIBRARY };

// <!--KIND ARG-->TEXT<!--/-->
const SPAN = /<!--(size|gzip|tarball|app)(?: ([^>]*?))?-->(.*?)<!--\/-->/g;

export const formatBytes = (bytes) => (bytes < 1e6 ? `${Math.round(bytes / 1000)} kB` : `${(bytes / 1e6).toFixed(2)} MB`);

const bytesOf = (path) => (statSync(path).isDirectory()
  ? readdirSync(path, { recursive: true }).map((f) => join(path, f)).filter((f) => statSync(f).isFile())
    .reduce((sum, f) => sum + statSync(f).size, 0)
  : statSync(path).size);

// Every marked span of `text`: { kind, arg, shown, start, end }.
export function spans(text) {
  return [...text.matchAll(SPAN)].map((m) => ({ kind: m[1], arg: m[2] ?? '', shown: m[3], start: m.index, end: m.index + m[0].length }));
}

// The text each span should show, measured from web/ as built. The packed package is measured (npm
// pack and two Vite builds, a few seconds) only when a span asks for it.
export function measureSpans(list) {
  const packed = list.some((s) => s.kind === 'tarball' || s.kind === 'app') ? measurePackage() : null;
  return list.map(({ kind, arg }) => {
    if (kind === 'size') return formatBytes(bytesOf(join(web, arg)));
    if (kind === 'gzip') return formatBytes(gzipSync(readFileSync(join(web, arg))).length);
    if (kind === 'tarball') return formatBytes(packed.tarball);
    const app = packed.apps[arg];
    if (!app) throw new Error(`<!--app ${arg}-->: no such app (bench/package-weight.mjs builds ${Object.keys(packed.apps).join(', ')})`);
    return `${formatBytes(app.total)}, ${app.files.length} files`;
  });
}

// `text` with every span showing what was measured, and the spans that changed.
export function rewrite(text) {
  const list = spans(text);
  const measured = measureSpans(list);
  let out = '';
  let at = 0;
  const changed = [];
  list.forEach((span, i) => {
    const head = `<!--${span.kind}${span.arg ? ` ${span.arg}` : ''}-->`;
    out += `${text.slice(at, span.start)}${head}${measured[i]}<!--/-->`;
    at = span.end;
    if (measured[i] !== span.shown) changed.push(`${head}: ${span.shown} → ${measured[i]}`);
  });
  return { text: out + text.slice(at), changed, count: list.length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, path] of Object.entries(DOCUMENTS)) {
    const { text, changed, count } = rewrite(readFileSync(path, 'utf8'));
    if (process.argv.includes('--check')) {
      console.log(changed.length ? `${name}: ${changed.length} of ${count} figures disagree with the build:\n${changed.join('\n')}`
        : `${name}: all ${count} figures agree with the build`);
      if (changed.length) process.exitCode = 1;
    } else {
      writeFileSync(path, text);
      console.log(`${name}: ${count} figures, ${changed.length} rewritten${changed.length ? `:\n${changed.join('\n')}` : ''}`);
    }
  }
}
