import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors/store-errors.js';
import { overriding } from '../support/overriding.js';
import { type ApiHarness, body, memoryBackends, startApi } from './support/api-harness.js';

const echo = JSON.parse(
  readFileSync(new URL('../../examples/echo.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

let api: ApiHarness;
beforeEach(async () => {
  api = await startApi();
});
afterEach(async () => {
  await api.close();
});

/** start → an event node waiting for `go` → end, returning what the event brought. */
const waitsForGo = {
  nodes: [
    { type: 'start', id: 'start', next: 'hold' },
    { type: 'event', id: 'hold', event_type: 'go', next: 'end' },
    { type: 'end', id: 'end', output: '$NODE.hold' },
  ],
};

interface Settled {
  executionId: string;
  status: string;
  version: number;
}

/** Starts an inline flow and answers once it settles (`?wait`). */
async function startSettled(flow: unknown, input: Record<string, unknown> = {}): Promise<Settled> {
  return body<Settled>(
    await api.fetch('/v1/executions?wait=10s', { method: 'POST', json: { flow, input } }),
  );
}

/** An execution's view as it is now. */
async function viewNow(id: string) {
  return body<{ status: string; version: number; retries: number }>(
    await api.fetch(`/v1/executions/${id}`),
  );
}

describe('executions over HTTP', () => {
  it('retries, cancels and replays sent again (lost answers, double clicks) act once', async () => {
    const failing = {
      nodes: [
        { type: 'start', id: 'start', next: 'calc' },
        { type: 'assignment', id: 'calc', output: '$F.div(1, $INPUT.d)', next: 'end' },
        { type: 'end', id: 'end', output: '$NODE.calc' },
      ],
    };
    const failed = await startSettled(failing, { d: 0 });
    expect(failed.status).toBe('error');
    const id = failed.executionId;
    const retry = () =>
      api.fetch(`/v1/executions/${id}/retry`, {
        method: 'POST',
        headers: { 'Idempotency-Key': 'retry-after-fix-1' },
      });
    const retries = await Promise.all(Array.from({ length: 5 }, retry));
    expect(retries.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    await expect.poll(async () => (await viewNow(id)).retries, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => (await viewNow(id)).status, { timeout: 10_000 }).toBe('error');
    expect((await retry()).status).toBe(202); // later, with the re-run failed again: the same
    await new Promise((resolve) => setTimeout(resolve, 300)); // anything enqueued is handled
    const after = await viewNow(id);
    expect(after.retries).toBe(1); // one re-run for one request, not six

    const waiting = await startSettled(waitsForGo);
    const cancel = () =>
      api.fetch(`/v1/executions/${waiting.executionId}/cancel`, { method: 'POST' });
    expect((await cancel()).status).toBe(202);
    await expect
      .poll(async () => (await viewNow(waiting.executionId)).status, { timeout: 10_000 })
      .toBe('cancelled');
    expect((await cancel()).status).toBe(202); // cancelled already: done, as asked

    // A replay sent again with its Idempotency-Key is the replay the first one started.
    const replay = () =>
      api.fetch(`/v1/executions/${id}/replay`, {
        method: 'POST',
        headers: { 'Idempotency-Key': 'replay-1' },
        json: { input: { d: 1 } },
      });
    const replays = await Promise.all([replay(), replay()]);
    expect(replays.map((r) => r.status).sort()).toEqual([200, 201]);
    const ids = await Promise.all(
      replays.map(async (r) => (await body<{ executionId: string }>(r)).executionId),
    );
    expect(ids[1]).toBe(ids[0]);
    const later = await replay();
    expect(later.status).toBe(200);
    expect(await body<{ executionId: string; replayOf: string }>(later)).toMatchObject({
      executionId: ids[0],
      replayOf: id,
    });
    // Each write acted on once is audited once.
    const audit = await body<{ items: Array<{ action: string }> }>(
      await api.fetch('/v1/audit?limit=500'),
    );
    const count = (action: string) => audit.items.filter((e) => e.action === action).length;
    expect([
      count('execution.retry'),
      count('execution.cancel'),
      count('execution.replay'),
    ]).toEqual([1, 1, 1]);
  });

  it('an event sent again with its eventId after it ended the execution is answered as sent, once', async () => {
    const started = await startSettled(waitsForGo);
    expect(started.status).toBe('waiting');
    const id = started.executionId;
    const send = (eventId: string) =>
      api.fetch(`/v1/executions/${id}/events`, {
        method: 'POST',
        json: { type: 'go', eventId, data: { n: 1 } },
      });
    expect((await send('delivery-1')).status).toBe(202);
    await expect
      .poll(async () => (await viewNow(id)).status, { timeout: 10_000 })
      .toBe('completed');
    const { version } = await viewNow(id);
    // The caller lost the first answer and retries: the same event, already applied.
    const retried = await send('delivery-1');
    expect(retried.status).toBe(202);
    expect(await body(retried)).toMatchObject({ executionId: id, eventId: 'delivery-1' });
    const another = await send('delivery-2');
    expect(another.status).toBe(409);
    expect(await body(another)).toMatchObject({ code: 'execution_terminal' });
    expect((await viewNow(id)).version).toBe(version);
  });

  it('an event id only kept in the inbox (a mistyped type) can be sent again, corrected', async () => {
    const started = await startSettled(waitsForGo);
    const id = started.executionId;
    const send = (type: string) =>
      api.fetch(`/v1/executions/${id}/events`, {
        method: 'POST',
        json: { type, eventId: 'typo-1', data: { n: 2 } },
      });
    expect((await send('og')).status).toBe(202);
    await expect
      .poll(async () => (await viewNow(id)).version, { timeout: 10_000 })
      .toBeGreaterThan(started.version);
    expect((await send('go')).status).toBe(202);
    await expect
      .poll(async () => (await viewNow(id)).status, { timeout: 10_000 })
      .toBe('completed');
  });

  it('starts an inline flow, waits for it, and reads the whole view with the node timeline', async () => {
    const res = await api.fetch('/v1/executions?wait=10s', {
      method: 'POST',
      json: { flow: echo, input: { name: 'Ada' } },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const view = await body<{
      executionId: string;
      status: string;
      result: unknown;
      nodes: Array<{ nodeId: string; status: string; type: string }>;
    }>(res);
    expect(view.status).toBe('completed');
    expect(view.result).toBe('Ada');
    expect(view.nodes.map((n) => n.status)).toEqual(view.nodes.map(() => 'done'));
    expect(view.nodes.length).toBeGreaterThan(0);
    const again = await body<{ executionId: string; input: unknown }>(
      await api.fetch(`/v1/executions/${view.executionId}`),
    );
    expect(again).toMatchObject({ executionId: view.executionId, input: { name: 'Ada' } });
    const list = await body<{ items: Array<{ executionId: string }>; nextCursor: string | null }>(
      await api.fetch('/v1/executions?status=completed&limit=10'),
    );
    expect(list.items.map((i) => i.executionId)).toContain(view.executionId);
  });

  it('20 concurrent identical starts with one Idempotency-Key make one execution (one 201, the rest 200)', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.fetch('/v1/executions', {
          method: 'POST',
          headers: { 'idempotency-key': 'order-42' },
          json: { flow: echo, input: { name: 'Bob' } },
        }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    const ids = new Set(
      await Promise.all(
        responses.map(async (r) => (await body<{ executionId: string }>(r)).executionId),
      ),
    );
    expect(ids.size).toBe(1);
    const list = await body<{ items: unknown[] }>(await api.fetch('/v1/executions'));
    expect(list.items).toHaveLength(1);
    const other = await api.fetch('/v1/executions', {
      method: 'POST',
      headers: { 'idempotency-key': 'order-42' },
      json: { flow: echo, input: { name: 'Someone else' } },
    });
    expect(other.status).toBe(409);
    expect(await body(other)).toMatchObject({
      code: 'conflict',
      detail: expect.stringContaining('Idempotency-Key'),
    });
    // A chosen execution id reused by another request: the answer names the execution.
    const mine = { flow: echo, executionId: 'exp-7', input: { name: 'A' } };
    expect((await api.fetch('/v1/executions', { method: 'POST', json: mine })).status).toBe(201);
    const reused = await api.fetch('/v1/executions', {
      method: 'POST',
      json: { ...mine, input: { name: 'B' } },
    });
    expect(reused.status).toBe(409);
    expect(await body(reused)).toMatchObject({
      code: 'conflict',
      detail: expect.stringContaining('execution exp-7 already exists'),
    });
  });

  it('a start whose enqueue failed (503) runs when the client repeats it with the same key', async () => {
    await api.close();
    const backends = memoryBackends();
    let failNextRun = true;
    // The real queue, with one failure injected where the start's enqueue meets it.
    const queue = overriding(backends.queue, 'enqueue', (enqueue) => (message, options) => {
      if (message.kind === 'run' && failNextRun) {
        failNextRun = false;
        return Promise.reject(new StoreUnavailableError('queue down for this test'));
      }
      return enqueue(message, options);
    });
    api = await startApi({ backends: { ...backends, queue } });
    const start = () =>
      api.fetch('/v1/executions', {
        method: 'POST',
        headers: { 'idempotency-key': 'flaky-queue' },
        json: { flow: echo, input: { name: 'Cy' } },
      });
    const first = await start();
    expect(first.status).toBe(503);
    const again = await start();
    expect(again.status).toBe(200);
    const { executionId } = await body<{ executionId: string }>(again);
    await expect
      .poll(
        async () =>
          (await body<{ status: string }>(await api.fetch(`/v1/executions/${executionId}`))).status,
        { timeout: 5000 },
      )
      .toBe('completed');
  });

  it('bad input is problem+json naming the path, never a 500', async () => {
    const cases: Array<[string, RequestInit & { json?: unknown }, number, string]> = [
      ['unknown field', { method: 'POST', json: { flow: echo, bogus: 1 } }, 400, 'body.bogus'],
      ['wrong type', { method: 'POST', json: { flow: echo, input: 'x' } }, 400, 'body.input'],
      ['neither flow nor flowId', { method: 'POST', json: { input: {} } }, 400, 'body.flowId'],
      [
        'invalid flow',
        { method: 'POST', json: { flow: { nodes: [{ type: 'frob', id: 'x' }] } } },
        422,
        'nodes[0].type',
      ],
      ['unknown flow', { method: 'POST', json: { flowId: 'nope' } }, 404, 'body.flowId'],
      ['bad wait', { method: 'POST', json: { flow: echo } }, 400, 'query.wait'],
    ];
    for (const [name, init, status, path] of cases) {
      const res = await api.fetch(
        name === 'bad wait' ? '/v1/executions?wait=soon' : '/v1/executions',
        init,
      );
      expect(res.status, name).toBe(status);
      expect(res.headers.get('content-type'), name).toContain('application/problem+json');
      const problem = await body<{ errors?: Array<{ path: string }>; requestId: string }>(res);
      expect(problem.requestId, name).toBeTruthy();
      expect(problem.errors?.map((e) => e.path).join(' '), name).toContain(path);
    }
    // Too long a wait says so (an hour is a duration, only too long); no content type says what to send.
    const tooLong = await body<{ detail: string }>(await api.fetch('/v1/executions/x?wait=999h'));
    expect(tooLong.detail).toContain('longer than two minutes');
    const untyped = await api.fetch('/v1/approvals/x/approve/links', {
      method: 'POST',
      body: JSON.stringify({ approver: 'a@example.com' }),
      headers: { 'content-type': '' },
    });
    expect(untyped.status).toBe(400);
    expect(await body(untyped)).toMatchObject({
      detail: expect.stringContaining('Content-Type: application/json'),
      errors: [{ path: 'header.content-type' }],
    });
    const notJson = await api.fetch('/v1/executions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{oops',
    });
    expect(notJson.status).toBe(400);
    const cursor = await api.fetch('/v1/executions?cursor=garbage');
    expect(cursor.status).toBe(400);
    expect((await api.fetch('/v1/executions/nope')).status).toBe(404);
    const huge = await api.fetch('/v1/executions', {
      method: 'POST',
      json: { flow: echo, input: { x: 'y'.repeat(2 * 1024 * 1024) } },
    });
    expect(huge.status).toBe(413);
  });

  it('a forged cursor or an inline flow id no store can hold is a 4xx, never a 500', async () => {
    const forged = Buffer.from(JSON.stringify({ a: 'x\u0000' }), 'utf8').toString('base64url');
    for (const path of ['/v1/schedules', '/v1/flows', '/v1/audit', '/v1/executions']) {
      const res = await api.fetch(`${path}?cursor=${forged}`);
      expect(res.status, path).toBe(400);
      expect(await body(res)).toMatchObject({ code: 'invalid_request' });
    }
    for (const flowId of ['a\u0000b', 'lone \ud800']) {
      const res = await api.fetch('/v1/executions', {
        method: 'POST',
        json: { flow: { ...echo, flow_id: flowId }, input: {} },
      });
      expect(res.status, JSON.stringify(flowId)).toBe(422);
      expect(await body(res)).toMatchObject({
        code: 'invalid_flow',
        errors: [{ path: 'flow_id' }],
      });
    }
  });

  it('without a key: 401; a viewer cannot start (403)', async () => {
    expect((await api.fetch('/v1/executions', { token: null })).status).toBe(401);
    expect(
      (
        await api.fetch('/v1/executions', {
          token: 'plt_0123456789abcdef_nope-nope-nope-nope-nope',
        })
      ).status,
    ).toBe(401);
    const viewer = await api.key('viewer', 'default');
    expect((await api.fetch('/v1/executions', { token: viewer })).status).toBe(200);
    const res = await api.fetch('/v1/executions', {
      token: viewer,
      method: 'POST',
      json: { flow: echo },
    });
    expect(res.status).toBe(403);
    expect(await body(res)).toMatchObject({ code: 'forbidden' });
  });

  it('another tenant’s execution is 404 and absent from its list', async () => {
    const alice = await api.key('operator', 'alice');
    const bob = await api.key('operator', 'bob');
    const started = await body<{ executionId: string }>(
      await api.fetch('/v1/executions', {
        token: alice,
        method: 'POST',
        json: { flow: echo, input: { name: 'A' } },
      }),
    );
    expect(
      (await api.fetch(`/v1/executions/${started.executionId}`, { token: alice })).status,
    ).toBe(200);
    expect((await api.fetch(`/v1/executions/${started.executionId}`, { token: bob })).status).toBe(
      404,
    );
    const bobs = await body<{ items: unknown[] }>(
      await api.fetch('/v1/executions', { token: bob }),
    );
    expect(bobs.items).toEqual([]);
    expect(
      (
        await api.fetch(`/v1/executions/${started.executionId}`, {
          headers: { 'x-plaita-tenant': 'alice' },
        })
      ).status,
    ).toBe(200);
  });

  it('events, cancel, retry and replay', async () => {
    const approval = JSON.parse(
      readFileSync(new URL('../../examples/approval.json', import.meta.url), 'utf8'),
    ) as unknown;
    const input = {
      id: 'EXP-7',
      requester: 'Bob',
      amount: 120.5,
      reason: 'travel',
      approvers: ['alice@example.com'],
    };
    const started = await body<{
      executionId: string;
      status: string;
      waiting: { eventType: string };
    }>(
      await api.fetch('/v1/executions?wait=10s', {
        method: 'POST',
        json: { flow: approval, input },
      }),
    );
    expect(started.status).toBe('waiting');
    expect(started.waiting.eventType).toBe('approval_decision');
    const id = started.executionId;
    const sent = await api.fetch(`/v1/executions/${id}/events`, {
      method: 'POST',
      json: {
        type: 'approval_decision',
        data: {
          final_decision: 'approve',
          approval_details: [{ approver_id: 'alice@example.com', decision: 'approve' }],
        },
      },
    });
    // Sent straight to the execution, it would decide with no approver counted by the strategy.
    expect(sent.status).toBe(409);
    expect(await body(sent)).toMatchObject({
      code: 'conflict',
      errors: [{ path: 'body.type' }],
    });
    expect((await body<{ status: string }>(await api.fetch(`/v1/executions/${id}`))).status).toBe(
      'waiting',
    );
    const decided = await api.fetch(`/v1/approvals/${id}/approve/decisions`, {
      method: 'POST',
      json: { approver: 'alice@example.com', decision: 'approve' },
    });
    expect(decided.status).toBeLessThan(300);
    await expect
      .poll(
        async () =>
          (await body<{ status: string }>(await api.fetch(`/v1/executions/${id}`))).status,
        { timeout: 10_000 },
      )
      .toBe('completed');
    const late = await api.fetch(`/v1/executions/${id}/events`, {
      method: 'POST',
      json: { type: 'x' },
    });
    expect(late.status).toBe(409);
    expect(await body(late)).toMatchObject({ code: 'execution_terminal' });
    expect((await api.fetch(`/v1/executions/${id}/cancel`, { method: 'POST' })).status).toBe(409);
    const replay = await api.fetch(`/v1/executions/${id}/replay`, {
      method: 'POST',
      json: { input: { ...input, id: 'EXP-8' } },
    });
    expect(replay.status).toBe(201);
    const replayed = await body<{ executionId: string; replayOf: string }>(replay);
    expect(replayed.replayOf).toBe(id);
    await expect
      .poll(
        async () =>
          (
            await body<{ status: string }>(
              await api.fetch(`/v1/executions/${replayed.executionId}`),
            )
          ).status,
        { timeout: 10_000 },
      )
      .toBe('waiting');
    expect(
      (await api.fetch(`/v1/executions/${replayed.executionId}/cancel`, { method: 'POST' })).status,
    ).toBe(202);
    await expect
      .poll(
        async () =>
          (
            await body<{ status: string }>(
              await api.fetch(`/v1/executions/${replayed.executionId}`),
            )
          ).status,
        { timeout: 10_000 },
      )
      .toBe('cancelled');
    expect(
      (await api.fetch(`/v1/executions/${replayed.executionId}/retry`, { method: 'POST' })).status,
    ).toBe(409);
    expect((await api.fetch(`/v1/executions/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api.fetch(`/v1/executions/${id}`)).status).toBe(404);
  });

  it('serves /healthz, /readyz, /openapi.json and /docs', async () => {
    expect(await body(await api.fetch('/healthz', { token: null }))).toEqual({ ok: true });
    expect((await api.fetch('/readyz', { token: null })).status).toBe(200);
    const doc = await body<{
      openapi: string;
      paths: Record<string, unknown>;
      security: Record<string, unknown>[];
      components: { securitySchemes?: Record<string, unknown> };
    }>(await api.fetch('/openapi.json', { token: null }));
    expect(doc.openapi).toBe('3.1.0');
    // Every scheme the document asks for is declared, so generated clients send the key.
    expect(doc.security).toEqual([{ apiKey: [] }]);
    expect(doc.components.securitySchemes).toEqual({
      apiKey: { type: 'http', scheme: 'bearer', description: 'plt_<keyId>_<secret>' },
    });
    expect(Object.keys(doc.paths)).toContain('/v1/executions/{id}');
    const docs = await api.fetch('/docs', { token: null });
    expect(await docs.text()).toContain('/v1/executions');
  });
});
