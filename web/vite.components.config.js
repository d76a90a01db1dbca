// Library build of the web components: one ES module, web/dist/components.js, with
// d3-scale-chromatic inlined so a plain <script type="module"> page can import it without an
// import map. Run by scripts/build-components.sh.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: false, // web/dist also holds the wasm builds
    copyPublicDir: false,
    target: 'es2022',
    lib: {
      entry: fileURLToPath(new URL('./components/index.js', import.meta.url)),
      formats: ['es'],
      fileName: () => 'components.js',
    },
  },
});
