import { request as httpRequest } from 'node:http';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAdmin } from '../backends/support/postgres-schema.js';
import {
  postgresGate,
  redisGate,
  REDIS_URL,
  POSTGRES_URL,
  uniqueName,
} from '../support/services.js';
import { cli } from '../cli/run-cli.js';
import { body } from './support/api-harness.js';
import { call, type PlaitaProcess, startServe, startWorker } from './support/serve-process.js';

/**
 * `plaita serve` as an operator runs it, driven over HTTP only (issue 9's walk): a key made with
 * the printed admin key, `examples/approval.json` saved and published, started, found waiting in
 * the approvals inbox, decided through a signed link without any key, and read back completed
 * with its node timeline — on the embedded default (SQLite + in-process worker), and on
 * PostgreSQL + Redis with a separate `plaita worker` process.
 */

const approval = JSON.parse(
  readFileSync(new URL('../../examples/approval.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

interface Page<T> {
  items: T[];
}

/** The JSON objects printed one after another (curl prints no newline after an answer). */
function topLevelObjects(text: string): Array<Record<string, unknown>> {
  const objects: Array<Record<string, unknown>> = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{' && depth++ === 0) start = i;
    else if (ch === '}' && depth > 0 && --depth === 0)
      objects.push(JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>);
  }
  return objects;
}

async function approvalWalk(base: string, adminKey: string): Promise<void> {
  // An operator key, made with the admin key; the admin publishes, the operator starts.
  const created = await call(base, '/v1/api-keys', adminKey, {
    json: { name: 'ops', role: 'admin' },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const { token } = await body<{ token: string }>(created);

  const put = await call(base, '/v1/flows/expense_approval/versions/1.0.0', token, {
    method: 'PUT',
    json: approval,
  });
  expect(put.status, await put.clone().text()).toBe(201);
  const published = await call(base, '/v1/flows/expense_approval/versions/1.0.0/publish', token, {
    method: 'POST',
  });
  expect(published.status, await published.clone().text()).toBe(200);

  const started = await call(base, '/v1/executions', token, {
    json: {
      flowId: 'expense_approval',
      input: {
        id: 'EXP-9',
        requester: 'Bob',
        amount: 42,
        reason: 'books',
        approvers: ['ann@x.io'],
      },
    },
  });
  expect(started.status, await started.clone().text()).toBe(201);
  const { executionId } = await body<{ executionId: string }>(started);

  await expect
    .poll(
      async () =>
        (await body<Page<{ executionId: string }>>(await call(base, '/v1/approvals', token))).items
          .map((a) => a.executionId)
          .includes(executionId),
      { timeout: 15_000, interval: 100 },
    )
    .toBe(true);

  const links = await body<{ approveUrl: string }>(
    await call(base, `/v1/approvals/${executionId}/approve/links`, token, {
      json: { approver: 'ann@x.io' },
    }),
  );
  // The link is the credential: no key on this request.
  const decided = await fetch(links.approveUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'comment=fine',
  });
  expect(decided.status, await decided.clone().text()).toBe(200);

  await expect
    .poll(
      async () =>
        (await body<{ status: string }>(await call(base, `/v1/executions/${executionId}`, token)))
          .status,
      { timeout: 15_000, interval: 100 },
    )
    .toBe('completed');
  const view = await body<{ result: unknown; nodes: Array<{ nodeId: string; status: string }> }>(
    await call(base, `/v1/executions/${executionId}`, token),
  );
  expect(view.result).toEqual({ status: 'approved', expense: 'EXP-9', decidedBy: 'ann@x.io' });
  // The timeline: every node that ran, in order, `start` (run with the first step) included.
  expect(view.nodes.map((n) => n.nodeId)).toEqual([
    'start',
    'prepare',
    'approve',
    'decide',
    'approved',
  ]);
  expect(view.nodes[0]).toMatchObject({ status: 'done', durationMs: 0, attempts: 1 });
}

describe('plaita serve, embedded default (SQLite + in-process worker)', () => {
  let cwd: string;
  let server: PlaitaProcess;
  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'plaita-serve-'));
    server = await startServe([], {
      cwd,
      env: {
        PLAITA_TEST_SECRET: 'server-only',
        APP_GREETING: 'hello',
        HOST_CLOUD_SECRET: 'host-only',
        PLAITA_FLOW_ENV: 'APP_*,PLAITA_*',
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('prints the admin key once and serves /, /docs and /v1', async () => {
    expect(server.adminKey).toMatch(/^plt_/);
    expect((await call(server.url, '/docs', null)).status).toBe(200);
    expect((await call(server.url, '/healthz', null)).status).toBe(200);
    expect((await call(server.url, '/v1/executions', null)).status).toBe(401);
    expect((await call(server.url, '/v1/executions', server.adminKey)).status).toBe(200);
  });

  it('the approval walk over HTTP', async () => {
    await approvalWalk(server.url, server.adminKey!);
  });

  it('an inline start cannot make the server call its own loopback (the SSRF guard is on)', async () => {
    const started = await call(server.url, '/v1/executions?wait=10s', server.adminKey, {
      json: {
        flow: {
          flow_id: 'ssrf',
          nodes: [
            { type: 'start', id: 's', next: 'call' },
            { type: 'http', id: 'call', url: `${server.url}/healthz`, method: 'GET', next: 'e' },
            { type: 'end', id: 'e', output: '$NODE.call' },
          ],
        },
      },
    });
    const view = await body<{ status: string; error: { nodeId: string; message: string } }>(
      started,
    );
    expect(view.status).toBe('error');
    expect(view.error.nodeId).toBe('call');
    expect(view.error.message).toMatch(/private|special|127\.0\.0\.1|loopback/);
  });

  it("a flow's exposeEnv reads only what PLAITA_FLOW_ENV allows, never PLAITA_* settings", async () => {
    const started = await call(server.url, '/v1/executions?wait=10s', server.adminKey, {
      json: {
        flow: {
          flow_id: 'env',
          exposeEnv: ['PLAITA_TEST_SECRET', 'APP_GREETING', 'HOST_CLOUD_SECRET'],
          nodes: [
            { type: 'start', id: 's', next: 'e' },
            { type: 'end', id: 'e', output: '$ENV' },
          ],
        },
      },
    });
    const view = await body<{ status: string; result: unknown }>(started);
    expect(view.status).toBe('completed');
    expect(view.result).toEqual({ APP_GREETING: 'hello' });
  });

  it('plaita keys makes, lists and revokes keys of the running server, audited; elsewhere it refuses', async () => {
    const made = cli(['keys', 'create', '--name', 'ci', '--role', 'viewer', '--json'], { cwd });
    expect(made.code, made.stderr).toBe(0);
    const { key, token } = JSON.parse(made.stdout) as { key: { id: string }; token: string };
    expect((await call(server.url, '/v1/executions', token)).status).toBe(200);
    const listed = JSON.parse(cli(['keys', 'list', '--json'], { cwd }).stdout) as {
      items: Array<{ id: string }>;
    };
    expect(listed.items.map((k) => k.id)).toContain(key.id);
    expect(cli(['keys', 'revoke', key.id], { cwd }).code).toBe(0);
    await expect
      .poll(async () => (await call(server.url, '/v1/executions', token)).status, {
        timeout: 10_000,
      })
      .toBe(401);
    const audit = await body<{ items: Array<{ action: string; target: string; role: string }> }>(
      await call(server.url, '/v1/audit', server.adminKey),
    );
    for (const action of ['api_key.create', 'api_key.revoke'])
      expect(audit.items).toContainEqual(
        expect.objectContaining({ action, target: key.id, role: 'cli' }),
      );
    // Where no server keeps its store, a key would open nothing: refused, and no store is made.
    const elsewhere = mkdtempSync(join(tmpdir(), 'plaita-keys-'));
    try {
      const refused = cli(['keys', 'create', '--name', 'x', '--role', 'viewer'], {
        cwd: elsewhere,
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('no store at');
      expect(existsSync(join(elsewhere, '.plaita'))).toBe(false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("the CLI's writes beside the running server (start, cancel) are in its audit log, role cli", async () => {
    const approvalFile = fileURLToPath(new URL('../../examples/approval.json', import.meta.url));
    const input = JSON.stringify({
      id: 'EXP-CLI',
      requester: 'Bob',
      amount: 5,
      reason: 'audit',
      approvers: ['ann@example.com'],
    });
    const started = cli(['start', approvalFile, '--input', input, '--json'], { cwd });
    expect(started.code, started.stderr).toBe(0);
    const { executionId } = JSON.parse(started.stdout) as { executionId: string };
    const cancelled = cli(['cancel', executionId, '--reason', 'not needed'], { cwd });
    expect(cancelled.code, cancelled.stderr).toBe(0);
    const audit = await body<{ items: Array<{ action: string; target: string; role: string }> }>(
      await call(server.url, '/v1/audit', server.adminKey),
    );
    for (const action of ['execution.start', 'execution.cancel'])
      expect(audit.items).toContainEqual(
        expect.objectContaining({ action, target: executionId, role: 'cli' }),
      );
  });

  it('a second start on the same store prints no key and keeps the first one valid', async () => {
    const firstKey = server.adminKey;
    expect(await server.stop()).toBe(0);
    // A drain can take the worker's drain time: the terminal is told it is stopping, and when done.
    expect(server.output()).toMatch(/plaita: stopping \(SIGTERM\): no new requests/);
    expect(server.output()).toContain('plaita: stopped');
    server = await startServe([], { cwd });
    expect(server.adminKey).toBeNull();
    expect(server.output()).not.toMatch(/plt_/);
    expect((await call(server.url, '/v1/executions', firstKey)).status).toBe(200);
  });

  it('serves without prom-client, an optional peer: /metrics is absent (404), the rest works', async () => {
    const hidePeers = fileURLToPath(new URL('../support/hide-optional-peers.mjs', import.meta.url));
    const dir = mkdtempSync(join(tmpdir(), 'plaita-serve-nometrics-'));
    const bare = await startServe(['--store', 'memory'], {
      cwd: dir,
      env: { HIDE_PEERS: 'prom-client', NODE_OPTIONS: `--import ${hidePeers}` },
    });
    try {
      const metrics = await call(bare.url, '/metrics', bare.adminKey);
      expect(metrics.status).toBe(404);
      expect(await body(metrics)).toMatchObject({ detail: 'this server exports no metrics' });
      expect((await call(bare.url, '/v1/executions', bare.adminKey)).status).toBe(200);
    } finally {
      await bare.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a drain that runs out cuts off what is under way, says so, and exits at once, even past a node that ignores its signal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaita-serve-drain-'));
    // A plugin node that never looks at its AbortSignal: it would hold the process for a minute.
    writeFileSync(
      join(dir, 'stubborn.mjs'),
      "export const nodes = [{ type: 'stubborn', run: () => new Promise((resolve) => setTimeout(() => resolve('late'), 60_000)) }];\n",
    );
    const busy = await startServe(['--nodes', './stubborn.mjs', '--drain-timeout-ms', '1000'], {
      cwd: dir,
    });
    try {
      const started = await call(busy.url, '/v1/executions', busy.adminKey, {
        json: {
          flow: {
            nodes: [
              { type: 'start', id: 'start', next: 'hold' },
              { type: 'stubborn', id: 'hold', next: 'end' },
              { type: 'end', id: 'end' },
            ],
          },
        },
      });
      expect(started.status, await started.clone().text()).toBe(201);
      const { executionId } = await body<{ executionId: string }>(started);
      for (let i = 0; i < 100; i++) {
        const view = await body<{ status: string }>(
          await call(busy.url, `/v1/executions/${executionId}`, busy.adminKey),
        );
        if (view.status === 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const asked = Date.now();
      // stop() sends SIGTERM, and SIGKILL after 10 s: a clean 0 means the process left by itself.
      expect(await busy.stop()).toBe(0);
      expect(Date.now() - asked).toBeLessThan(8_000);
      expect(busy.output()).toContain('and 1 execution (up to 1 s)');
      expect(busy.output()).toMatch(
        /plaita: stopped \(1 execution cut off at the drain time: redelivered after the visibility timeout\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the README's curl walk works as written, from the repository root", async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const walk = /The approval walk with curl[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(walk).toContain('curl');
    expect(readme).toMatch(/The approval walk with curl[^#]*?from the repository root/);
    // The signed link is part of the walk, for an execution the walk has not decided already.
    const linkFor = /\/v1\/approvals\/([\w-]+)\/approve\/links/.exec(walk!)?.[1];
    expect(linkFor, 'the walk makes a signed link').toBeDefined();
    expect(walk).not.toContain(`/v1/approvals/${linkFor}/approve/decisions`);
    // A fresh server: the walk starts from an empty store, as a reader's does.
    const fresh = mkdtempSync(join(tmpdir(), 'plaita-readme-'));
    const readmeServer = await startServe([], { cwd: fresh });
    try {
      // Every answer must be a success: curl -s alone would print a 409 problem and go on.
      const strict = `curl() { command curl --fail-with-body "$@"; }\n${walk!}`;
      const out = execFileSync('bash', ['-euo', 'pipefail', '-c', strict], {
        cwd: new URL('../../', import.meta.url).pathname,
        env: { ...process.env, P: readmeServer.url, KEY: readmeServer.adminKey! },
        encoding: 'utf8',
        timeout: 30_000,
      });
      const views = topLevelObjects(out).filter(
        (value): value is { executionId: string; status: string } =>
          'executionId' in value && 'nodes' in value,
      );
      expect(views.at(-1)).toMatchObject({
        executionId: linkFor,
        status: 'completed',
        result: { status: 'approved', decidedBy: 'alice@example.com' },
      });
      expect(
        views.find((v) => v.executionId === 'exp-7' && v.status === 'completed'),
      ).toMatchObject({
        result: { status: 'approved', expense: 'EXP-7', decidedBy: 'alice@example.com' },
      });
      // The README's keys, made as it says (beside the server's store), for the tenants it says.
      const keys = /More keys[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
      const lines = keys.split('\n').filter((line) => line.startsWith('npx plaita keys create'));
      expect(lines).toHaveLength(3);
      for (const line of lines) {
        const made = execFileSync(
          'bash',
          ['-euo', 'pipefail', '-c', `npx() { shift; node "$CLI" "$@"; }\n${line}`],
          {
            cwd: fresh,
            // As a reader's shell: no tenant chosen by the environment.
            env: {
              ...Object.fromEntries(
                Object.entries(process.env).filter(([name]) => !name.endsWith('_TENANT')),
              ),
              CLI: fileURLToPath(new URL('../../dist/cli.js', import.meta.url)),
            },
            encoding: 'utf8',
          },
        );
        const tenant = /, tenant ([^;]+);/.exec(made)?.[1];
        const said = line.includes('# a platform key') ? '*' : /# tenant "([^"]+)"/.exec(line)?.[1];
        expect(tenant, line).toBe(said);
      }
    } finally {
      await readmeServer.stop();
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('--no-auth answers only loopback host names, and refuses a foreign page’s writes', async () => {
    const open = await startServe(['--no-auth'], {
      cwd: mkdtempSync(join(tmpdir(), 'plaita-na-')),
    });
    const port = Number(new URL(open.url).port);
    const send = (method: string, path: string, headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.once('error', reject);
        req.end();
      });
    try {
      expect(await send('GET', '/v1/executions', { host: `127.0.0.1:${port}` })).toBe(200);
      expect(await send('GET', '/v1/executions', { host: `localhost:${port}` })).toBe(200);
      // A page whose name was rebound to 127.0.0.1 (DNS rebinding): refused.
      expect(await send('GET', '/v1/executions', { host: `rebind.evil.example:${port}` })).toBe(
        403,
      );
      // A foreign page's body-less write (no preflight needed): refused; curl's (no Origin) is not.
      const cancel = '/v1/executions/nope/cancel';
      const local = { host: `127.0.0.1:${port}` };
      expect(await send('POST', cancel, { ...local, origin: 'http://evil.example' })).toBe(403);
      expect(await send('POST', cancel, { ...local, origin: 'null' })).toBe(403);
      expect(await send('POST', cancel, local)).toBe(404);
    } finally {
      await open.stop();
    }
  });

  it('--no-auth is refused off loopback', async () => {
    await expect(startServe(['--no-auth', '--host', '0.0.0.0'], { cwd })).rejects.toThrow(
      /exited before serving[\s\S]*loopback/,
    );
  });
});

const pg = await postgresGate();
const redis = await redisGate();
const gate = pg.available ? redis : pg;

gate.describe('plaita serve on PostgreSQL + Redis, with a separate plaita worker', () => {
  const database = uniqueName('plaita_serve')
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_');
  const storeUrl = (() => {
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${database}`;
    return url.toString();
  })();
  const queue = `${uniqueName('serve')}:tasks`;
  const common = ['--store', storeUrl, '--redis-url', REDIS_URL, '--queue', queue];
  let cwd: string;
  let server: PlaitaProcess | undefined;
  let worker: PlaitaProcess | undefined;

  beforeAll(async () => {
    await withAdmin((client) => client.query(`CREATE DATABASE "${database}"`));
    cwd = mkdtempSync(join(tmpdir(), 'plaita-serve-pg-'));
    server = await startServe(common, { cwd });
    worker = await startWorker(common, { cwd });
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await server?.stop();
    await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
    rmSync(cwd, { recursive: true, force: true });
  }, 60_000);

  it('the approval walk over HTTP, the step run by the worker process', async () => {
    expect(server!.adminKey).toMatch(/^plt_/);
    await approvalWalk(server!.url, server!.adminKey!);
    // The server has no worker of its own: the worker process ran the steps.
    expect(server!.output()).not.toContain('"worker":16');
  });
});

// Needs only the redis-server binary (it starts its own), not PostgreSQL.
redis.describe('plaita serve when its Redis goes away', () => {
  it('answers 503 service_unavailable (no hang), then recovers', async () => {
    const { startRedisServer } = await import('../support/redis-server.js');
    const redisServer = await startRedisServer({ persistence: 'aof' });
    const cwd = mkdtempSync(join(tmpdir(), 'plaita-serve-redis-'));
    const server = await startServe(
      ['--store', redisServer.url, '--redis-url', redisServer.url, '--with-worker', '2'],
      { cwd },
    );
    try {
      const key = server.adminKey!;
      const list = () =>
        call(server.url, '/v1/executions', key, { headers: {} }).then(async (res) => ({
          status: res.status,
          body: await res.text(),
        }));
      expect((await list()).status).toBe(200);
      await redisServer.kill();
      // The request ends with a typed problem (never a hang: fetch would time out the test).
      const down = await list();
      expect(down.status, down.body).toBe(503);
      expect(JSON.parse(down.body)).toMatchObject({ code: 'service_unavailable' });
      expect((await call(server.url, '/readyz', null)).status).toBe(503);
      await redisServer.restart();
      await expect.poll(async () => (await list()).status, { timeout: 20_000 }).toBe(200);
      // What was stored before the outage is still there (the admin key authenticates).
      expect((await call(server.url, '/readyz', null)).status).toBe(200);
    } finally {
      await server.stop();
      await redisServer.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);
});
