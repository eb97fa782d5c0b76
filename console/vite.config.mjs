// The web console (docs/http-api.md §5): Preact through Vite's own JSX transform (Oxc, Vite 8), built into
// dist/console, which `plaita serve` serves at `/`. No plugin, no CDN: one static folder.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  logLevel: process.env.PLAITA_CONSOLE_BUILD_LOG ?? 'warn',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 120,
    modulePreload: { polyfill: false },
  },
});
