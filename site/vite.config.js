// Builds the static site: the home page and one page per lesson. `attnlab` resolves to the package
// in ../web (exactly what a tutorial author imports), its .wasm files are emitted as assets, and
// KaTeX's CSS and fonts are bundled, so the output needs no network and no server code. The lessons'
// formulas are typeset here, not in the browser (./formula-plugin.js: no KaTeX script on any page), and
// each lesson's first view is written into its HTML (./prerender-plugin.js).
// Every page carries the Content-Security-Policy from ./csp.js as a <meta> (the reasons for each
// source are there).
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { metaPolicy } from './csp.js';
import { formulaPlugin } from './formula-plugin.js';
import { prerenderPlugin } from './prerender-plugin.js';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const lessons = readdirSync(here('./lessons')).filter((f) => f.endsWith('.html'));

// Puts the policy right after <meta charset>, ahead of every script and stylesheet it governs (a
// <meta> policy covers only what comes after it). Build only: the dev server injects inline styles.
const contentSecurityPolicy = {
  name: 'attnlab-content-security-policy',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler(html, { filename }) {
      const charset = /<meta charset="utf-8"\s*\/?>/i;
      if (!charset.test(html)) throw new Error(`${filename}: no <meta charset="utf-8"> to put the CSP after`);
      const attribute = metaPolicy().replaceAll('&', '&amp;').replaceAll('"', '&quot;');
      return html.replace(charset, (meta) => `${meta}<!-- CSP: see site/csp.js (scripts/serve-site.mjs also sends it as a header) -->` +
        `<meta http-equiv="Content-Security-Policy" content="${attribute}">`);
    },
  },
};

export default {
  root: here('.'),
  base: './',
  plugins: [formulaPlugin(), ...prerenderPlugin(), contentSecurityPolicy],
  resolve: {
    alias: [
      // The site uses every module and model, so `attnlab` is the entry that ships them all (an app that
      // imports plain 'attnlab' ships the main module alone: web/README.md, "Bundlers").
      { find: /^attnlab$/, replacement: here('../web/lib/all.js') },
      { find: /^attnlab\/components$/, replacement: here('../web/components/index.js') },
    ],
  },
  // The training worker (src/lessons/watch-it-learn/worker.js) is bundled as an ES module: attnlab loads its wasm glue
  // with a dynamic import(), which Vite's default 'iife' worker format cannot split into a chunk.
  worker: { format: 'es' },
  build: {
    outDir: here('./dist'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1024,
    assetsInlineLimit: 0,  // fonts stay files: font-src 'self', no data: URLs (csp.js)
    rollupOptions: {
      input: Object.fromEntries([['index', here('./index.html')], ...lessons.map((f) => [f.replace('.html', ''), here(`./lessons/${f}`)])]),
    },
  },
};
