import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BulkRunner } from '../../src/control/bulk/bulk-runner.js';
import { silentLogger } from '../../src/util/logger.js';
import { BACKENDS, describeOn } from './support/api-backends.js';
import { type ApiHarness, body, startApi } from './support/api-harness.js';
import { eventually } from './support/eventually.js';

/**
 * docs/http-api.md §2 on every store: a key bound to tenant T sees only T — another tenant's execution,
 * approval, flow, schedule, bulk operation, dead letter, key or audit entry is 404 (never 403)
 * and never in a list; a platform key acts for the tenant named by X-Plaita-Tenant, which a
 * tenant key cannot use to reach out. Every route of /openapi.json that takes an id or lists is
 * in the table below, or named in EXCLUDED with the reason.
 */

const readExample = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
const approvalFlow = readExample('approval.json');
const echoFlow = readExample('echo.json');
const approvalInput = {
  id: 'EXP-1',
  requester: 'Bob',
  amount: 10,
  reason: 'isolation',
  approvers: ['ann@example.com'],
};
/** The tenant's published flow: `iso` (its id and version come from the path). */
const isoFlow = {
  nodes: [
    { type: 'start', id: 'start', next: 'end' },
    { type: 'end', id: 'end', output: 'iso {% $INPUT.name %}' },
  ],
};

/** Who calls: the owner (tenant alice), bob (another tenant, with and without the header), the platform acting for alice. */
type Caller = 'other' | 'otherWithHeader' | 'own' | 'platform';
const CALLERS: readonly Caller[] = ['other', 'otherWithHeader', 'own', 'platform'];

interface Fixtures {
  flowId: string;
  /** Waiting at an approval: the reads. */
  waiting: string;
  waitingEvents: string;
  cancel: Record<'own' | 'platform', string>;
  completed: string;
  remove: Record<'own' | 'platform', string>;
  /** Drafts of `iso`: deleted and published by own / platform. */
  draftDelete: Record<'own' | 'platform', string>;
  draftPublish: Record<'own' | 'platform', string>;
  schedule: string;
  scheduleDelete: Record<'own' | 'platform', string>;
  bulk: string;
  deadLetter: Record<'own' | 'platform', { id: string; executionId: string }>;
  aliceKeyId: string;
  spareKey: Record<'own' | 'platform', string>;
}

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  json?: unknown;
}

interface Row {
  /** `METHOD /path` exactly as /openapi.json names it. */
  route: string;
  call(f: Fixtures, who: 'own' | 'platform'): Call;
  /** Status for the owner and the platform key; the other tenant gets 404. */
  ok: number;
  /** A list: the page shows the owner's fixture (the other tenant's page must not). */
  shows?(page: Record<string, unknown>, f: Fixtures): boolean;
}

type Page = { items: Array<Record<string, unknown>> };
const items = (page: Record<string, unknown>) => (page as Page).items;

