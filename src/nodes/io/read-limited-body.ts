import { urlForMessages } from './url-for-messages.js';

/** A response body larger than the node's cap; the node reports it as 1002 with this as cause. */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  readonly code = 'response_too_large';
  readonly retryable = false;
  readonly url: string;
  readonly limitBytes: number;

  constructor(url: URL, limitBytes: number, detail: string) {
    super(
      `response from ${urlForMessages(url)} exceeds maxResponseBytes (${limitBytes} bytes): ${detail}`,
    );
    this.url = urlForMessages(url);
    this.limitBytes = limitBytes;
  }
}

/** Statuses whose Content-Length describes a body that is never sent. */
const NO_BODY_STATUSES: ReadonlySet<number> = new Set([204, 304]);

/**
 * The body bytes, at most `limitBytes` of them. Refuses up front when an unencoded
 * Content-Length already says more, and otherwise counts while streaming, cancelling the
 * stream (and so the connection) the moment the count passes the cap: never buffers more.
 */
export async function readLimitedBody(
  response: Response,
  request: { url: URL; method: string },
  limitBytes: number,
): Promise<Uint8Array> {
  const declared = declaredLength(response, request.method);
  if (declared !== null && declared > limitBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new ResponseTooLargeError(request.url, limitBytes, `Content-Length is ${declared}`);
  }
  if (response.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Node's fetch types the body as ReadableStream<any>; it yields bytes.
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(
        request.url,
        limitBytes,
        `more than ${limitBytes} bytes received`,
      );
    }
    chunks.push(value);
  }
  return concat(chunks, total);
}

/**
 * Content-Length when it counts the bytes we will read: fetch decodes gzip/br/deflate, so an
 * encoded length says nothing about the decoded size (the stream count still applies).
 */
function declaredLength(response: Response, method: string): number | null {
  if (method === 'HEAD' || NO_BODY_STATUSES.has(response.status)) return null;
  const encoding = response.headers.get('content-encoding');
  if (encoding !== null && encoding.trim().toLowerCase() !== 'identity') return null;
  const text = response.headers.get('content-length');
  if (text === null || !/^\d+$/.test(text.trim())) return null;
  return Number(text.trim());
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
