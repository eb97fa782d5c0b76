import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { overriding } from '../support/overriding.js';
import { StateCorruptError } from '../../src/errors/state-errors.js';
import { StoreUnavailableError } from '../../src/errors/store-errors.js';
import { BulkRunner } from '../../src/control/bulk/bulk-runner.js';
import {
  bulkIndexKey,
  bulkKey,
  type BulkOperation,
} from '../../src/control/bulk/bulk-operation.js';
import { silentLogger } from '../../src/util/logger.js';
import { WorkerHeartbeat } from '../../src/worker/worker-heartbeat.js';
import { type ApiHarness, body, startApi } from './support/api-harness.js';

const approval = JSON.parse(
  readFileSync(new URL('../../examples/approval.json', import.meta.url), 'utf8'),
) as unknown;
const input = {
  id: 'EXP-7',
  requester: 'Bob',
  amount: 1,
  reason: 'r',
  approvers: ['alice@example.com'],
};

let api: ApiHarness;
beforeEach(async () => {
  api = await startApi();
});
afterEach(async () => {
  await api.close();
});

async function waiting(n: number, token?: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await api.fetch('/v1/executions?wait=10s', {
      method: 'POST',
      json: { flow: approval, input },
      ...(token ? { token } : {}),
    });
    const view = await body<{ executionId: string; status: string }>(res);
    expect(view.status).toBe('waiting');
    ids.push(view.executionId);
  }
  return ids;
}

/** The real client with an outage at the `n`th call of `method`; `calls()` counts every call. */
function outageAt(method: 'cancel' | 'start', n: number) {
  let calls = 0;
  const client = overriding(
    api.app.services.client,
    method,
    (real) =>
      ((...args: unknown[]) =>
        ++calls === n
          ? Promise.reject(new StoreUnavailableError('the store blinked'))
          : (real as (...a: unknown[]) => Promise<unknown>)(...args)) as never,
  );
  return { client, calls: () => calls };
}

async function statusOf(id: string): Promise<string> {
  return (await body<{ status: string }>(await api.fetch(`/v1/executions/${id}`))).status;
}

/** How many dead letters the admin key's list shows now. */
async function deadLetterCount(): Promise<number> {
  return (await body<{ items: unknown[] }>(await api.fetch('/v1/dead-letters'))).items.length;
}

/** How many audit entries of `action` the admin key's audit log shows now. */
async function audited(action: string): Promise<number> {
  const page = await body<{ items: Array<{ action: string }> }>(
    await api.fetch('/v1/audit?limit=500'),
  );
  return page.items.filter((entry) => entry.action === action).length;
}

