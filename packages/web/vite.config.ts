import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web UI is built into @parley/server's dist/public, which the server
// serves at `/` and ships in its package (docs/decisions/web-0001-web-ui.md).
// Relative asset URLs keep it working under any path prefix.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../server/dist/public', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    // One bundle of about 160 kB gzipped (React, zod through @parley/core): no split is worth a request.
    chunkSizeWarningLimit: 800,
  },
});
