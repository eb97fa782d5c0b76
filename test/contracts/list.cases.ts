import { describe, expect, it } from 'vitest';
import type {
  ExecutionStore,
  ExecutionSummary,
  ListQuery,
} from '../../src/store/execution-store.js';
import type { ExecutionState, ExecutionStatus } from '../../src/state/execution-state.js';
import { type ExecutionStoreFactory, type Harness, useHarness } from './store-harness.js';

const at = (minute: number): string => new Date(Date.UTC(2030, 0, 1, 0, minute)).toISOString();

/** Follows nextCursor to the end and returns every id, in list order. */
async function listAll(
  store: ExecutionStore,
  query: ListQuery,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await store.list({ ...query, cursor });
    ids.push(...page.items.map((item) => item.executionId));
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== null && pages < 100);
  return { ids, pages };
}

/** Saves states built from `specs` (ids `e0`, `e1`, …) and returns them. */
async function seed(h: Harness, specs: Partial<ExecutionState>[]): Promise<ExecutionState[]> {
  const states = specs.map((spec, i) => h.state({ executionId: `e${i}`, ...spec }));
  for (const state of states) await h.store.save(state);
  return states;
}

/** The expected order: createdAt, then executionId, both descending. */
function newestFirst(states: ExecutionState[]): string[] {
  const key = (s: ExecutionState) => `${new Date(s.createdAt).toISOString()} ${s.executionId}`;
  return [...states].sort((a, b) => (key(a) < key(b) ? 1 : -1)).map((s) => s.executionId);
}