const ROWS: Row[] = [
  {
    route: 'GET /v1/executions',
    call: () => ({ method: 'GET', path: '/v1/executions?limit=500' }),
    ok: 200,
    shows: (page, f) => items(page).some((i) => i.executionId === f.waiting),
  },
  {
    route: 'GET /v1/executions/{id}',
    call: (f) => ({ method: 'GET', path: `/v1/executions/${f.waiting}` }),
    ok: 200,
  },
  {
    route: 'GET /v1/executions/{id}/flow',
    call: (f) => ({ method: 'GET', path: `/v1/executions/${f.waiting}/flow` }),
    ok: 200,
  },
  {
    route: 'POST /v1/executions/{id}/stream-tickets',
    call: (f) => ({ method: 'POST', path: `/v1/executions/${f.waiting}/stream-tickets` }),
    ok: 201,
  },
  {
    route: 'GET /v1/executions/{id}/stream',
    call: (f) => ({ method: 'GET', path: `/v1/executions/${f.waiting}/stream` }),
    ok: 200,
  },
  {
    route: 'POST /v1/executions/{id}/events',
    call: (f) => ({
      method: 'POST',
      path: `/v1/executions/${f.waitingEvents}/events`,
      json: { type: 'ping', data: { n: 1 } },
    }),
    ok: 202,
  },
  {
    route: 'POST /v1/executions/{id}/cancel',
    call: (f, who) => ({ method: 'POST', path: `/v1/executions/${f.cancel[who]}/cancel` }),
    ok: 202,
  },
  {
    route: 'POST /v1/executions/{id}/retry',
    // Completed, not failed: the owner is told 409, which proves it sees the execution.
    call: (f) => ({ method: 'POST', path: `/v1/executions/${f.completed}/retry` }),
    ok: 409,
  },
  {
    route: 'POST /v1/executions/{id}/replay',
    call: (f) => ({
      method: 'POST',
      path: `/v1/executions/${f.completed}/replay`,
      json: { input: { name: 'again' } },
    }),
    ok: 201,
  },
  {
    route: 'POST /v1/executions/{id}/rerun',
    call: (f) => ({
      method: 'POST',
      path: `/v1/executions/${f.completed}/rerun`,
      json: { fromNode: 'end' },
    }),
    ok: 201,
  },
  {
    route: 'DELETE /v1/executions/{id}',
    call: (f, who) => ({ method: 'DELETE', path: `/v1/executions/${f.remove[who]}` }),
    ok: 204,
  },
  {
    route: 'POST /v1/executions',
    call: (f) => ({ method: 'POST', path: '/v1/executions', json: { flowId: f.flowId } }),
    ok: 201,
  },
  {
    route: 'GET /v1/approvals',
    call: () => ({ method: 'GET', path: '/v1/approvals?limit=500' }),
    ok: 200,
    shows: (page, f) => items(page).some((i) => i.executionId === f.waiting),
  },
  {
    route: 'POST /v1/approvals/{executionId}/{nodeId}/links',
    call: (f) => ({
      method: 'POST',
      path: `/v1/approvals/${f.waiting}/approve/links`,
      json: { approver: 'ann@example.com' },
    }),
    ok: 201,
  },
  {
    route: 'POST /v1/approvals/{executionId}/{nodeId}/decisions',
    // Not on the approver list: the owner is told 403 for the approver, the other tenant 404.
    call: (f) => ({
      method: 'POST',
      path: `/v1/approvals/${f.waiting}/approve/decisions`,
      json: { approver: 'mallory@example.com', decision: 'approve' },
    }),
    ok: 403,
  },
  {
    route: 'GET /v1/flows',
    call: () => ({ method: 'GET', path: '/v1/flows?limit=500' }),
    ok: 200,
    shows: (page, f) => items(page).some((i) => i.flowId === f.flowId),
  },
  {
    route: 'GET /v1/flows/{flowId}',
    call: (f) => ({ method: 'GET', path: `/v1/flows/${f.flowId}` }),
    ok: 200,
  },
  {
    route: 'GET /v1/flows/{flowId}/versions/{version}',
    call: (f) => ({ method: 'GET', path: `/v1/flows/${f.flowId}/versions/1` }),
    ok: 200,
  },
  {
    route: 'DELETE /v1/flows/{flowId}/versions/{version}',
    call: (f, who) => ({
      method: 'DELETE',
      path: `/v1/flows/${f.flowId}/versions/${f.draftDelete[who]}`,
    }),
    ok: 204,
  },
  {
    route: 'POST /v1/flows/{flowId}/versions/{version}/publish',
    call: (f, who) => ({
      method: 'POST',
      path: `/v1/flows/${f.flowId}/versions/${f.draftPublish[who]}/publish`,
    }),
    ok: 200,
  },
  {
    route: 'POST /v1/flows/dry-run',
    call: (f) => ({
      method: 'POST',
      path: '/v1/flows/dry-run',
      json: { flowId: f.flowId, version: '1', input: { name: 'x' } },
    }),
    ok: 200,
  },
  {
    route: 'GET /v1/schedules',
    call: () => ({ method: 'GET', path: '/v1/schedules?limit=500' }),
    ok: 200,
    shows: (page, f) => items(page).some((i) => i.id === f.schedule),
  },
  {
    route: 'POST /v1/schedules',
    call: (f) => ({
      method: 'POST',
      path: '/v1/schedules',
      json: { flowId: f.flowId, cron: '0 0 1 1 *', enabled: false },
    }),
    ok: 201,
  },
  {
    route: 'GET /v1/schedules/{id}',
    call: (f) => ({ method: 'GET', path: `/v1/schedules/${f.schedule}` }),
    ok: 200,
  },
  {
    route: 'PATCH /v1/schedules/{id}',
    call: (f) => ({
      method: 'PATCH',
      path: `/v1/schedules/${f.schedule}`,
      json: { input: { name: 'patched' } },
    }),
    ok: 200,
  },
  {
    route: 'POST /v1/schedules/{id}/trigger',
    call: (f) => ({ method: 'POST', path: `/v1/schedules/${f.schedule}/trigger` }),
    ok: 201,
  },
  {
    route: 'DELETE /v1/schedules/{id}',
    call: (f, who) => ({ method: 'DELETE', path: `/v1/schedules/${f.scheduleDelete[who]}` }),
    ok: 204,
  },
  {
    route: 'GET /v1/bulk-operations/{id}',
    call: (f) => ({ method: 'GET', path: `/v1/bulk-operations/${f.bulk}` }),
    ok: 200,
  },
  {
    route: 'GET /v1/dead-letters',
    call: () => ({ method: 'GET', path: '/v1/dead-letters?limit=500' }),
    ok: 200,
    shows: (page, f) => items(page).some((i) => i.executionId === f.deadLetter.own.executionId),
  },
  {
    route: 'POST /v1/dead-letters/{id}/replay',
    call: (f, who) => ({ method: 'POST', path: `/v1/dead-letters/${f.deadLetter[who].id}/replay` }),
    ok: 202,
  },
  {
    route: 'GET /v1/api-keys',
    call: () => ({ method: 'GET', path: '/v1/api-keys' }),
    ok: 200,
    shows: (page, f) => items(page).some((i) => i.id === f.aliceKeyId),
  },
  {
    route: 'DELETE /v1/api-keys/{id}',
    call: (f, who) => ({ method: 'DELETE', path: `/v1/api-keys/${f.spareKey[who]}` }),
    ok: 204,
  },
  {
    route: 'GET /v1/audit',
    call: () => ({ method: 'GET', path: '/v1/audit?limit=500' }),
    ok: 200,
    shows: (page) => items(page).some((i) => i.tenant === 'alice'),
  },
  {
    route: 'GET /v1/stats/executions',
    call: () => ({ method: 'GET', path: '/v1/stats/executions' }),
    ok: 200,
    shows: (page) => (page as { counted: number }).counted > 0,
  },
];

