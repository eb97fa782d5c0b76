/**
 * THE conformance suite of `FlowStore` (durable.md §3): run by a few lines per backend. The
 * factory returns a store (closed by the suite after each test); stores may share a backend,
 * the suite uses random flow ids.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { FlowVersionConflictError } from '../../src/errors.js';
import type { FlowStore } from '../../src/store/flow-store.js';
import { canonicalJson, sha256Hex } from '../../src/util/canonical-json.js';

export type FlowStoreFactory = () => FlowStore | Promise<FlowStore>;

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

export interface FlowStoreSuiteOptions {
  /** False for an in-process store whose instances share nothing (default true). */
  sharesBackend?: boolean;
}

export function describeFlowStore(
  name: string,
  factory: FlowStoreFactory,
  options: FlowStoreSuiteOptions = {},
): void {
  describe(`FlowStore conformance: ${name}`, () => {
    let opened: FlowStore[] = [];
    const open = async (): Promise<FlowStore> => {
      const store = await factory();
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      const closing = opened;
      opened = [];
      await Promise.all(closing.map((s) => s.close()));
    });

    it('stores a document by its content hash and by flowId + version', async () => {
      const store = await open();
      const flowId = `flow-${randomUUID()}`;
      const document = flowDocument(flowId, 2);
      const stored = await store.put(document);
      expect(stored).toMatchObject({
        flowHash: sha256Hex(canonicalJson(document)),
        flowId,
        version: '2',
        document,
      });
      expect(new Date(stored.createdAt).toISOString()).toBe(stored.createdAt);
      expect(await store.getByHash(stored.flowHash)).toEqual(stored);
      expect(await store.getByVersion(flowId, '2')).toEqual(stored);
      expect(await store.getByVersion(flowId, '3')).toBeNull();
      expect(await store.getByHash('0'.repeat(64))).toBeNull();
    });

    it('put is idempotent for the same content, whatever its key order', async () => {
      const store = await open();
      const flowId = `flow-${randomUUID()}`;
      const first = await store.put(flowDocument(flowId, '1'));
      const reordered = { nodes: flowDocument(flowId, '1').nodes, version: '1', flow_id: flowId };
      expect(await store.put(reordered)).toEqual(first);
    });

    it('different content under a published flowId + version rejects with FlowVersionConflictError and changes nothing', async () => {
      const store = await open();
      const flowId = `flow-${randomUUID()}`;
      const first = await store.put(flowDocument(flowId, '1'));
      const error = await store.put(flowDocument(flowId, '1', 'changed')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlowVersionConflictError);
      expect(error).toMatchObject({ code: 'flow_version_conflict', retryable: false });
      expect(await store.getByVersion(flowId, '1')).toEqual(first);
    });

    it('version null finds the most recently published version', async () => {
      const store = await open();
      const flowId = `flow-${randomUUID()}`;
      await store.put(flowDocument(flowId, '2'));
      await store.put(flowDocument(flowId, '10'));
      const latest = await store.put(flowDocument(flowId, '3'));
      expect(await store.getByVersion(flowId, null)).toEqual(latest);
      expect(await store.getByVersion(`flow-${randomUUID()}`, null)).toBeNull();
    });

    it('reads the flow id from flow_id, flowId or id, and keeps documents without one by hash only', async () => {
      const store = await open();
      for (const key of ['flow_id', 'flowId', 'id']) {
        const flowId = `flow-${randomUUID()}`;
        const stored = await store.put({ [key]: flowId, version: '1', nodes: [] });
        expect(await store.getByVersion(flowId, '1')).toEqual(stored);
      }
      const anonymous = await store.put({ nodes: [{ id: randomUUID(), type: 'start' }] });
      expect(anonymous).toMatchObject({ flowId: null, version: null });
      expect(await store.getByHash(anonymous.flowHash)).toEqual(anonymous);
    });

    it('is immutable: changing a returned document changes nothing stored', async () => {
      const store = await open();
      const document = flowDocument(`flow-${randomUUID()}`, '1');
      const stored = await store.put(document);
      (document.nodes as unknown[]).push('mutated');
      (stored.document.nodes as unknown[]).push('mutated too');
      expect((await store.getByHash(stored.flowHash))!.document).toEqual(
        flowDocument(stored.flowId!, '1'),
      );
    });

    it.runIf(options.sharesBackend ?? true)(
      'a second store on the same backend sees what the first published',
      async () => {
        const [a, b] = [await open(), await open()];
        const stored = await a.put(flowDocument(`flow-${randomUUID()}`, '1'));
        expect(await b.getByHash(stored.flowHash)).toEqual(stored);
      },
    );
  });
}
