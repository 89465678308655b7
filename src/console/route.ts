// GET /console/…: the compliance console's static bundle (built by `npm run build` with Vite into dist/console/).
// One exact route per built file, read once at start-up: no path from a request ever reaches the file system.
// Every answer carries a strict Content-Security-Policy (only this origin's scripts, styles and API; no inline
// script or style, no framing), and hashed assets are cached for a year while index.html is revalidated.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpResponse, Route } from '../http/types.js';

export const CONSOLE_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", "connect-src 'self'",
  "font-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'", 'upgrade-insecure-requests',
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.json': 'application/json', '.txt': 'text/plain; charset=utf-8',
};

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY', 'cross-origin-opener-policy': 'same-origin', 'cross-origin-resource-policy': 'same-origin',
};

/** Where the bundle is: beside the compiled code (dist/src/console → dist/console), or dist/console from the sources. */
export function consoleDir(explicit?: string): string | null {
  const candidates = explicit ? [explicit] : [
    fileURLToPath(new URL('../../console/', import.meta.url)),
    fileURLToPath(new URL('../../dist/console/', import.meta.url)),
  ];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function fileRoute(pattern: string, response: HttpResponse): Route {
  return { method: 'GET', pattern, maxBodyBytes: 0, headers: [], handler: async () => response };
}

/** The console's routes, or none when the bundle was not built (the API answers 404 there, as for any path). */
export function consoleRoutes(dir: string | null): Route[] {
  if (dir === null) return [];
  const routes: Route[] = [];
  for (const path of filesUnder(dir)) {
    const name = relative(dir, path).split(sep).join('/');
    const type = TYPES[extname(path)];
    if (type === undefined) continue;
    const hashed = name.startsWith('assets/');
    const response: HttpResponse = {
      status: 200,
      headers: { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache' },
      text: readFileSync(path, 'utf8'),
    };
    routes.push(fileRoute(`/console/${name}`, response));
    if (name === 'index.html') routes.push(fileRoute('/console/', response));
  }
  routes.push(fileRoute('/console', { status: 308, headers: { location: '/console/', 'cache-control': 'no-cache' }, text: '' }));
  return routes;
}
