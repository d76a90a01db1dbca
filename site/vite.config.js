// Builds the static site: the home page and one page per lesson. `attnlab` resolves to the package
// in ../web (exactly what a tutorial author imports), its .wasm files are emitted as assets, and
// KaTeX's CSS and fonts are bundled, so the output needs no network and no server code.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const lessons = readdirSync(here('./lessons')).filter((f) => f.endsWith('.html'));

export default {
  root: here('.'),
  base: './',
  resolve: {
    alias: [
      { find: /^attnlab$/, replacement: here('../web/index.js') },
      { find: /^attnlab\/components$/, replacement: here('../web/components/index.js') },
    ],
  },
  build: {
    outDir: here('./dist'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      input: Object.fromEntries([['index', here('./index.html')], ...lessons.map((f) => [f.replace('.html', ''), here(`./lessons/${f}`)])]),
    },
  },
};