/** Checked by the dedicated tests below the table. */
const SPECIAL = ['PUT /v1/flows/{flowId}/versions/{version}', 'POST /v1/bulk-operations'];

/** Routes that take no id and list nothing of a tenant's, with the reason. */
const EXCLUDED: Record<string, string> = {
  'POST /v1/sessions': 'signs in with a key: no tenant resource',
  'GET /v1/sessions/current': 'the caller itself',
  'DELETE /v1/sessions/current': 'clears the caller’s own cookie',
  'GET /v1/approval-links/{token}': 'the signed token is the credential and names the tenant',
  'POST /v1/approval-links/{token}': 'the signed token is the credential and names the tenant',
  'POST /v1/flows/validate': 'stores and reads nothing of a tenant but the flows it references',
  'GET /v1/schedules/preview': 'computes cron times: no tenant data',
  'DELETE /v1/dead-letters': 'platform admins only (a tenant key is 403 by design)',
  'GET /v1/workers':
    'platform-wide heartbeats, no tenant data; host, pid, inFlight to platform keys only (operations-api.test.ts)',
  'GET /v1/stats/queue': 'the shared queue: platform keys only (roles-matrix.test.ts)',
  'POST /v1/api-keys': 'a tenant admin creating another tenant’s key is 403 by design',
};

const HEADERS: Record<Caller, Record<string, string>> = {
  other: {},
  otherWithHeader: { 'x-plaita-tenant': 'alice' },
  own: {},
  platform: { 'x-plaita-tenant': 'alice' },
};

