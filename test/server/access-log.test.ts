import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/util/logger.js';
import { startApi } from './support/api-harness.js';

interface Line {
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that keeps its `request` lines; `info` on or off as asked. */
function requestLines(info: boolean): { log: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const log: Logger = {
    debug: () => undefined,
    info: (fields, message) => {
      if (message === 'request') lines.push({ fields, message });
    },
    warn: () => undefined,
    error: () => undefined,
    child: () => log,
    isLevelEnabled: (level) => level !== 'info' || info,
  };
  return { log, lines };
}

describe('the access log', () => {
  it('writes one line per request at info: route template (never the path), status, time, request id, key and tenant', async () => {
    const { log, lines } = requestLines(true);
    const api = await startApi({ worker: false, app: { logger: log } });
    try {
      const missing = await api.fetch('/v1/executions/no-such-run', {
        headers: { 'x-request-id': 'req-42' },
      });
      expect(missing.status).toBe(404);
      // A signed link's token is in its path: the line names the route, not the token.
      await api.fetch('/v1/approval-links/secret-token-value', { token: null });
      const keyId = /^plt_([0-9a-f]+)_/.exec(api.adminToken)?.[1];
      expect(lines[0]?.fields).toMatchObject({
        requestId: 'req-42',
        method: 'GET',
        route: '/v1/executions/:id',
        status: 404,
        keyId,
        tenant: 'default',
      });
      expect(typeof lines[0]?.fields.ms).toBe('number');
      expect(lines).toHaveLength(2);
      expect(JSON.stringify(lines[1])).not.toContain('secret-token-value');
      expect(lines[1]?.fields).toMatchObject({
        keyId: null,
        status: expect.any(Number) as unknown,
      });
    } finally {
      await api.close();
    }
  });

  it('writes nothing when info is off (the default level)', async () => {
    const { log, lines } = requestLines(false);
    const api = await startApi({ worker: false, app: { logger: log } });
    try {
      expect((await api.fetch('/v1/executions')).status).toBe(200);
      expect(lines).toEqual([]);
    } finally {
      await api.close();
    }
  });
});
