import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Hono, Context } from 'hono';
import type { ServerEnv } from './server-env.js';

/** Paths that belong to the API, never to the console (docs/http-api.md §5: the console uses `/v1` only). */
const API_PREFIXES = ['/v1', '/docs', '/openapi.json', '/healthz', '/readyz', '/metrics'];

/** Build output with a content hash in its name: cached for a year, never revalidated. */
const HASHED_DIR = '/assets/';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** Text types worth compressing once and keeping compressed. */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.svg', '.txt']);

/** The console's page: the browser may run only our own scripts and talk only to this origin. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

interface CachedFile {
  body: Buffer;
  gzipped: Buffer | null;
  type: string;
  etag: string;
}

/**
 * Serves the built console (`dist/console`) at `/` (docs/http-api.md §5): its files with their content
 * types — hashed assets cached as immutable, the rest revalidated — and `index.html` for every
 * other GET outside the API, so a deep link (`/executions/<id>`) survives a reload. A missing
 * `/assets/…` file is a 404, never the page (a stale chunk must fail loudly, not parse HTML).
 * Files are read once and kept in memory, gzipped when the browser accepts it.
 */
export function registerConsole(
  app: Hono<ServerEnv>,
  consoleDir: string,
): { cachedFiles: () => number } {
  const root = resolve(consoleDir);
  // Files found, only: they are the build's, so the cache is bounded. A miss is not kept (any
  // client could fill memory with made-up paths); it costs no I/O unless its name has a type
  // the console serves.
  // Keyed by the file's resolved path, not the request's: `/assets//x.js` is the same file.
  const cache = new Map<string, CachedFile>();

  const load = async (relative: string): Promise<CachedFile | null> => {
    const full = relative === '' ? '' : resolve(root, relative);
    const known = cache.get(full);
    if (known) return known;
    const file = await readConsoleFile(root, relative);
    if (file) cache.set(full, file);
    return file;
  };

  app.on(['GET', 'HEAD'], '*', async (c, next) => {
    const path = c.req.path;
    if (API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)))
      return next();
    const asset = path === '/' ? null : await load(safeRelative(path));
    if (asset) return send(c, asset, path.startsWith(HASHED_DIR) ? 'immutable' : 'revalidate');
    if (path.startsWith(HASHED_DIR)) return next();
    const page = await load('index.html');
    if (!page) return next();
    return send(c, page, 'page');
  });
  return { cachedFiles: () => cache.size };
}

/** A request path as a path inside the console folder, or '' when it could escape it. */
function safeRelative(path: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return '';
  }
  if (decoded.includes('\0') || decoded.split('/').some((part) => part === '..')) return '';
  return decoded.replace(/^\/+/, '');
}

async function readConsoleFile(root: string, relative: string): Promise<CachedFile | null> {
  if (relative === '') return null;
  const full = resolve(root, relative);
  if (full !== root && !full.startsWith(root + sep)) return null;
  const type = CONTENT_TYPES[extname(full).toLowerCase()];
  if (!type) return null;
  try {
    if (!(await stat(full)).isFile()) return null;
    const body = await readFile(full);
    const compressible = COMPRESSIBLE.has(extname(full).toLowerCase()) && body.length > 1024;
    const gzipped = compressible ? gzipSync(body, { level: 9 }) : null;
    const etag = `"${body.length.toString(36)}-${simpleHash(body)}"`;
    return { body, gzipped, type, etag };
  } catch {
    return null;
  }
}

/** FNV-1a over the bytes: an ETag, not a security boundary. */
function simpleHash(bytes: Buffer): string {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(36);
}

type Caching = 'immutable' | 'revalidate' | 'page';

function send(c: Context<ServerEnv>, file: CachedFile, caching: Caching): Response {
  const headers: Record<string, string> = {
    'content-type': file.type,
    'cache-control': caching === 'immutable' ? 'public, max-age=31536000, immutable' : 'no-cache',
    etag: file.etag,
    'x-content-type-options': 'nosniff',
    vary: 'accept-encoding',
  };
  if (caching === 'page') {
    headers['content-security-policy'] = CONTENT_SECURITY_POLICY;
    headers['referrer-policy'] = 'same-origin';
    headers['x-frame-options'] = 'DENY';
  }
  if (c.req.header('if-none-match') === file.etag)
    return new Response(null, { status: 304, headers });
  const accepts = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
  const body = accepts && file.gzipped ? file.gzipped : file.body;
  if (body !== file.body) headers['content-encoding'] = 'gzip';
  headers['content-length'] = String(body.length);
  return new Response(c.req.method === 'HEAD' ? null : new Uint8Array(body), {
    status: 200,
    headers,
  });
}