for (const kind of BACKENDS) {
  const describe = await describeOn(kind);
  describe(`tenant isolation on ${kind.name}`, () => {
    let api: ApiHarness;
    let tokens: Record<Caller, string>;
    let f: Fixtures;

    beforeAll(async () => {
      api = await startApi({ backends: kind.open() });
      const alice = await api.key('admin', 'alice');
      const bob = await api.key('admin', 'bob');
      tokens = { other: bob, otherWithHeader: bob, own: alice, platform: api.adminToken };
      f = await makeFixtures(api, alice);
    }, 60_000);
    afterAll(async () => {
      await api?.close();
    });

    async function send(call: Call, who: Caller): Promise<Response> {
      const controller = new AbortController();
      const res = await api.fetch(call.path, {
        method: call.method,
        token: tokens[who],
        headers: HEADERS[who],
        signal: controller.signal,
        ...(call.json === undefined ? {} : { json: call.json }),
      });
      // A stream never ends by itself: its status and headers are what this test reads.
      if (res.headers.get('content-type')?.includes('text/event-stream')) controller.abort();
      return res;
    }

    it('the table covers every route of /openapi.json that takes an id or lists', async () => {
      const doc = await body<{ paths: Record<string, Record<string, unknown>> }>(
        await api.fetch('/openapi.json', { token: null }),
      );
      const routes = Object.entries(doc.paths)
        .filter(([path]) => path.startsWith('/v1/'))
        .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
      const covered = new Set([...ROWS.map((r) => r.route), ...SPECIAL, ...Object.keys(EXCLUDED)]);
      expect(routes.filter((r) => !covered.has(r))).toEqual([]);
      expect([...covered].filter((r) => !routes.includes(r))).toEqual([]);
    });

    it('every route: the other tenant gets 404 or a page without it; the owner and the platform key (X-Plaita-Tenant) see it', async () => {
      const failures: string[] = [];
      for (const row of ROWS) {
        for (const who of CALLERS) {
          const call = row.call(f, who === 'platform' ? 'platform' : 'own');
          const res = await send(call, who);
          const streaming = res.headers.get('content-type')?.includes('text/event-stream');
          const text = streaming ? '' : await res.text();
          const label = `${row.route} as ${who}: ${res.status} ${text.slice(0, 200)}`;
          const mine = who === 'own' || who === 'platform';
          if (row.shows) {
            const page = JSON.parse(text) as Record<string, unknown>;
            if (res.status !== 200 || row.shows(page, f) !== mine) failures.push(label);
          } else if (mine) {
            if (res.status !== row.ok) failures.push(label);
          } else if (
            res.status !== 404 ||
            !res.headers.get('content-type')?.includes('application/problem+json') ||
            (JSON.parse(text) as { code: string }).code !== 'not_found'
          ) {
            failures.push(label);
          }
        }
      }
      expect(failures).toEqual([]);
      // The refused calls changed nothing: bob's cancel and event left alice's executions as they were.
      const waiting = await body<{ status: string }>(
        await api.fetch(`/v1/executions/${f.waiting}`, { token: tokens.own }),
      );
      expect(waiting.status).toBe('waiting');
    });

    it('a flow id is per tenant: the other tenant’s PUT of the same id and version makes its own draft', async () => {
      const put = (who: Caller) =>
        send(
          {
            method: 'PUT',
            path: `/v1/flows/${f.flowId}/versions/1`,
            json: { ...echoFlow, flow_id: f.flowId, version: '1' },
          },
          who,
        );
      const theirs = await put('other');
      expect(theirs.status).toBe(201);
      expect(await body(theirs)).toMatchObject({ status: 'draft', version: '1' });
      // Alice's version 1 is published, hence immutable — bob's draft did not replace it.
      expect((await put('own')).status).toBe(409);
      expect((await put('platform')).status).toBe(409);
      const mine = await body<{ status: string; document: { nodes: unknown[] } }>(
        await send({ method: 'GET', path: `/v1/flows/${f.flowId}/versions/1` }, 'own'),
      );
      expect(mine.status).toBe('published');
      expect(JSON.stringify(mine.document)).toContain('iso {%');
      // Bob may not start alice's flow through his draft either.
      expect(
        (
          await send(
            { method: 'POST', path: '/v1/executions', json: { flowId: f.flowId } },
            'other',
          )
        ).status,
      ).toBe(404);
    });

    it('a bulk operation of the other tenant that names the owner’s ids touches none of them', async () => {
      const res = await send(
        {
          method: 'POST',
          path: '/v1/bulk-operations',
          json: { action: 'cancel', filter: { ids: [f.waiting, f.waitingEvents] } },
        },
        'other',
      );
      expect(res.status).toBe(202);
      const { id } = await body<{ id: string }>(res);
      await new BulkRunner(api.app.services, { log: silentLogger }).tick();
      const op = await body(
        await send({ method: 'GET', path: `/v1/bulk-operations/${id}` }, 'other'),
      );
      expect(op).toMatchObject({ status: 'completed', done: 0, failed: 2 });
      expect((await send({ method: 'GET', path: `/v1/bulk-operations/${id}` }, 'own')).status).toBe(
        404,
      );
      const status = await body<{ status: string }>(
        await send({ method: 'GET', path: `/v1/executions/${f.waiting}` }, 'own'),
      );
      expect(status.status).toBe('waiting');
    });

    it('a start naming the owner’s execution id never returns or changes the owner’s execution', async () => {
      const res = await send(
        {
          method: 'POST',
          path: '/v1/executions',
          json: { flow: echoFlow, input: { name: 'B' }, executionId: f.waiting },
        },
        'other',
      );
      expect([201, 409]).toContain(res.status);
      const seen = await body<{ tenantId?: string; input?: unknown }>(res);
      if (res.status === 201) expect(seen).toMatchObject({ tenantId: 'bob', input: { name: 'B' } });
      const mine = await body<{ status: string; input: unknown }>(
        await send({ method: 'GET', path: `/v1/executions/${f.waiting}` }, 'own'),
      );
      expect(mine).toMatchObject({ status: 'waiting', input: approvalInput });
    });
  });
}