describe('dead letters', () => {
  it('lists, replays and purges; a tenant sees only its own; purge needs a platform admin', async () => {
    await api.backends.queue.enqueue({
      v: 1,
      kind: 'run',
      executionId: 'ghost-1',
      tenantId: 'default',
    });
    await api.backends.queue.enqueue({
      v: 1,
      kind: 'run',
      executionId: 'ghost-2',
      tenantId: 'other',
    });
    await expect.poll(deadLetterCount, { timeout: 10_000 }).toBe(2);
    const page = await body<{
      items: Array<{ id: string; reason: string; executionId: string; tenantId: string }>;
    }>(await api.fetch('/v1/dead-letters'));
    expect(page.items.map((i) => i.reason)).toEqual(['unknown_execution', 'unknown_execution']);
    const admin = await api.key('admin', 'default');
    const mine = await body<{ items: Array<{ id: string; executionId: string }> }>(
      await api.fetch('/v1/dead-letters', { token: admin }),
    );
    expect(mine.items.map((i) => i.executionId)).toEqual(['ghost-1']);
    const theirs = page.items.find((i) => i.tenantId === 'other')!;
    expect(
      (await api.fetch(`/v1/dead-letters/${theirs.id}/replay`, { token: admin, method: 'POST' }))
        .status,
    ).toBe(404);
    expect((await api.fetch('/v1/dead-letters', { token: admin, method: 'DELETE' })).status).toBe(
      403,
    );
    // Its execution is not stored: a replay would only come back as a dead letter of its own.
    const hopeless = await api.fetch(`/v1/dead-letters/${mine.items[0]!.id}/replay`, {
      method: 'POST',
    });
    expect(hopeless.status).toBe(409);
    expect(await body(hopeless)).toMatchObject({
      code: 'conflict',
      detail: expect.stringMatching(/ghost-1, which is not stored.*unknown_execution/),
    });
    expect(await deadLetterCount()).toBe(2); // refused: the letter is still there
    expect(await audited('dead_letter.replay')).toBe(0);
    // Once the execution exists (say, restored), the same letter replays.
    const late = await api.fetch('/v1/executions?wait=10s', {
      method: 'POST',
      json: { flow: approval, input, executionId: 'ghost-1' },
    });
    expect(late.status).toBe(201);
    expect(
      (await api.fetch(`/v1/dead-letters/${mine.items[0]!.id}/replay`, { method: 'POST' })).status,
    ).toBe(202);
    expect(await audited('dead_letter.replay')).toBe(1);
    expect((await api.fetch('/v1/dead-letters/nope/replay', { method: 'POST' })).status).toBe(404);
    expect(await deadLetterCount()).toBe(1);
    const purged = await body<{ purged: number }>(
      await api.fetch('/v1/dead-letters', { method: 'DELETE' }),
    );
    expect(purged.purged).toBe(1);
    const left = await body<{ items: unknown[] }>(await api.fetch('/v1/dead-letters'));
    expect(left.items).toEqual([]);
  });

  it('a platform key acting for one tenant (X-Plaita-Tenant) sees and replays only its letters', async () => {
    for (const [executionId, tenantId] of [
      ['ghost-d', 'default'],
      ['ghost-o', 'other'],
    ] as const)
      await api.backends.queue.enqueue({ v: 1, kind: 'run', executionId, tenantId });
    await expect.poll(deadLetterCount, { timeout: 10_000 }).toBe(2);
    const asOther = { headers: { 'X-Plaita-Tenant': 'other' } };
    const page = await body<{ items: Array<{ id: string; executionId: string }> }>(
      await api.fetch('/v1/dead-letters', asOther),
    );
    expect(page.items.map((i) => i.executionId)).toEqual(['ghost-o']);
    const all = await body<{ items: Array<{ id: string; executionId: string }> }>(
      await api.fetch('/v1/dead-letters'),
    );
    const defaults = all.items.find((i) => i.executionId === 'ghost-d')!;
    expect(
      (await api.fetch(`/v1/dead-letters/${defaults.id}/replay`, { ...asOther, method: 'POST' }))
        .status,
    ).toBe(404);
    const replay = () =>
      api.fetch(`/v1/dead-letters/${page.items[0]!.id}/replay`, { ...asOther, method: 'POST' });
    expect((await replay()).status).toBe(409); // ghost-o is not stored
    const late = await api.fetch('/v1/executions?wait=10s', {
      ...asOther,
      method: 'POST',
      json: { flow: approval, input, executionId: 'ghost-o' },
    });
    expect(late.status).toBe(201);
    expect((await replay()).status).toBe(202);
  });
});

describe('dead-letter pages', () => {
  it('a tenant key pages through its own letters behind another tenant’s: none skipped, none twice', async () => {
    // Newest first: six of another tenant's, then six of ours. A page of 4 for our key reads 4
    // of theirs, then 2 of theirs and 2 of ours, then fills with 2 of the next 4 of ours.
    let total = 0;
    for (const tenantId of ['default', 'other']) {
      for (let i = 0; i < 6; i++)
        await api.backends.queue.enqueue({
          v: 1,
          kind: 'run',
          executionId: `ghost-${tenantId}-${i}`,
          tenantId,
        });
      total += 6;
      await expect
        .poll(
          async () =>
            (await body<{ items: unknown[] }>(await api.fetch('/v1/dead-letters?limit=500'))).items
              .length,
          { timeout: 10_000 },
        )
        .toBe(total);
    }
    const admin = await api.key('admin', 'default');
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = await body<{ items: Array<{ executionId: string }>; nextCursor: string | null }>(
        await api.fetch(`/v1/dead-letters?limit=4${query}`, { token: admin }),
      );
      seen.push(...page.items.map((i) => i.executionId));
      cursor = page.nextCursor;
      if (cursor === null) break;
    }
    expect([...seen].sort()).toEqual(Array.from({ length: 6 }, (_, i) => `ghost-default-${i}`));
  });

  it('a cursor it never handed out is a 400 naming query.cursor', async () => {
    const res = await api.fetch('/v1/dead-letters?cursor=garbage');
    expect(res.status).toBe(400);
    const problem = await body<{ code: string; errors: Array<{ path: string }> }>(res);
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors.map((e) => e.path)).toEqual(['query.cursor']);
  });
});

