// Builds the web UI (Preact) into dist/web, which the control plane serves at / (src/control-plane/api/ui.ts).
// JSX settings come from web/tsconfig.json. Assets are hashed and referenced from /assets/.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    target: 'es2022',
  },
});
