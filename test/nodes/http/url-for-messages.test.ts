import { describe, expect, it } from 'vitest';
import { urlForMessages, urlTextForMessages } from '../../../src/nodes/io/url-for-messages.js';
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
    // Credentials too, with or without a query (an unsupported scheme is refused before they
    // are moved to a header).
    expect(urlForMessages(new URL('ftp://user:secret@files.example.com/x'))).toBe(
      'ftp://files.example.com/x',
    );
  });

  it('text that is not a URL is shown the same way, as well as it can be', () => {
    expect(urlTextForMessages('https://api.example.com:99999/x?api_key=SECRET&a=1#f')).toBe(
      'https://api.example.com:99999/x?api_key=…&a=…',
    );
    expect(urlTextForMessages('http://u:pw@[bad/x?t=1')).toBe('http://[bad/x?t=…');
    expect(urlTextForMessages('https://h.example/ok?t=SECRET')).toBe('https://h.example/ok?t=…');
    // Passwords with '@', '#', '?' or '/' in them: nothing of them is left.
    for (const text of [
      'https://user:p@ss@host:99999/x',
      'https://user:p#ss@host:99999/x',
      'https://user:p?ss@host:99999/x',
      'https://user:pa/ss@host:99999/x',
    ])
      expect(urlTextForMessages(text)).toBe('https://host:99999/x');
    // No scheme: what looks like one is the user name.
    expect(urlTextForMessages('user:secret@api.example.com/v1')).toBe('user:…');
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
