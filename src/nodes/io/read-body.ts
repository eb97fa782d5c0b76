import { TextDecoder } from 'node:util';
import { readLimitedBody } from './read-limited-body.js';

/**
 * The response body as the node's result (docs/flow-format.md §3.16): parsed JSON when the text parses,
 * else the text. The text is decoded with the charset the response declares (Python clients
 * do the same), UTF-8 when it declares none or one we do not know. At most `limitBytes` are
 * read (ResponseTooLargeError beyond).
 */
export async function readBody(
  response: Response,
  request: { url: URL; method: string },
  limitBytes: number,
): Promise<unknown> {
  const bytes = await readLimitedBody(response, request, limitBytes);
  const text = decoderFor(response.headers.get('content-type')).decode(bytes);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function decoderFor(contentType: string | null): TextDecoder {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  if (charset) {
    try {
      return new TextDecoder(charset);
    } catch {
      // an unknown label: fall through to UTF-8
    }
  }
  return new TextDecoder('utf-8');
}
