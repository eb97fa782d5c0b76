import { Agent, fetch as undiciFetch } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultRegistry } from '../../src/nodes/default-registry.js';
import { drainTask } from '../../src/server/draining.js';
import { SERVER_TASKS } from '../../src/server/server-tasks.js';
import { executionStreamHub } from '../../src/server/stream/execution-stream-hub.js';
import { streamShutdownTask } from '../../src/server/stream/stream-shutdown-task.js';
import { StreamTickets } from '../../src/server/stream/stream-tickets.js';
import { silentLogger } from '../../src/util/logger.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { type ApiHarness, body, startApi } from './support/api-harness.js';
import { type SseEvent, SseReader } from './support/sse-reader.js';

/** Gates a test opens by node id: a `gate` node runs until its gate is opened. */
class Gates {
  readonly #gates = new Map<string, { promise: Promise<void>; open: () => void }>();

  wait(nodeId: string): Promise<void> {
    return this.#gate(nodeId).promise;
  }

  open(...nodeIds: string[]): void {
    for (const nodeId of nodeIds) this.#gate(nodeId).open();
  }

  #gate(nodeId: string) {
    let gate = this.#gates.get(nodeId);
    if (!gate) {
      let open = () => undefined as void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      gate = { promise, open };
      this.#gates.set(nodeId, gate);
    }
    return gate;
  }
}

let gates = new Gates();
const registry = defaultRegistry.copy().register({
  type: 'gate',
  run: async (ctx) => {
    await gates.wait(ctx.nodeId);
    return `${ctx.nodeId} passed`;
  },
});

const gated = {
  flow_id: 'gated',
  version: '1.0.0',
  nodes: [
    { type: 'start', id: 'start', next: 'g1' },
    { type: 'gate', id: 'g1', next: 'g2' },
    { type: 'gate', id: 'g2', next: 'end' },
    { type: 'end', id: 'end', resultType: 'success', output: '$INPUT.name' },
  ],
};

interface View {
  executionId: string;
  status: string;
  version: number;
  result?: unknown;
  nodes: Array<{ nodeId: string; status: string }>;
}

let api: ApiHarness;
let worker: FlowWorker;
/**
 * Streams are read through their own connection pool: an aborted undici fetch keeps its socket
 * for the keep-alive timeout (4 s), which would hold the server's close; destroying the pool
 * closes them at once, as a browser leaving the page does.
 */
let streams: Agent;

beforeEach(async () => {
  gates = new Gates();
  streams = new Agent();
  api = await startApi({ worker: false, app: { registry } });
  // Faster than a server's: before any stream opens, the app's hub is swapped for a tuned one.
  api.app.services.streams = executionStreamHub(api.app.services, {
    minPollMs: 20,
    maxPollMs: 200,
    keepAliveMs: 100,
  });
  worker = new FlowWorker({
    ...api.backends,
    registry,
    pollBlockMs: 20,
    logger: silentLogger,
    leaseTtlMs: 3000,
  });
  worker.start();
});

afterEach(async () => {
  gates.open('g1', 'g2');
  await api.app.services.streams.close();
  await worker.stop();
  await streams.destroy();
  await api.close();
});

async function start(options: { tenant?: string } = {}): Promise<string> {
  const res = await api.fetch('/v1/executions', {
    method: 'POST',
    headers: options.tenant ? { 'x-plaita-tenant': options.tenant } : {},
    json: { flow: gated, input: { name: 'Ada' } },
  });
  expect(res.status).toBe(201);
  return (await body<{ executionId: string }>(res)).executionId;
}

/** GET a stream path: with the admin key unless `token` says otherwise (null: none). */
function getStream(path: string, init: { token?: string | null; lastEventId?: string } = {}) {
  const token = init.token === undefined ? api.adminToken : init.token;
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.lastEventId !== undefined) headers['last-event-id'] = init.lastEventId;
  return undiciFetch(`${api.url}${path}`, { headers, dispatcher: streams });
}

async function open(
  executionId: string,
  init: { token?: string | null; lastEventId?: string; query?: string } = {},
): Promise<SseReader> {
  const res = await getStream(`/v1/executions/${executionId}/stream${init.query ?? ''}`, init);
  expect(res.status, res.status === 200 ? '' : await res.clone().text()).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return new SseReader(res);
}

