import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import type { MiddlewareHandler } from 'hono';
import type { ServerApp } from '../http/server-context.js';

/**
 * The web UI's built files: `dist/public` of this package, written there by
 * the web package's Vite build (`npm run build`, and so `npm ci`). Found the
 * same way from `src/` (tests, source runs) and from `dist/` (the package).
 */
export const webAssetsFolder = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'dist',
  'public',
);

const notBuilt = `<!doctype html><meta charset="utf-8"><title>Parley</title>
<p>The web UI is not built. Run <code>npm run build</code> in the Parley repository.</p>`;

/**
 * What the UI's pages may load: only this server. A stray CDN font or
 * script is refused by the browser, not merely avoided.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the web UI (HTTP.md, "Web UI"): `index.html` at `/` and the
 * bundles under `/assets/`. The UI routes in the URL's fragment, so no
 * other path falls back to it. Without a build, `/` says how to make one.
 */
export function registerStaticAssets(app: ServerApp, folder = webAssetsFolder): void {
  if (!existsSync(join(folder, 'index.html'))) {
    app.get('/', (c) => c.html(notBuilt, 503));
    return;
  }
  const headers =
    (immutable: boolean): MiddlewareHandler =>
    async (c, next) => {
      await next();
      if (c.res.status !== 200) return;
      c.res.headers.set('Content-Security-Policy', contentSecurityPolicy);
      c.res.headers.set('X-Content-Type-Options', 'nosniff');
      // Hashed bundles never change; index.html is read again after an upgrade.
      c.res.headers.set(
        'Cache-Control',
        immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    };
  app.get('/', headers(false), serveStatic({ root: folder, path: 'index.html' }));
  app.get('/assets/*', headers(true), serveStatic({ root: folder }));
}