describe('small lists keep the list contract', () => {
  it('API keys page by limit and cursor like every list; a foreign cursor is a 400', async () => {
    for (let i = 0; i < 4; i++) await api.key('viewer', 'default');
    const all = await body<{ items: Array<{ id: string }>; nextCursor: string | null }>(
      await api.fetch('/v1/api-keys?limit=500'),
    );
    expect(all.items).toHaveLength(5); // the bootstrap admin key too
    expect(all.nextCursor).toBeNull();
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = await body<{ items: Array<{ id: string }>; nextCursor: string | null }>(
        await api.fetch(`/v1/api-keys?limit=2${query}`),
      );
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((k) => k.id));
      cursor = page.nextCursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual(all.items.map((k) => k.id));
    expect((await api.fetch('/v1/api-keys?cursor=garbage')).status).toBe(400);
    expect((await api.fetch('/v1/workers?limit=0')).status).toBe(400);
  });
});

describe('API keys made with an Idempotency-Key', () => {
  it('make one key: a repeat gets 409 naming it (its token is never shown twice)', async () => {
    const create = () =>
      api.fetch('/v1/api-keys', {
        method: 'POST',
        headers: { 'Idempotency-Key': 'ci-bot-1' },
        json: { name: 'ci-bot', role: 'operator' },
      });
    const answers = await Promise.all([create(), create(), create()]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const made = await body<{ key: { id: string }; token: string }>(
      answers.find((r) => r.status === 201)!,
    );
    const repeat = await body<{ code: string; detail: string }>(await create());
    expect(repeat).toMatchObject({ code: 'conflict' });
    expect(repeat.detail).toContain(`already made API key ${made.key.id}`);
    const keys = await body<{ items: Array<{ name: string }> }>(
      await api.fetch('/v1/api-keys?limit=500'),
    );
    expect(keys.items.filter((k) => k.name === 'ci-bot')).toHaveLength(1);
  });
});

describe('bulk operations', () => {
  it('cancels every waiting execution of a filter, and reports progress', async () => {
    const ids = await waiting(3);
    const res = await api.fetch('/v1/bulk-operations', {
      method: 'POST',
      json: { action: 'cancel', filter: { status: ['waiting'] } },
    });
    expect(res.status).toBe(202);
    const { id } = await body<{ id: string }>(res);
    const runner = new BulkRunner(api.app.services, { log: silentLogger });
    await runner.tick();
    const op = await body<{ status: string; matched: number; done: number; failed: number }>(
      await api.fetch(`/v1/bulk-operations/${id}`),
    );
    expect(op).toMatchObject({ status: 'completed', matched: 3, done: 3, failed: 0 });
    for (const exec of ids)
      await expect.poll(() => statusOf(exec), { timeout: 10_000 }).toBe('cancelled');
  });

  it('one sent again with its Idempotency-Key is the same operation, acting once', async () => {
    await waiting(2);
    const create = (key?: string) =>
      api.fetch('/v1/bulk-operations', {
        method: 'POST',
        ...(key ? { headers: { 'Idempotency-Key': key } } : {}),
        json: { action: 'cancel', filter: { status: ['waiting'] } },
      });
    const answers = await Promise.all([create('night-1'), create('night-1'), create('night-1')]);
    const ids = await Promise.all(answers.map(async (r) => (await body<{ id: string }>(r)).id));
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202]);
    expect(new Set(ids).size).toBe(1);
    // The first died before indexing it (the runner finds work through the index): a repeat
    // indexes it again.
    await api.app.services.control.delete(bulkIndexKey('default', ids[0]!));
    expect((await create('night-1')).status).toBe(202);
    await new BulkRunner(api.app.services, { log: silentLogger }).tick();
    const op = await body<{ status: string; done: number }>(
      await api.fetch(`/v1/bulk-operations/${ids[0]!}`),
    );
    expect(op).toMatchObject({ status: 'completed', done: 2 });
    expect((await create('night-1')).status).toBe(202); // later: still that one, done
    expect(await audited('bulk.cancel')).toBe(1);
    const other = await body<{ id: string }>(await create()); // no key: an operation of its own
    expect(other.id).not.toBe(ids[0]);
  });

  it('takes the status filter as the executions list does: a name or a comma-separated list', async () => {
    await waiting(2);
    const res = await api.fetch('/v1/bulk-operations', {
      method: 'POST',
      json: { action: 'cancel', filter: { status: 'waiting,queued' } },
    });
    expect(res.status).toBe(202);
    const { id } = await body<{ id: string }>(res);
    await new BulkRunner(api.app.services, { log: silentLogger }).tick();
    const op = await body<{ matched: number; done: number }>(
      await api.fetch(`/v1/bulk-operations/${id}`),
    );
    expect(op).toMatchObject({ matched: 2, done: 2 });
    const bad = await api.fetch('/v1/bulk-operations', {
      method: 'POST',
      json: { action: 'cancel', filter: { status: 'waiting,soon' } },
    });
    expect(bad.status).toBe(400);
    const problem = await body<{ code: string; errors: Array<{ path: string; message: string }> }>(
      bad,
    );
    expect(problem.code).toBe('invalid_request');
    // Named where it is wrong: the second status of the list, not "Invalid input" at the filter.
    expect(problem.errors).toEqual([
      { path: 'body.filter.status.1', message: expect.stringContaining('waiting') },
    ]);
  });

  it('by ids: an unknown id and a refused action count as failed', async () => {
    const [first] = await waiting(1);
    const { id } = await body<{ id: string }>(
      await api.fetch('/v1/bulk-operations', {
        method: 'POST',
        json: { action: 'retry', filter: { ids: [first!, 'missing-1'] } },
      }),
    );
    await new BulkRunner(api.app.services, { log: silentLogger }).tick();
    const op = await body<{
      matched: number;
      done: number;
      failed: number;
      failures: Array<{ executionId: string }>;
    }>(await api.fetch(`/v1/bulk-operations/${id}`));
    expect(op.done).toBe(0);
    expect(op.failed).toBe(2);
    expect(op.matched).toBe(2); // never fewer than done + failed
    expect(op.failures.map((f) => f.executionId).sort()).toEqual([first!, 'missing-1'].sort());
  });

  it('survives a restart: a runner that died mid-way is taken over once its lease expires', async () => {
    await waiting(2);
    const { id } = await body<{ id: string }>(
      await api.fetch('/v1/bulk-operations', {
        method: 'POST',
        json: { action: 'replay', filter: { status: ['waiting'] } },
      }),
    );
    // A runner that took the lease and died: its lease is held, then expires.
    const key = bulkKey('default', id);
    const record = await api.backends.control.get<BulkOperation>(key);
    await api.backends.control.replace(
      key,
      { ...record!.doc, status: 'running', lease: { owner: 'dead', until: Date.now() + 200 } },
      record!.version,
    );
    const survivor = new BulkRunner(api.app.services, { log: silentLogger });
    await survivor.tick();
    expect(
      (await body<{ status: string }>(await api.fetch(`/v1/bulk-operations/${id}`))).status,
    ).toBe('running');
    await new Promise((resolve) => setTimeout(resolve, 250));
    await survivor.tick();
    const op = await body<{ status: string; done: number }>(
      await api.fetch(`/v1/bulk-operations/${id}`),
    );
    expect(op).toMatchObject({ status: 'completed', done: 2 });
    const list = await body<{ items: unknown[] }>(await api.fetch('/v1/executions'));
    expect(list.items).toHaveLength(4);
  });

  it('an outage mid-batch loses no execution: those acted on may leave the filter, the rest are not skipped', async () => {
    const ids = await waiting(60);
    const { id } = await body<{ id: string }>(
      await api.fetch('/v1/bulk-operations', {
        method: 'POST',
        json: { action: 'cancel', filter: { status: ['waiting'] } },
      }),
    );
    const services = api.app.services;
    // The real client, with an outage injected at the 11th cancel of the batch.
    const { client } = outageAt('cancel', 11);
    const runner = new BulkRunner({ ...services, client }, { log: silentLogger });
    await expect(runner.tick()).rejects.toThrow('blinked');
    // The ten cancelled leave the `waiting` filter before the batch is listed again.
    await expect
      .poll(
        async () => (await Promise.all(ids.map(statusOf))).filter((s) => s === 'cancelled').length,
        {
          timeout: 10_000,
        },
      )
      .toBe(10);
    for (let i = 0; i < 5; i++) await runner.tick();
    const op = await body<{ status: string; matched: number; done: number; failed: number }>(
      await api.fetch(`/v1/bulk-operations/${id}`),
    );
    expect(op).toMatchObject({ status: 'completed', matched: 60, done: 60, failed: 0 });
    expect(op).not.toHaveProperty('handled');
    for (const exec of ids)
      await expect.poll(() => statusOf(exec), { timeout: 10_000 }).toBe('cancelled');
  }, 60_000);

  /** Makes the operation's lease expire now (its runner is taken to have died). */
  async function expireLease(id: string): Promise<void> {
    const key = bulkKey('default', id);
    const record = await api.backends.control.get<BulkOperation>(key);
    await api.backends.control.replace(
      key,
      { ...record!.doc, lease: { owner: record!.doc.lease!.owner, until: Date.now() - 1 } },
      record!.version,
    );
  }

  async function create(action: string, filter: unknown): Promise<string> {
    const res = await api.fetch('/v1/bulk-operations', {
      method: 'POST',
      json: { action, filter },
    });
    expect(res.status).toBe(202);
    return (await body<{ id: string }>(res)).id;
  }

  const progress = async (id: string) =>
    body<{
      status: string;
      matched: number;
      done: number;
      failed: number;
      failures: Array<{ executionId: string }>;
    }>(await api.fetch(`/v1/bulk-operations/${id}`));

  it('a runner that dies mid-batch is taken over without replaying anything twice', async () => {
    const ids = await waiting(5);
    const id = await create('replay', { ids });
    const services = api.app.services;
    let starts = 0;
    let release = (): void => undefined;
    const hung = new Promise<void>((resolve) => (release = resolve));
    // The first runner replays three, then hangs inside the fourth start (a stalled process).
    const client = overriding(
      services.client,
      'start',
      (start) =>
        async (...args) =>
          ++starts === 4 ? (await hung, start(...args)) : start(...args),
    );
    const stalled = new BulkRunner({ ...services, client }, { log: silentLogger });
    const first = stalled.tick();
    await expect.poll(() => starts).toBe(4);
    await expireLease(id);
    await new BulkRunner(services, { log: silentLogger }).tick();
    release(); // the stalled one wakes up: its start lands, its progress is refused
    await first;
    expect(await progress(id)).toMatchObject({
      status: 'completed',
      matched: 5,
      done: 5,
      failed: 0,
    });
    const all = await body<{ items: Array<{ executionId: string }> }>(
      await api.fetch('/v1/executions?limit=100'),
    );
    expect(all.items).toHaveLength(10); // five, and one replay of each
  });

  it('a retry interrupted by a takeover is never sent twice, and the record shows no internals', async () => {
    const failing = {
      flow_id: 'fails',
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        { type: 'assignment', id: 'a', output: '$F.nosuchfn(1)', next: 'e' },
        { type: 'end', id: 'e' },
      ],
    };
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api.fetch('/v1/executions?wait=10s', {
        method: 'POST',
        json: { flow: failing, input: {} },
      });
      const view = await body<{ executionId: string; status: string }>(res);
      expect(view.status).toBe('error');
      ids.push(view.executionId);
    }
    const id = await create('retry', { ids });
    const services = api.app.services;
    let retries = 0;
    let release = (): void => undefined;
    const hung = new Promise<void>((resolve) => (release = resolve));
    // The first runner sends its second retry, then stalls before hearing it was sent.
    const client = overriding(services.client, 'retry', (retry) => async (...args) => {
      await retry(...args);
      if (++retries === 2) await hung;
    });
    const stalled = new BulkRunner({ ...services, client }, { log: silentLogger });
    const first = stalled.tick();
    await expect.poll(() => retries).toBe(2);
    const during = await body<Record<string, unknown>>(
      await api.fetch(`/v1/bulk-operations/${id}`),
    );
    expect(during).not.toHaveProperty('inFlight');
    await expireLease(id);
    await new BulkRunner({ ...services, client }, { log: silentLogger }).tick();
    release();
    await first;
    expect(retries).toBe(3); // one per execution: the interrupted one was not sent again
    const op = await progress(id);
    expect(op).toMatchObject({ status: 'completed', matched: 3 });
    expect(op.done + op.failed).toBe(3);
  });

  it('stopping between executions gives the lease back at once: another server goes on', async () => {
    const ids = await waiting(4);
    const id = await create('cancel', { ids });
    const services = api.app.services;
    let cancels = 0;
    let runner: BulkRunner | null = null;
    const client = overriding(services.client, 'cancel', (cancel) => async (...args) => {
      const asked = await cancel(...args);
      if (++cancels === 2) void runner!.stop(); // SIGTERM while the second is acted on
      return asked;
    });
    runner = new BulkRunner({ ...services, client }, { log: silentLogger });
    await runner.tick();
    const key = bulkKey('default', id);
    const stored = (await api.backends.control.get<BulkOperation>(key))!.doc;
    expect(stored).toMatchObject({ lease: null, offset: 2, matched: 2, done: 2 });
    expect(stored).not.toHaveProperty('inFlight');
    await new BulkRunner(services, { log: silentLogger }).tick();
    expect(await progress(id)).toMatchObject({ status: 'completed', matched: 4, done: 4 });
  });

  it('by ids, an outage between a missing id and the rest counts each once; repeated ids once', async () => {
    const [a, b] = await waiting(2);
    const id = await create('cancel', { ids: [a!, 'missing-1', a!, b!] });
    const services = api.app.services;
    const { client, calls: cancels } = outageAt('cancel', 2);
    const runner = new BulkRunner({ ...services, client }, { log: silentLogger });
    await expect(runner.tick()).rejects.toThrow('blinked');
    await runner.tick();
    const op = await progress(id);
    expect(op).toMatchObject({ status: 'completed', matched: 3, done: 2, failed: 1 });
    expect(op.failures.map((f) => f.executionId)).toEqual(['missing-1']);
    expect(cancels()).toBe(3); // a, b (refused by the outage), b again
  });

  it('a filter replay cut short on its first page never replays its own replays', async () => {
    const ids = await waiting(5);
    const id = await create('replay', { status: ['waiting'] });
    const services = api.app.services;
    const { client } = outageAt('start', 3);
    const runner = new BulkRunner({ ...services, client }, { log: silentLogger });
    await expect(runner.tick()).rejects.toThrow('blinked');
    await runner.tick();
    expect(await progress(id)).toMatchObject({ status: 'completed', matched: 5, done: 5 });
    const all = await body<{ items: Array<{ executionId: string }> }>(
      await api.fetch('/v1/executions?limit=100'),
    );
    expect(all.items).toHaveLength(10);
    expect(all.items.filter((e) => ids.includes(e.executionId))).toHaveLength(5);
  });

  it('an outage on one operation’s executions does not hold up the next operation', async () => {
    const [blocked, free] = await waiting(2);
    const first = await create('cancel', { ids: [blocked!] });
    // Operations are taken in id order: the one to go on must come after the blocked one.
    let second = await create('cancel', { ids: [free!] });
    while (second < first) second = await create('cancel', { ids: [free!] });
    const services = api.app.services;
    const client = overriding(
      services.client,
      'cancel',
      (cancel) => (executionId, options) =>
        executionId === blocked
          ? Promise.reject(new StoreUnavailableError('its shard is down'))
          : cancel(executionId, options),
    );
    const runner = new BulkRunner({ ...services, client }, { log: silentLogger });
    await expect(runner.tick()).rejects.toThrow('its shard is down');
    // Acted on (cancelled, or found cancelled by an earlier operation of the loop above).
    expect(await progress(second)).toMatchObject({ status: 'completed', matched: 1 });
    expect((await progress(first)).status).toBe('running');
  });

  it('an execution that cannot be read fails alone; operations after it go on', async () => {
    const [good] = await waiting(1);
    const stuck = await create('cancel', { ids: ['unreadable', good!] });
    const services = api.app.services;
    const store = overriding(
      services.store,
      'load',
      (load) => (executionId, options) =>
        executionId === 'unreadable'
          ? Promise.reject(new StateCorruptError('unreadable: not a checkpoint'))
          : load(executionId, options),
    );
    const [other] = await waiting(1);
    const next = await create('cancel', { ids: [other!] });
    await new BulkRunner({ ...services, store }, { log: silentLogger }).tick();
    expect(await progress(stuck)).toMatchObject({ status: 'completed', done: 1, failed: 1 });
    expect(await progress(next)).toMatchObject({ status: 'completed', done: 1 });
  });

  it('another tenant cannot read it; a viewer cannot create one; a bad filter is 400', async () => {
    const { id } = await body<{ id: string }>(
      await api.fetch('/v1/bulk-operations', {
        method: 'POST',
        json: { action: 'cancel', filter: { flowId: 'x' } },
      }),
    );
    const other = await api.key('operator', 'other');
    expect((await api.fetch(`/v1/bulk-operations/${id}`, { token: other })).status).toBe(404);
    const viewer = await api.key('viewer', 'default');
    expect(
      (
        await api.fetch('/v1/bulk-operations', {
          token: viewer,
          method: 'POST',
          json: { action: 'cancel', filter: { flowId: 'x' } },
        })
      ).status,
    ).toBe(403);
    const bad = await api.fetch('/v1/bulk-operations', {
      method: 'POST',
      json: { action: 'explode', filter: {} },
    });
    expect(bad.status).toBe(400);
  });
});

