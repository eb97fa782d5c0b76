import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PinnedAgent } from '../../../src/nodes/io/pinned-agent.js';
import { TestServer, sendJson } from './test-server.js';

/** `.invalid` never resolves (RFC 6761): reaching the server proves the pin was used. */
const UNRESOLVABLE = 'pinned.invalid';

function fetchVia(agent: PinnedAgent, url: string): Promise<Response> {
  return fetch(url, {
    dispatcher: agent.dispatcher as unknown as NonNullable<RequestInit['dispatcher']>,
  });
}

describe('PinnedAgent over plain HTTP', () => {
  let server: TestServer;
  const agents: PinnedAgent[] = [];
  beforeAll(async () => {
    server = await TestServer.start();
    server.route('/who', (req, res) => sendJson(res, 200, { host: req.headers.host }));
  });
  afterAll(() => server.close());
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.destroy()));
  });

  it('connects a host name to its pinned address without a DNS lookup', async () => {
    const agent = new PinnedAgent();
    agents.push(agent);
    agent.pin(UNRESOLVABLE.toUpperCase(), [{ address: '127.0.0.1', family: 4 }]);
    const response = await fetchVia(agent, server.url('/who', UNRESOLVABLE));
    expect(await response.json()).toEqual({ host: `${UNRESOLVABLE}:${server.port}` });
  });

  it('refuses a host that was never pinned instead of resolving it', async () => {
    const agent = new PinnedAgent();
    agents.push(agent);
    const before = server.requests.length;
    const failure = await fetchVia(agent, server.url('/who', 'localhost')).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect(String((failure as Error).cause)).toContain('no checked address for host "localhost"');
    expect(server.requests).toHaveLength(before);
  });
});

/** The certificate is made with openssl; without it the suite skips locally and fails in CI. */
const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasOpenssl && process.env.CI !== 'true')(
  'PinnedAgent over TLS (needs openssl)',
  () => {
    const NAME = 'pinned.test';
    let dir = '';
    let ca = '';
    let port = 0;
    let sni: string | false | null | undefined;
    let close: () => Promise<void> = () => Promise.resolve();

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'plaita-tls-'));
      const key = join(dir, 'key.pem');
      const cert = join(dir, 'cert.pem');
      // A throwaway self-signed certificate for NAME only, made per run: no key in the repository.
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-days',
          '2',
          '-subj',
          `/CN=${NAME}`,
          '-addext',
          `subjectAltName=DNS:${NAME}`,
          '-keyout',
          key,
          '-out',
          cert,
        ],
        { stdio: 'ignore' },
      );
      ca = readFileSync(cert, 'utf8');
      const server = createHttpsServer({ key: readFileSync(key), cert: ca }, (req, res) => {
        sni = (req.socket as TLSSocket).servername;
        res.end('secure');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
      close = () => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(() => resolve()));
      };
    });
    afterAll(async () => {
      await close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('sends the host name as SNI and verifies the certificate against it', async () => {
      const agent = new PinnedAgent({ ca });
      agent.pin(NAME, [{ address: '127.0.0.1', family: 4 }]);
      try {
        const response = await fetchVia(agent, `https://${NAME}:${port}/`);
        expect(await response.text()).toBe('secure');
        expect(sni).toBe(NAME);
      } finally {
        await agent.destroy();
      }
    });

    it('rejects the certificate when the name does not match it', async () => {
      const agent = new PinnedAgent({ ca });
      agent.pin('other.test', [{ address: '127.0.0.1', family: 4 }]);
      try {
        const failure = await fetchVia(agent, `https://other.test:${port}/`).catch(
          (e: unknown) => e,
        );
        expect(String((failure as Error).cause)).toMatch(/altnames|ERR_TLS_CERT_ALTNAME_INVALID/);
      } finally {
        await agent.destroy();
      }
    });
  },
);
