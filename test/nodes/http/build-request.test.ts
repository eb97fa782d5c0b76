import { describe, expect, it } from 'vitest';
import { NodeError } from '../../../src/errors/flow-errors.js';
import {
  buildRequest,
  formEncode,
  percentEncodeInvisible,
  type RequestParts,
} from '../../../src/nodes/io/build-request.js';

function parts(overrides: Partial<RequestParts>): RequestParts {
  return {
    url: 'http://example.com/api',
    method: 'GET',
    contentType: 'application/json',
    headers: null,
    query: null,
    body: null,
    idempotencyKey: null,
    ...overrides,
  };
}

function buildError(overrides: Partial<RequestParts>): NodeError {
  try {
    buildRequest(parts(overrides));
  } catch (error) {
    expect(error).toBeInstanceOf(NodeError);
    return error as NodeError;
  }
  throw new Error('expected buildRequest to fail');
}

describe('buildRequest', () => {
  it('appends the form-encoded query after an existing one, display forms and + for space', () => {
    const request = buildRequest(
      parts({
        url: 'http://example.com/s?x=1#frag',
        query: {
          q: 'a b&c',
          n: 2,
          f: 0.5,
          t: true,
          z: null,
          list: [1, 'x'],
          obj: { a: 1 },
          'ü~*': '(é)',
        },
      }),
    );
    expect(request.url.href).toBe(
      'http://example.com/s?x=1&q=a+b%26c&n=2&f=0.5&t=true&z=null&list=%5B1%2C%22x%22%5D&obj=%7B%22a%22%3A1%7D&%C3%BC~%2A=%28%C3%A9%29#frag',
    );
  });

  it('ignores a query that is not an object', () => {
    expect(buildRequest(parts({ query: ['a'] })).url.href).toBe('http://example.com/api');
    expect(formEncode({})).toBe('');
  });

  it('formats a non-string url with its display form', () => {
    expect(() => buildRequest(parts({ url: 42 }))).toThrow('invalid URL "42"');
  });

  it('keeps only string header values; Content-Type is set but a user value replaces it', () => {
    const request = buildRequest(
      parts({ headers: { 'X-Str': 'yes', 'X-Num': 1, 'X-Null': null, 'X-Obj': { a: 1 } } }),
    );
    expect([...request.headers]).toEqual([
      ['content-type', 'application/json'],
      ['x-str', 'yes'],
    ]);
    const replaced = buildRequest(parts({ headers: { 'content-TYPE': 'text/plain' } }));
    expect(replaced.headers.get('Content-Type')).toBe('text/plain');
    expect(buildRequest(parts({ contentType: null })).headers.has('content-type')).toBe(false);
  });

  it('JSON-encodes the body whatever the content type', () => {
    expect(
      buildRequest(parts({ method: 'POST', contentType: 'text/plain', body: { a: [1, 'é'] } }))
        .body,
    ).toBe('{"a":[1,"é"]}');
    expect(buildRequest(parts({ method: 'POST', body: 'text' })).body).toBe('"text"');
    expect(buildRequest(parts({ method: 'POST', body: null })).body).toBeNull();
  });

  it('adds Idempotency-Key unless disabled or already supplied in any case', () => {
    expect(
      buildRequest(parts({ idempotencyKey: 'exec:n1:1' })).headers.get('idempotency-key'),
    ).toBe('exec:n1:1');
    expect(buildRequest(parts({})).headers.has('idempotency-key')).toBe(false);
    const own = buildRequest(
      parts({ idempotencyKey: 'exec:n1:1', headers: { 'IDEMPOTENCY-key': 'mine' } }),
    );
    expect(own.headers.get('idempotency-key')).toBe('mine');
  });

  it('percent-encodes non-visible ASCII in the key', () => {
    expect(percentEncodeInvisible('run 1:nœud/ü:2')).toBe('run%201:n%C5%93ud/%C3%BC:2');
    expect(percentEncodeInvisible('a\tb%c')).toBe('a%09b%c');
  });

  it('turns URL credentials into Basic auth', () => {
    const request = buildRequest(parts({ url: 'http://us%40er:p%3Ass@example.com/x' }));
    expect(request.url.href).toBe('http://example.com/x');
    expect(request.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`,
    );
  });

  it('fails with 1001 on an invalid URL, a bad scheme, a bad header or a method fetch cannot send', () => {
    expect(buildError({ url: 'not a url' })).toMatchObject({
      code: 1001,
      message: 'invalid URL "not a url"',
    });
    expect(buildError({ url: 'file:///etc/passwd' })).toMatchObject({
      code: 1001,
      message: expect.stringContaining('unsupported URL scheme "file"') as unknown,
    });
    expect(buildError({ headers: { 'bad name': 'x' } }).code).toBe(1001);
    expect(buildError({ headers: { 'X-A': 'line\nbreak' } }).code).toBe(1001);
    expect(buildError({ method: 'TRACE' }).code).toBe(1001);
  });
});