describe('workers', () => {
  it('a beating worker is listed; a stopped one is gone', async () => {
    const heartbeat = new WorkerHeartbeat(
      api.backends.control,
      { workerId: 'w-test', concurrency: 7, inFlightCount: 2 },
      { version: '0.1.0', log: silentLogger, intervalMs: 1000 },
    ).start();
    await expect
      .poll(
        async () =>
          (await body<{ items: Array<{ id: string }> }>(await api.fetch('/v1/workers'))).items.map(
            (w) => w.id,
          ),
        { timeout: 5000 },
      )
      .toContain('w-test');
    const listed = await body<{
      items: Array<{ id: string; concurrency: number; inFlight: number; pid: number }>;
    }>(await api.fetch('/v1/workers'));
    expect(listed.items.find((w) => w.id === 'w-test')).toMatchObject({
      concurrency: 7,
      inFlight: 2,
      pid: process.pid,
    });
    await heartbeat.stop();
    const after = await body<{ items: Array<{ id: string }> }>(await api.fetch('/v1/workers'));
    expect(after.items.map((w) => w.id)).not.toContain('w-test');
  });

  it("a tenant's key sees no host, pid or in-flight count of the shared workers; a platform key does", async () => {
    const heartbeat = new WorkerHeartbeat(
      api.backends.control,
      { workerId: 'w-shared', concurrency: 8, inFlightCount: 3 },
      { version: '0.1.0', log: silentLogger, intervalMs: 1000 },
    ).start();
    try {
      const row = async (token: string, headers: Record<string, string> = {}) => {
        const res = await api.fetch('/v1/workers', { token, headers });
        expect(res.status).toBe(200);
        const page = await body<{ items: Array<Record<string, unknown>> }>(res);
        return page.items.find((w) => w.id === 'w-shared');
      };
      await expect.poll(() => row(api.adminToken), { timeout: 5000 }).toBeDefined();
      const shown = { concurrency: 8, version: '0.1.0' };
      const platform = { ...shown, host: hostname(), pid: process.pid, inFlight: 3 };
      const hidden = { ...shown, host: null, pid: null, inFlight: null };
      // Platform keys: the admin the server printed, and a platform viewer acting for a tenant.
      expect(await row(api.adminToken)).toMatchObject(platform);
      const platformViewer = await api.key('viewer', '*');
      expect(await row(platformViewer, { 'x-plaita-tenant': 'acme' })).toMatchObject(platform);
      // A tenant's viewer and admin: the rest of the row, those three null.
      for (const role of ['viewer', 'admin'] as const) {
        const seen = await row(await api.key(role, 'acme'));
        expect(seen).toMatchObject(hidden);
        expect(Object.keys(seen!).sort()).toEqual(
          Object.keys(platform).concat('id', 'startedAt', 'lastSeenAt').sort(),
        );
      }
    } finally {
      await heartbeat.stop();
    }
  });
});