const view = (event: SseEvent) => JSON.parse(event.data) as View;
const nodeStatus = (event: SseEvent, nodeId: string) =>
  view(event).nodes.find((node) => node.nodeId === nodeId)?.status;

async function settled(executionId: string): Promise<View> {
  for (;;) {
    const current = await body<View>(await api.fetch(`/v1/executions/${executionId}`));
    if (['completed', 'error', 'cancelled'].includes(current.status)) return current;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('GET /v1/executions/{id}/stream', () => {
  it('sends a snapshot, an update per checkpoint with increasing ids, then end, and closes', async () => {
    const id = await start();
    const stream = await open(id);
    const snapshot = await stream.next();
    expect(snapshot).toMatchObject({ event: 'snapshot' });
    expect(view(snapshot!)).toMatchObject({ executionId: id, version: Number(snapshot!.id) });

    gates.open('g1');
    const untilG1 = await stream.until((e) => nodeStatus(e, 'g1') === 'done');
    gates.open('g2');
    const rest = await stream.rest();

    const events = [snapshot!, ...untilG1, ...rest];
    const data = events.filter((e) => e.event !== 'end');
    expect(data.slice(1).map((e) => e.event)).toEqual(data.slice(1).map(() => 'update'));
    expect(data.length).toBeGreaterThanOrEqual(3);
    const ids = data.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(data.map((e) => view(e).version)).toEqual(ids);
    expect(view(data.at(-1)!)).toMatchObject({ status: 'completed', result: 'Ada' });
    expect(rest.at(-1)).toMatchObject({ event: 'end', id: null });
    expect(JSON.parse(rest.at(-1)!.data)).toEqual({
      executionId: id,
      status: 'completed',
      version: ids.at(-1),
      reason: 'terminal',
    });
    expect(await stream.next()).toBeNull();
  });

  it('a dropped connection resumed with Last-Event-ID gets the final view and nothing it had', async () => {
    const id = await start();
    const first = await open(id);
    const snapshot = (await first.next())!;
    await first.cancel();

    gates.open('g1', 'g2');
    const final = await settled(id);
    expect(final.version).toBeGreaterThan(Number(snapshot.id));

    const resumed = await (await open(id, { lastEventId: snapshot.id! })).rest();
    expect(resumed.map((e) => [e.event, e.id])).toEqual([
      ['update', String(final.version)],
      ['end', null],
    ]);
    expect(view(resumed[0]!)).toEqual(final);

    // Up to date already (the query form EventSource-less clients use): only the end.
    const current = await (await open(id, { query: `?lastEventId=${final.version}` })).rest();
    expect(current.map((e) => e.event)).toEqual(['end']);

    // A fresh viewer of a finished execution: its snapshot, then the end.
    const fresh = await (await open(id)).rest();
    expect(fresh.map((e) => [e.event, e.id])).toEqual([
      ['snapshot', String(final.version)],
      ['end', null],
    ]);
  });

  it('resumes while running: the update comes only once the execution moves on', async () => {
    const id = await start();
    const first = await open(id);
    const snapshot = (await first.next())!;
    await first.cancel();
    const resumed = await open(id, { lastEventId: snapshot.id! });
    gates.open('g1');
    const next = (await resumed.next())!;
    expect(next.event).toBe('update');
    expect(Number(next.id)).toBeGreaterThan(Number(snapshot.id));
    await resumed.cancel();
  });

  it('a Last-Event-ID past every version of the execution starts over with a snapshot', async () => {
    const id = await start();
    const stream = await open(id, { lastEventId: '999999' });
    const first = (await stream.next())!;
    expect(first.event).toBe('snapshot');
    expect(Number(first.id)).toBeLessThan(999999);
    await stream.cancel();
  });

  it('viewers of one execution share one watch, released when they go away', async () => {
    const hub = api.app.services.streams;
    const id = await start();
    const streams = await Promise.all([open(id), open(id), open(id)]);
    for (const stream of streams) expect((await stream.next())?.event).toBe('snapshot');
    expect(hub.openStreams).toBe(3);
    expect(hub.watchedExecutions).toBe(1);

    gates.open('g1');
    for (const stream of streams) await stream.until((e) => nodeStatus(e, 'g1') === 'done');

    for (const stream of streams) await stream.cancel();
    await vi.waitFor(() => expect(hub.openStreams).toBe(0));
    expect(hub.watchedExecutions).toBe(0);
  });

  it('writes keep-alive comments while nothing changes', async () => {
    const id = await start();
    const stream = await open(id);
    await stream.next();
    // Nothing changes while g1 is closed: the read times out having seen only comments.
    await expect(stream.next(500)).rejects.toThrow('no event in time');
    expect(stream.comments.length).toBeGreaterThanOrEqual(2);
    expect(new Set(stream.comments)).toEqual(new Set(['keep-alive']));
    await stream.cancel();
  });

  it('another tenant’s execution is 404; no credential is 401', async () => {
    const id = await start({ tenant: 'acme' });
    const own = await api.key('viewer', 'acme');
    const other = await api.key('viewer', 'globex');
    const stream = await open(id, { token: own });
    expect((await stream.next())?.event).toBe('snapshot');
    await stream.cancel();

    const foreign = await api.fetch(`/v1/executions/${id}/stream`, { token: other });
    expect(foreign.status).toBe(404);
    expect(await body(foreign)).toMatchObject({ code: 'not_found' });
    const ticket = await api.fetch(`/v1/executions/${id}/stream-tickets`, {
      method: 'POST',
      token: other,
    });
    expect(ticket.status).toBe(404);
    const anonymous = await api.fetch(`/v1/executions/${id}/stream`, { token: null });
    expect(anonymous.status).toBe(401);
    expect(await body(anonymous)).toMatchObject({ code: 'unauthorized' });
  });

  it('shutdown ends every open stream with a final event and refuses new streams', async () => {
    expect(SERVER_TASKS).toContain(streamShutdownTask);
    const id = await start();
    const streams = await Promise.all([open(id), open(id)]);
    for (const stream of streams) expect((await stream.next())?.event).toBe('snapshot');

    await streamShutdownTask(api.app.services).stop();

    for (const stream of streams) {
      const rest = await stream.rest();
      expect(rest.at(-1)).toMatchObject({ event: 'shutdown', id: null, retry: 2000 });
      expect(JSON.parse(rest.at(-1)!.data)).toEqual({ reason: 'server_shutdown' });
    }
    expect(api.app.services.streams.openStreams).toBe(0);
    const late = await api.fetch(`/v1/executions/${id}/stream`);
    expect(late.status).toBe(503);
    expect(await body(late)).toMatchObject({ code: 'service_unavailable' });
  });
});

describe('GET /v1/executions/{id}?wait=', () => {
  it('stops reading the execution once the client has gone', async () => {
    const id = await start();
    const store = api.app.services.store;
    const load = store.load.bind(store);
    let loads = 0;
    store.load = (executionId, options) => {
      if (executionId === id) loads++;
      return load(executionId, options);
    };
    const leaving = new AbortController();
    // Through the streams' pool: destroying it closes the aborted request's socket at once.
    const waiting = undiciFetch(`${api.url}/v1/executions/${id}?wait=30s`, {
      headers: { authorization: `Bearer ${api.adminToken}` },
      signal: leaving.signal,
      dispatcher: streams,
    });
    await vi.waitFor(() => expect(loads).toBeGreaterThan(1));
    leaving.abort();
    await expect(waiting).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const after = loads;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(loads).toBe(after);
  });

  it('many waits at once raise no listener-leak warning', async () => {
    const id = await start();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const waits = Array.from({ length: 15 }, () => api.fetch(`/v1/executions/${id}?wait=300ms`));
      for (const res of await Promise.all(waits)) expect(res.status).toBe(200);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('answers at once with the current state when the server drains', async () => {
    const id = await start();
    const waiting = api.fetch(`/v1/executions/${id}?wait=30s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await drainTask(api.app.services).stop();
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 3000));
    const res = await Promise.race([waiting, timeout]);
    expect(res).not.toBe('timeout');
    expect(await body<View>(res as Response)).toMatchObject({ executionId: id, status: 'running' });
  });
});

describe('POST /v1/executions/{id}/stream-tickets', () => {
  async function ticketFor(id: string, token?: string): Promise<string> {
    const res = await api.fetch(`/v1/executions/${id}/stream-tickets`, {
      method: 'POST',
      ...(token ? { token } : {}),
    });
    expect(res.status).toBe(201);
    const issued = await body<{ ticket: string; expiresAt: string }>(res);
    const ttlMs = Date.parse(issued.expiresAt) - Date.now();
    expect(ttlMs).toBeGreaterThan(55_000);
    expect(ttlMs).toBeLessThanOrEqual(60_000);
    return issued.ticket;
  }

  function withTicket(id: string, ticket: string) {
    return getStream(`/v1/executions/${id}/stream?ticket=${encodeURIComponent(ticket)}`, {
      token: null,
    });
  }

  it('a ticket opens the stream once, for the tenant it was issued to; a used one is 401', async () => {
    const id = await start({ tenant: 'acme' });
    const viewer = await api.key('viewer', 'acme');
    const ticket = await ticketFor(id, viewer);

    const first = await withTicket(id, ticket);
    expect(first.status).toBe(200);
    const stream = new SseReader(first);
    expect(view((await stream.next())!)).toMatchObject({ executionId: id, tenantId: 'acme' });
    await stream.cancel();

    const again = await withTicket(id, ticket);
    expect(again.status).toBe(401);
    expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await body(again)).toMatchObject({ code: 'unauthorized', status: 401 });

    const fresh = await withTicket(id, await ticketFor(id, viewer));
    expect(fresh.status).toBe(200);
    await new SseReader(fresh).cancel();
  });

  it('an unknown ticket, or one for another execution, is 401 (expiry: stream-tickets.test.ts)', async () => {
    const id = await start();
    const otherId = await start();
    for (const ticket of ['', 'pst_nope', 'x'.repeat(500)])
      expect((await withTicket(id, ticket)).status).toBe(401);

    const forOther = await ticketFor(otherId);
    expect((await withTicket(id, forOther)).status).toBe(401);
  });

  it('HEAD answers the headers, opens no stream and leaves the ticket usable', async () => {
    const id = await start();
    const ticket = await ticketFor(id);
    const path = `/v1/executions/${id}/stream?ticket=${encodeURIComponent(ticket)}`;
    const head = await undiciFetch(`${api.url}${path}`, { method: 'HEAD', dispatcher: streams });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(api.app.services.streams.openStreams).toBe(0);
    expect(api.app.services.streams.watchedExecutions).toBe(0);
    const res = await withTicket(id, ticket);
    expect(res.status).toBe(200);
    await new SseReader(res).cancel();
  });

  it('a stream refused with 503 does not use the ticket up', async () => {
    const id = await start();
    const ticket = await ticketFor(id);
    await streamShutdownTask(api.app.services).stop();
    const refused = await withTicket(id, ticket);
    expect(refused.status).toBe(503);
    await expect(
      new StreamTickets(api.app.services.control).check(ticket, id),
    ).resolves.toMatchObject({ tenant: 'default' });
  });

  it('a key revoked ends its open streams, and its unused tickets open none', async () => {
    const id = await start();
    const viewer = await api.key('viewer', 'default');
    const keyId = /^plt_([0-9a-f]{16})_/.exec(viewer)![1]!;
    const stream = await open(id, { token: viewer });
    expect((await stream.next())?.event).toBe('snapshot');
    const ticket = await ticketFor(id, viewer);
    expect((await api.fetch(`/v1/api-keys/${keyId}`, { method: 'DELETE' })).status).toBe(204);
    // Dropped at its next keep-alive (100 ms here): the connection closes, no event comes.
    expect(await stream.rest().catch(() => [])).toEqual([]);
    await vi.waitFor(() => expect(api.app.services.streams.openStreams).toBe(0));
    const refused = await withTicket(id, ticket);
    expect(refused.status).toBe(401);
  });

  it('a ticket with a Bearer key still has to be valid (the ticket is the credential)', async () => {
    const id = await start();
    const res = await api.fetch(`/v1/executions/${id}/stream?ticket=bogus`);
    expect(res.status).toBe(401);
  });
});
