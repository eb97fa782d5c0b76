import { describe, expect, it } from 'vitest';
import { urlForMessages } from '../../../src/nodes/io/url-for-messages.js';
import { runFlow } from '../../../src/index.js';

describe('a URL in an error message', () => {
  it("keeps the origin, the path and the query's names, never its values or the fragment", () => {
    expect(urlForMessages(new URL('https://api.example.com:8443/v1/items'))).toBe(
      'https://api.example.com:8443/v1/items',
    );
    expect(
      urlForMessages(new URL('https://api.example.com/v1/items?api_key=s3cret&page=2&page=3#x')),
    ).toBe('https://api.example.com/v1/items?api_key=…&page=…');
    expect(urlForMessages(new URL('http://h/p?#frag'))).toBe('http://h/p');
  });

  it("an http node that cannot reach its URL fails without the token of the URL's query", async () => {
    const flow = {
      nodes: [
        { type: 'start', id: 'start', next: 'call' },
        {
          type: 'http',
          id: 'call',
          // Port 9 (discard) on loopback: refused by the host policy or by the host.
          url: 'http://127.0.0.1:9/hook?token=SECRET_IN_URL',
          method: 'GET',
          next: 'end',
        },
        { type: 'end', id: 'end' },
      ],
    };
    const failed = await runFlow(flow, {}).then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(failed).not.toBeNull();
    expect(failed!.message).toContain('http://127.0.0.1:9/hook?token=…');
    expect(JSON.stringify(failed, Object.getOwnPropertyNames(failed))).not.toContain(
      'SECRET_IN_URL',
    );
  });
});
