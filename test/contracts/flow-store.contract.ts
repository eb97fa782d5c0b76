/**
 * THE conformance suite of `FlowStore` (docs/durable-contract.md §3): run by a few lines per backend. The
 * factory returns a store (closed by the suite after each test); stores may share a backend,
 * the suite uses random flow ids and tenant ids.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FlowDefinitionError,
  FlowVersionConflictError,
} from '../../src/errors/flow-definition-errors.js';
import type { TenantScope } from '../../src/store/execution-store.js';
import type { FlowStore, StoredFlow } from '../../src/store/flow-store.js';
import { flowRecord, type FlowRecord } from '../../src/store/shared/flow-record.js';
import { canonicalJson, sha256Hex } from '../../src/util/canonical-json.js';
import type { Clock } from '../../src/util/clock.js';
import { FakeClock } from '../../src/util/fake-clock.js';

/** `options.clock`: the store's "now" (the clock case gives a FakeClock). */
export type FlowStoreFactory = (options?: { clock?: Clock }) => FlowStore | Promise<FlowStore>;

/** A definition as stored before flows had tenants: its identity, text and creation time. */
export interface LegacyFlow extends FlowRecord {
  /** Epoch ms. */
  createdAt: number;
}

/** A backend holding data written by the release before flows had tenants. */
export interface LegacyBackend {
  /** A store on it, with the current code (the first use of a SQL store migrates it). */
  open: FlowStoreFactory;
  /** Saves an execution of `tenantId` pinning `flowHash` (the execution store of the backend). */
  pin(tenantId: string, flowHash: string): Promise<void>;
}

export interface FlowStoreSuiteOptions {
  /** False for an in-process store whose instances share nothing (default true). */
  sharesBackend?: boolean;
  /**
   * Persistent backends: writes `flows` (in publishing order) directly in the layout before
   * flows had tenants (the SQL schema of migration 3, the Redis keys without a tenant), on a
   * backend of its own, and returns it.
   */
  legacy?: (flows: LegacyFlow[]) => Promise<LegacyBackend>;
}

/** Every call names its tenant; the suite's single-tenant tests use the default one. */
const DEFAULT: TenantScope = {};

function flowDocument(
  flowId: string,
  version: string | number,
  message = 'hi',
): Record<string, unknown> {
  return {
    flow_id: flowId,
    version,
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'end', type: 'end', result: { message } },
    ],
  };
}

const tenant = (name: string): { tenantId: string } => ({
  tenantId: `${name}-${randomUUID()}`,
});

/** The record a store returns for a legacy definition. */
function legacyStored(flow: LegacyFlow, document: Record<string, unknown>): StoredFlow {
  return {
    flowHash: flow.flowHash,
    flowId: flow.flowId,
    version: flow.version,
    document,
    createdAt: new Date(flow.createdAt).toISOString(),
  };
}