/** Everything the table reads, made by alice's admin key through the API. */
async function makeFixtures(api: ApiHarness, alice: string): Promise<Fixtures> {
  const call = async (method: Call['method'], path: string, json?: unknown, expected?: number) => {
    const res = await api.fetch(path, {
      method,
      token: alice,
      ...(json === undefined ? {} : { json }),
    });
    const text = await res.text();
    if (expected !== undefined && res.status !== expected)
      throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const flowId = 'iso';
  for (const version of ['1', '2', '3', '4', '5', '6'])
    await call('PUT', `/v1/flows/${flowId}/versions/${version}`, isoFlow, 201);
  await call('POST', `/v1/flows/${flowId}/versions/1/publish`, undefined, 200);
  const waiting = async () => {
    const view = await call(
      'POST',
      '/v1/executions?wait=10s',
      { flow: approvalFlow, input: approvalInput },
      201,
    );
    if (view.status !== 'waiting') throw new Error(`not waiting: ${JSON.stringify(view)}`);
    return view.executionId as string;
  };
  const completed = async () => {
    const view = await call(
      'POST',
      '/v1/executions?wait=10s',
      { flow: echoFlow, input: { name: 'A' } },
      201,
    );
    if (view.status !== 'completed') throw new Error(`not completed: ${JSON.stringify(view)}`);
    return view.executionId as string;
  };
  const schedule = async () =>
    (await call('POST', '/v1/schedules', { flowId, cron: '0 0 1 1 *', enabled: false }, 201))
      .id as string;
  // A task that came before its execution was stored (dead-lettered as unknown_execution), then
  // the execution: a letter a replay can do something with.
  const deadLetterOf = async (executionId: string) => {
    await api.backends.queue.enqueue({ v: 1, kind: 'run', executionId, tenantId: 'alice' });
    const letter = await eventually(`the dead letter of ${executionId}`, async () => {
      const page = await body<{ items: Array<{ id: string; executionId: string }> }>(
        await api.fetch('/v1/dead-letters?limit=500', { token: alice }),
      );
      return page.items.find((i) => i.executionId === executionId);
    });
    await call('POST', '/v1/executions', { flowId, executionId, input: { name: 'late' } }, 201);
    return letter;
  };
  const keyId = (token: string) => token.split('_')[1]!;
  return {
    flowId,
    waiting: await waiting(),
    waitingEvents: await waiting(),
    cancel: { own: await waiting(), platform: await waiting() },
    completed: await completed(),
    remove: { own: await completed(), platform: await completed() },
    draftDelete: { own: '2', platform: '3' },
    draftPublish: { own: '4', platform: '5' },
    schedule: await schedule(),
    scheduleDelete: { own: await schedule(), platform: await schedule() },
    bulk: (
      await call(
        'POST',
        '/v1/bulk-operations',
        { action: 'cancel', filter: { ids: ['nobody'] } },
        202,
      )
    ).id as string,
    deadLetter: {
      own: await deadLetterOf(`ghost-${randomUUID()}`),
      platform: await deadLetterOf(`ghost-${randomUUID()}`),
    },
    aliceKeyId: keyId(alice),
    spareKey: {
      own: keyId(await api.key('viewer', 'alice')),
      platform: keyId(await api.key('viewer', 'alice')),
    },
  };
}
