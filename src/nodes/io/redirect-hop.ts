import type { HttpRequest } from './build-request.js';

/**
 * The only headers a flow set that may follow a redirect to another origin (scheme, host and
 * port). Everything else (Authorization, Cookie, Proxy-Authorization, X-Api-Key, any custom
 * token header) stays with the origin the flow addressed: an allow-list, because a deny-list
 * cannot know what a custom header carries. Lower case, as `Headers` yields names.
 */
export const CROSS_ORIGIN_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-language',
  'content-type',
  'idempotency-key',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'traceparent',
  'tracestate',
  'user-agent',
  'x-request-id',
]);

/** Describe the body (fetch's "request-body-header names"): meaningless once the body is gone. */
const BODY_HEADERS = ['content-type', 'content-language', 'content-encoding', 'content-location'];

/**
 * The request for the next hop after a `status` redirect to `target` (RFC 9110 §15.4, as
 * browsers do): 301/302/303 become GET without body or body headers, except HEAD; 307/308
 * keep method and body. The body is JSON text, so sending it again is safe.
 */
export function nextHop(previous: HttpRequest, status: number, target: URL): HttpRequest {
  const headers = new Headers(previous.headers);
  if (target.origin !== previous.url.origin) {
    // Collect first: deleting while iterating a Headers skips entries.
    const names = [...headers.keys()].filter((name) => !CROSS_ORIGIN_HEADERS.has(name));
    for (const name of names) headers.delete(name);
  }
  const toGet = (status === 301 || status === 302 || status === 303) && previous.method !== 'HEAD';
  if (!toGet) return { url: target, method: previous.method, headers, body: previous.body };
  for (const name of BODY_HEADERS) headers.delete(name);
  return { url: target, method: 'GET', headers, body: null };
}