export function describeFlowStore(
  name: string,
  factory: FlowStoreFactory,
  options: FlowStoreSuiteOptions = {},
): void {
  describe(`FlowStore conformance: ${name}`, () => {
    let opened: FlowStore[] = [];
    const open = async (from: FlowStoreFactory = factory): Promise<FlowStore> => {
      const store = await from();
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      const closing = opened;
      opened = [];
      await Promise.all(closing.map((s) => s.close()));
    });

    it("a flow's createdAt is the store's clock, not the process's", async () => {
      const clock = new FakeClock(Date.UTC(2020, 0, 2, 3, 4, 5, 6));
      const store = await open(() => factory({ clock }));
      const stored = await store.put(flowDocument(`flow-${randomUUID()}`, 1), DEFAULT);
      expect(stored.createdAt).toBe('2020-01-02T03:04:05.006Z');
    });

    it('stores a document by its content hash and by flowId + version', async () => {
      const store = await open();
      const flowId = `flow-${randomUUID()}`;
      const document = flowDocument(flowId, 2);
      const stored = await store.put(document, DEFAULT);
      expect(stored).toMatchObject({
        flowHash: sha256Hex(canonicalJson(document)),
        flowId,
        version: '2',
        document,
      });
      expect(new Date(stored.createdAt).toISOString()).toBe(stored.createdAt);
      expect(await store.getByHash(stored.flowHash, DEFAULT)).toEqual(stored);
      expect(await store.getByVersion(flowId, '2', DEFAULT)).toEqual(stored);
      expect(await store.getByVersion(flowId, '3', DEFAULT)).toBeNull();
      expect(await store.getByHash('0'.repeat(64), DEFAULT)).toBeNull();
    });

    it('put is idempotent for the same content, whatever its key order', async () => {
      const store = await open();
      const flowId = `flow-${randomUUID()}`;
      const first = await store.put(flowDocument(flowId, '1'), DEFAULT);
      const reordered = { nodes: flowDocument(flowId, '1').nodes, version: '1', flow_id: flowId };
      expect(await store.put(reordered, DEFAULT)).toEqual(first);
    });

    it('different content under a published flowId + version rejects with FlowVersionConflictError and changes nothing', async () => {
      const store = await open();
      const flowId = `flow-${randomUUID()}`;
      const first = await store.put(flowDocument(flowId, '1'), DEFAULT);
      const changed = flowDocument(flowId, '1', 'changed');
      const error = await store.put(changed, DEFAULT).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlowVersionConflictError);
      expect(error).toMatchObject({ code: 'flow_version_conflict', retryable: false });
      expect(await store.getByVersion(flowId, '1', DEFAULT)).toEqual(first);
      expect(await store.getByHash(sha256Hex(canonicalJson(changed)), DEFAULT)).toBeNull();
    });

    it('version null finds the most recently published version', async () => {
      const store = await open();
      const flowId = `flow-${randomUUID()}`;
      await store.put(flowDocument(flowId, '2'), DEFAULT);
      await store.put(flowDocument(flowId, '10'), DEFAULT);
      const latest = await store.put(flowDocument(flowId, '3'), DEFAULT);
      expect(await store.getByVersion(flowId, null, DEFAULT)).toEqual(latest);
      await store.put(flowDocument(flowId, '2'), DEFAULT); // old content again: no new publication
      expect(await store.getByVersion(flowId, null, DEFAULT)).toEqual(latest);
      expect(await store.getByVersion(`flow-${randomUUID()}`, null, DEFAULT)).toBeNull();
    });

    it('reads the flow id from flow_id, flowId or id, and keeps documents without one by hash only', async () => {
      const store = await open();
      for (const key of ['flow_id', 'flowId', 'id']) {
        const flowId = `flow-${randomUUID()}`;
        const stored = await store.put({ [key]: flowId, version: '1', nodes: [] }, DEFAULT);
        expect(await store.getByVersion(flowId, '1', DEFAULT)).toEqual(stored);
      }
      const anonymous = await store.put({ nodes: [{ id: randomUUID(), type: 'start' }] }, DEFAULT);
      expect(anonymous).toMatchObject({ flowId: null, version: null });
      expect(await store.getByHash(anonymous.flowHash, DEFAULT)).toEqual(anonymous);
    });

    it('is immutable: changing a returned document changes nothing stored', async () => {
      const store = await open();
      const document = flowDocument(`flow-${randomUUID()}`, '1');
      const stored = await store.put(document, DEFAULT);
      (document.nodes as unknown[]).push('mutated');
      (stored.document.nodes as unknown[]).push('mutated too');
      expect((await store.getByHash(stored.flowHash, DEFAULT))!.document).toEqual(
        flowDocument(stored.flowId!, '1'),
      );
    });

    it.runIf(options.sharesBackend ?? true)(
      'a second store on the same backend sees what the first published',
      async () => {
        const [a, b] = [await open(), await open()];
        const scope = tenant('shared');
        const stored = await a.put(flowDocument(`flow-${randomUUID()}`, '1'), scope);
        expect(await b.getByHash(stored.flowHash, scope)).toEqual(stored);
        expect(await b.getByVersion(stored.flowId!, '1', scope)).toEqual(stored);
      },
    );

    describe('tenants', () => {
      it('two tenants publish the same flowId + version with different content, and each reads its own', async () => {
        const store = await open();
        const [alice, mallory] = [tenant('alice'), tenant('mallory')];
        const flowId = `shared-${randomUUID()}`;
        const hers = await store.put(flowDocument(flowId, '1', 'mallory'), mallory);
        const own = await store.put(flowDocument(flowId, '1', 'alice'), alice);
        expect(own.flowHash).not.toBe(hers.flowHash);
        expect(await store.getByVersion(flowId, '1', alice)).toEqual(own);
        expect(await store.getByVersion(flowId, null, alice)).toEqual(own);
        expect(await store.getByVersion(flowId, '1', mallory)).toEqual(hers);
        expect(await store.getByVersion(flowId, '1', DEFAULT)).toBeNull();
        // A conflict is within one tenant: the other's version is untouched.
        await expect(store.put(flowDocument(flowId, '1', 'mallory'), alice)).rejects.toBeInstanceOf(
          FlowVersionConflictError,
        );
        expect(await store.getByVersion(flowId, '1', mallory)).toEqual(hers);
      });

      it("the latest version is per tenant: another tenant's later publication never moves it", async () => {
        const store = await open();
        const [alice, mallory] = [tenant('alice'), tenant('mallory')];
        const flowId = `shared-${randomUUID()}`;
        await store.put(flowDocument(flowId, '1'), alice);
        const aliceLatest = await store.put(flowDocument(flowId, '2'), alice);
        const malloryLatest = await store.put(flowDocument(flowId, '9', 'evil'), mallory);
        expect(await store.getByVersion(flowId, null, alice)).toEqual(aliceLatest);
        expect(await store.getByVersion(flowId, '9', alice)).toBeNull();
        expect(await store.getByVersion(flowId, null, mallory)).toEqual(malloryLatest);
        expect(await store.getByVersion(flowId, '1', mallory)).toBeNull();
        expect(await store.getByVersion(flowId, null, tenant('carol'))).toBeNull();
      });

      it("a tenant cannot read another tenant's definition by hash, the default tenant's included", async () => {
        const store = await open();
        const [alice, bob] = [tenant('alice'), tenant('bob')];
        const hers = await store.put(flowDocument(`flow-${randomUUID()}`, '1'), alice);
        const theirs = await store.put(flowDocument(`flow-${randomUUID()}`, '1'), DEFAULT);
        expect(await store.getByHash(hers.flowHash, alice)).toEqual(hers);
        expect(await store.getByHash(hers.flowHash, bob)).toBeNull();
        expect(await store.getByHash(hers.flowHash, DEFAULT)).toBeNull();
        expect(await store.getByHash(theirs.flowHash, alice)).toBeNull();
        expect(await store.getByVersion(theirs.flowId!, '1', alice)).toBeNull();
      });

      it('the same content in two tenants is two independent records', async () => {
        const store = await open();
        const [alice, bob] = [tenant('alice'), tenant('bob')];
        const document = flowDocument(`flow-${randomUUID()}`, '1');
        const hers = await store.put(document, alice);
        await new Promise((resolve) => setTimeout(resolve, 5));
        const his = await store.put(document, bob);
        expect(his.flowHash).toBe(hers.flowHash);
        expect(his.createdAt).not.toBe(hers.createdAt); // bob's own publication, not alice's
        expect(await store.getByHash(hers.flowHash, alice)).toEqual(hers);
        expect(await store.getByHash(his.flowHash, bob)).toEqual(his);
        expect(await store.getByVersion(his.flowId!, '1', bob)).toEqual(his);
        expect(await store.getByHash(his.flowHash, tenant('carol'))).toBeNull();
      });

      it('tenant ids are matched exactly, separators and braces included', async () => {
        const store = await open();
        const base = randomUUID();
        const [a, b] = [{ tenantId: `${base}:x` }, { tenantId: base }];
        const flowId = `flow-${randomUUID()}`;
        await store.put(flowDocument(flowId, '1'), a);
        expect(await store.getByVersion(flowId, '1', b)).toBeNull();
        expect(await store.getByVersion(`x:${flowId}`, '1', b)).toBeNull();
        const braced = { tenantId: `{${base}}` };
        const stored = await store.put(flowDocument(flowId, '1', 'braced'), braced);
        expect(await store.getByVersion(flowId, '1', braced)).toEqual(stored);
        expect(await store.getByHash(stored.flowHash, a)).toBeNull();
      });

      it('a flow id or version no backend can store is a definition error naming it; nothing stored', async () => {
        const store = await open();
        const tenant = { tenantId: `t-${randomUUID()}` };
        for (const [document, path] of [
          [flowDocument('a\u0000b', '1'), 'flow_id'],
          [flowDocument(`flow-${randomUUID()}`, 'lone \ud800'), 'version'],
        ] as const) {
          const error = await store.put(document, tenant).then(
            () => null,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(FlowDefinitionError);
          expect((error as FlowDefinitionError).issues.map((i) => i.path)).toEqual([path]);
          expect(await store.getByHash(sha256Hex(canonicalJson(document)), tenant)).toBeNull();
        }
      });

      it('a tenant id no backend can store is refused by put and absent for reads', async () => {
        const store = await open();
        const document = flowDocument(`flow-${randomUUID()}`, '1');
        for (const tenantId of ['', 'a\u0000b', 'lone \ud800']) {
          await expect(store.put(document, { tenantId })).rejects.toBeInstanceOf(RangeError);
          expect(
            await store.getByVersion(document.flow_id as string, '1', { tenantId }),
          ).toBeNull();
          expect(
            await store.getByHash(sha256Hex(canonicalJson(document)), { tenantId }),
          ).toBeNull();
        }
      });
    });

    const legacy = options.legacy;
    describe.runIf(legacy !== undefined)('definitions from before flows had tenants', () => {
      const flowId = `flow-${randomUUID()}`;
      const documents = {
        one: flowDocument(flowId, '1'),
        two: flowDocument(flowId, '2'),
        other: flowDocument(`flow-${randomUUID()}`, '1'),
        anonymous: { nodes: [{ id: randomUUID(), type: 'start' }] },
      };
      const epoch = Date.UTC(2024, 0, 1);
      // Publishing order: flowId's latest is version 2, although `other` came after it.
      const rows = Object.fromEntries(
        Object.entries(documents).map(([key, document], i) => [
          key,
          { ...flowRecord(document), createdAt: epoch + i * 1000 },
        ]),
      ) as Record<keyof typeof documents, LegacyFlow>;
      const expected = (key: keyof typeof documents): StoredFlow =>
        legacyStored(rows[key], documents[key]);
      const setUp = (): Promise<LegacyBackend> =>
        legacy!([rows.one, rows.two, rows.other, rows.anonymous]);

      it('are read as the default tenant, by stores that open the old layout at once', async () => {
        const backend = await setUp();
        const [a, b] = await Promise.all([open(backend.open), open(backend.open)]);
        const [one, latest] = await Promise.all([
          a.getByVersion(flowId, '1', DEFAULT),
          b.getByVersion(flowId, null, DEFAULT),
        ]);
        expect(one).toEqual(expected('one'));
        expect(latest).toEqual(expected('two'));
        expect(await a.getByHash(rows.anonymous.flowHash, DEFAULT)).toEqual(expected('anonymous'));
        expect(await b.getByVersion(rows.other.flowId!, null, DEFAULT)).toEqual(expected('other'));
        const alice = tenant('alice');
        expect(await a.getByVersion(flowId, '1', alice)).toBeNull();
        expect(await a.getByVersion(flowId, null, alice)).toBeNull();
        expect(await a.getByHash(rows.one.flowHash, alice)).toBeNull();
      });

      it('keep their versions: conflicts, idempotent puts and the latest version carry on', async () => {
        const store = await open((await setUp()).open);
        await expect(
          store.put(flowDocument(flowId, '1', 'changed'), DEFAULT),
        ).rejects.toBeInstanceOf(FlowVersionConflictError);
        expect(await store.put(documents.one, DEFAULT)).toEqual(expected('one'));
        expect(await store.getByVersion(flowId, null, DEFAULT)).toEqual(expected('two'));
        const three = await store.put(flowDocument(flowId, '3'), DEFAULT);
        expect(await store.getByVersion(flowId, null, DEFAULT)).toEqual(three);
        expect(await store.getByVersion(flowId, '2', DEFAULT)).toEqual(expected('two'));
        // Another tenant publishes the same flowId + version freely.
        const alice = tenant('alice');
        const hers = await store.put(flowDocument(flowId, '1', 'alice'), alice);
        expect(await store.getByVersion(flowId, '1', alice)).toEqual(hers);
        expect(await store.getByVersion(flowId, '1', DEFAULT)).toEqual(expected('one'));
      });

      it('stay readable by hash to another tenant while one of its executions pins them, and only that way', async () => {
        const backend = await setUp();
        const store = await open(backend.open);
        const [alice, bob] = [tenant('alice'), tenant('bob')];
        expect(await store.getByHash(rows.one.flowHash, alice)).toBeNull();
        await backend.pin(alice.tenantId, rows.one.flowHash);
        expect(await store.getByHash(rows.one.flowHash, alice)).toEqual(expected('one'));
        expect(await store.getByVersion(flowId, '1', alice)).toBeNull();
        expect(await store.getByVersion(flowId, null, alice)).toBeNull();
        expect(await store.getByHash(rows.one.flowHash, bob)).toBeNull();
        expect(await store.getByHash(rows.two.flowHash, alice)).toBeNull();
      });
    });
  });
}