export function listCases(factory: ExecutionStoreFactory): void {
  describe('list', () => {
    const h = useHarness(factory);

    it('tenants() names each tenant with an execution once (the reaper walks them)', async () => {
      const other = `${h.tenant}-other`;
      await h.store.save(h.state());
      await h.store.save(h.state());
      await h.store.save(h.state({ tenantId: other }));
      const tenants = await h.store.tenants();
      // The store may be shared with other tests' tenants: only these two are this test's.
      expect(tenants.filter((t) => t === h.tenant || t === other).sort()).toEqual(
        [h.tenant, other].sort(),
      );
    });

    it('lists newest first, with summaries and never the context', async () => {
      const states = await seed(h, [
        { createdAt: at(1) },
        {
          createdAt: at(3),
          status: 'error',
          error: { code: 'x', name: 'E', message: 'm', retryable: false },
        },
        {
          createdAt: at(2),
          status: 'suspended',
          waiting: { nodeId: 'n', eventType: 'ev', filter: {}, dueAt: null },
        },
      ]);
      const page = await h.store.list({ tenantId: h.tenant });
      expect(page.items.map((i) => i.executionId)).toEqual(['e1', 'e2', 'e0']);
      expect(page.nextCursor).toBeNull();
      const summary: ExecutionSummary = {
        executionId: 'e1',
        tenantId: h.tenant,
        flowId: null,
        flowVersion: null,
        flowHash: null,
        status: 'error',
        createdAt: at(3),
        updatedAt: states[1]!.updatedAt,
        endedAt: null,
        version: 0,
        error: states[1]!.error,
        waiting: null,
      };
      expect(page.items[0]).toStrictEqual(summary);
      expect(page.items[1]!.waiting).toEqual(states[2]!.waiting);
      for (const item of page.items) expect(item).not.toHaveProperty('context');
    });

    it('a tenant never sees another tenant’s executions', async () => {
      await seed(h, [{ createdAt: at(1) }]);
      const other = `${h.tenant}-other`;
      await h.store.save(h.state({ executionId: 'theirs', tenantId: other }));
      expect((await h.store.list({ tenantId: h.tenant })).items.map((i) => i.executionId)).toEqual([
        'e0',
      ]);
      expect((await h.store.list({ tenantId: other })).items.map((i) => i.executionId)).toEqual([
        'theirs',
      ]);
      expect(await h.store.delete('theirs', { tenantId: h.tenant })).toBe(false);
      expect(await h.store.load('theirs', { tenantId: other })).not.toBeNull();
      await h.store.delete('theirs', { tenantId: other });
    });

    it('filters by status, several statuses, flowId, flowHash and time window', async () => {
      await seed(h, [
        { createdAt: at(1), status: 'running', flowId: 'a', flowHash: 'h1' },
        { createdAt: at(2), status: 'completed', flowId: 'b', flowHash: 'h2' },
        { createdAt: at(3), status: 'error', flowId: 'a', flowHash: 'h2' },
        { createdAt: at(4), status: 'running', flowId: 'b', flowHash: 'h1' },
      ]);
      const ids = async (query: Omit<ListQuery, 'tenantId'>) =>
        (await h.store.list({ tenantId: h.tenant, ...query })).items.map((i) => i.executionId);
      expect(await ids({ status: 'running' })).toEqual(['e3', 'e0']);
      expect(await ids({ status: ['error', 'completed'] })).toEqual(['e2', 'e1']);
      expect(await ids({ status: [] })).toEqual([]);
      expect(await ids({ flowId: 'a' })).toEqual(['e2', 'e0']);
      expect(await ids({ flowHash: 'h2' })).toEqual(['e2', 'e1']);
      expect(await ids({ flowId: 'b', status: 'running' })).toEqual(['e3']);
      expect(await ids({ createdAfter: at(1), createdBefore: at(4) })).toEqual(['e2', 'e1']);
      expect(await ids({ createdAfter: at(2), status: ['running', 'error'] })).toEqual([
        'e3',
        'e2',
      ]);
      expect(await ids({ flowId: 'none' })).toEqual([]);
    });

    it('a status change moves the execution between status filters', async () => {
      const [state] = await seed(h, [{ createdAt: at(1), status: 'running' }]);
      await h.store.save({ ...state!, status: 'completed', version: 1 });
      expect((await h.store.list({ tenantId: h.tenant, status: 'running' })).items).toEqual([]);
      expect(
        (await h.store.list({ tenantId: h.tenant, status: 'completed' })).items.map(
          (i) => i.version,
        ),
      ).toEqual([1]);
    });

    it('pages with a keyset cursor across executions sharing a createdAt, without gaps or repeats', async () => {
      const specs = Array.from({ length: 11 }, (_, i) => ({ createdAt: at(i < 7 ? 5 : i) }));
      const states = await seed(h, specs);
      const { ids, pages } = await listAll(h.store, { tenantId: h.tenant, limit: 3 });
      expect(ids).toEqual(newestFirst(states));
      expect(pages).toBe(4);
    });

    it('pages through a multi-status filter', async () => {
      const statuses: ExecutionStatus[] = ['running', 'completed', 'queued'];
      const states = await seed(
        h,
        Array.from({ length: 9 }, (_, i) => ({ createdAt: at(i % 4), status: statuses[i % 3]! })),
      );
      const { ids } = await listAll(h.store, {
        tenantId: h.tenant,
        status: ['running', 'completed'],
        limit: 2,
      });
      expect(ids).toEqual(newestFirst(states.filter((s) => s.status !== 'queued')));
    });

    it('returns at most `limit` items (default 50) and a cursor only when more remain', async () => {
      const states = await seed(
        h,
        Array.from({ length: 52 }, (_, i) => ({ createdAt: at(i) })),
      );
      const first = await h.store.list({ tenantId: h.tenant });
      expect(first.items).toHaveLength(50);
      const rest = await h.store.list({ tenantId: h.tenant, cursor: first.nextCursor });
      expect(rest.items).toHaveLength(2);
      expect(rest.nextCursor).toBeNull();
      const exact = await h.store.list({ tenantId: h.tenant, limit: 52 });
      expect(exact.items).toHaveLength(52);
      expect(exact.nextCursor).toBeNull();
      expect((await h.store.list({ tenantId: h.tenant, limit: 5000 })).items).toHaveLength(
        states.length,
      );
    });

    it('rejects a malformed limit, bound or cursor', async () => {
      await expect(h.store.list({ tenantId: h.tenant, limit: 0 })).rejects.toThrow(RangeError);
      await expect(h.store.list({ tenantId: h.tenant, createdAfter: 'soon' })).rejects.toThrow(
        RangeError,
      );
      // A foreign cursor is the caller's mistake, typed (a 400 over HTTP, exit 2 in the CLI).
      await expect(
        h.store.list({ tenantId: h.tenant, cursor: 'not-a-cursor' }),
      ).rejects.toMatchObject({ code: 'invalid_cursor', retryable: false });
    });
  });
}
