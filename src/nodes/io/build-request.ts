import { displayForm } from '../../expression/values.js';
import { NodeError } from '../../errors/flow-errors.js';
import { HttpErrorCode } from './http-error-codes.js';
import { urlForMessages, urlTextForMessages } from './url-for-messages.js';

export const HTTP_METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'CONNECT',
  'OPTIONS',
  'TRACE',
] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Methods the WHATWG fetch refuses to send at all. */
export const FETCH_FORBIDDEN_METHODS: ReadonlySet<HttpMethod> = new Set(['CONNECT', 'TRACE']);

/** The evaluated inputs of one request (docs/flow-format.md §3.16). */
export interface RequestParts {
  url: unknown;
  method: HttpMethod;
  contentType: string | null;
  headers: unknown;
  query: unknown;
  body: unknown;
  /** The `Idempotency-Key` value, or null when the header is disabled. */
  idempotencyKey: string | null;
}

/** A request ready to send: the first hop of the exchange. */
export interface HttpRequest {
  url: URL;
  method: HttpMethod;
  headers: Headers;
  /** JSON text, or null for no body: a string, so a 307/308 hop can send it again. */
  body: string | null;
}

/** Throws NodeError 1001 when the request cannot be built. */
export function buildRequest(parts: RequestParts): HttpRequest {
  if (FETCH_FORBIDDEN_METHODS.has(parts.method))
    notBuilt(`${parts.method} requests cannot be sent by this runtime's HTTP client`);
  const url = parseUrl(displayForm(parts.url));
  appendQuery(url, parts.query);
  const headers = buildHeaders(parts);
  moveCredentials(url, headers);
  if (parts.idempotencyKey !== null && !headers.has('idempotency-key')) {
    headers.set('Idempotency-Key', percentEncodeInvisible(parts.idempotencyKey));
  }
  const body = parts.body === null || parts.body === undefined ? null : JSON.stringify(parts.body);
  return { url, method: parts.method, headers, body };
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return notBuilt(`invalid URL "${urlTextForMessages(text)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    notBuilt(
      `unsupported URL scheme "${url.protocol.slice(0, -1)}" in "${urlForMessages(url)}": expected http or https`,
    );
  return url;
}

/** Appended after any query the URL already has; non-objects are ignored, as in the original. */
function appendQuery(url: URL, query: unknown): void {
  if (!isPlainObject(query)) return;
  const encoded = formEncode(query);
  if (encoded === '') return;
  const existing = url.search.slice(1);
  url.search = existing === '' ? encoded : `${existing}&${encoded}`;
}

/** application/x-www-form-urlencoded with §5.6 display forms, space as `+`. */
export function formEncode(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .map(([key, value]) => `${encodeFormComponent(key)}=${encodeFormComponent(displayForm(value))}`)
    .join('&');
}

/** Python's `quote_plus`: letters, digits and `_.-~` stay, space is `+`, other UTF-8 bytes `%XX`. */
function encodeFormComponent(text: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(text)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.~-]/.test(c) ? c : byte === 0x20 ? '+' : percentByte(byte);
  }
  return out;
}

/** Content-Type first, so a user-supplied `content-type` (any case) replaces it. */
function buildHeaders(parts: RequestParts): Headers {
  const headers = new Headers();
  if (parts.contentType) setHeader(headers, 'Content-Type', parts.contentType);
  if (!isPlainObject(parts.headers)) return headers;
  for (const [name, value] of Object.entries(parts.headers)) {
    if (typeof value !== 'string') continue; // only string values become headers
    setHeader(headers, name, value);
  }
  return headers;
}

/** A name or value the header API refuses (CR, LF, NUL, past U+00FF) is error 1001, named. */
function setHeader(headers: Headers, name: string, value: string): void {
  try {
    headers.set(name, value);
  } catch (error) {
    notBuilt(
      `invalid header ${JSON.stringify(name)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** `http://user:pass@host` becomes Basic auth, as Python clients do; fetch refuses such URLs. */
function moveCredentials(url: URL, headers: Headers): void {
  if (url.username === '' && url.password === '') return;
  if (!headers.has('authorization')) {
    const credentials = `${safeDecode(url.username)}:${safeDecode(url.password)}`;
    headers.set('Authorization', `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`);
  }
  url.username = '';
  url.password = '';
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Header values must be visible ASCII: other bytes of the UTF-8 form become `%XX`. */
export function percentEncodeInvisible(text: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(text)) {
    out += byte >= 0x21 && byte <= 0x7e ? String.fromCharCode(byte) : percentByte(byte);
  }
  return out;
}

function percentByte(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function notBuilt(message: string): never {
  throw new NodeError(HttpErrorCode.requestNotBuilt, message);
}