describe('pageOfList', () => {
  it('in id order, resumes after an item that has gone since (a worker that stopped)', async () => {
    const { pageOfList } = await import('../../src/server/cursor.js');
    const ids = ['a', 'b', 'c', 'd'];
    const first = pageOfList(ids, (id) => id, 2, undefined, true);
    expect(first.items).toEqual(['a', 'b']);
    const gone = ['a', 'c', 'd']; // 'b' stopped beating
    expect(pageOfList(gone, (id) => id, 2, first.nextCursor ?? undefined, true).items).toEqual([
      'c',
      'd',
    ]);
    expect(() => pageOfList(gone, (id) => id, 2, first.nextCursor ?? undefined)).toThrow();
  });
});

describe('/metrics', () => {
  const exposition = () => Promise.resolve('# HELP plaita_demo a demo\nplaita_demo 1\n');

  it('needs a platform key: every tenant is in it, so a tenant key gets 403; a session cookie works like a key', async () => {
    const withMetrics = await startApi({ worker: false, app: { metrics: exposition } });
    try {
      expect((await withMetrics.fetch('/metrics', { token: null })).status).toBe(401);
      expect((await withMetrics.fetch('/metrics', { token: 'plt_nope_nope' })).status).toBe(401);
      const tenantViewer = await withMetrics.key('viewer', 't1');
      const refused = await withMetrics.fetch('/metrics', { token: tenantViewer });
      expect(refused.status).toBe(403);
      expect(await body(refused)).toMatchObject({
        code: 'forbidden',
        detail: expect.stringMatching(/platform key/) as unknown,
      });
      const platformViewer = await withMetrics.key('viewer', '*');
      const served = await withMetrics.fetch('/metrics', { token: platformViewer });
      expect(served.status).toBe(200);
      expect(await served.text()).toContain('plaita_demo 1');
      const session = await withMetrics.fetch('/v1/sessions', {
        method: 'POST',
        token: null,
        json: { apiKey: platformViewer },
      });
      const cookie = session.headers.get('set-cookie')?.split(';')[0] ?? '';
      expect(cookie).not.toBe('');
      const viaCookie = await withMetrics.fetch('/metrics', { token: null, headers: { cookie } });
      expect(viaCookie.status).toBe(200);
    } finally {
      await withMetrics.close();
    }
  });

  it('is held to the request limit like the API, and with --metrics-public needs no key', async () => {
    const limited = await startApi({
      worker: false,
      app: { metrics: exposition, rateLimit: { perSecond: 1, burst: 2 } },
    });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.fetch('/metrics')).status);
      expect(statuses).toContain(429);
    } finally {
      await limited.close();
    }
    const open = await startApi({
      worker: false,
      app: { metrics: exposition, metricsPublic: true },
    });
    try {
      expect((await open.fetch('/metrics', { token: null })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
