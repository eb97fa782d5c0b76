import { FlowVersionConflictError } from '../../errors.js';
import type { FlowStore, StoredFlow } from '../flow-store.js';
import { flowRecord, storedFlow, type FlowRecord } from '../sql/flow-record.js';

interface Kept {
  record: FlowRecord;
  createdAt: number;
}

/** Flow definitions in process, kept as encoded text like every other store. */
export class MemoryFlowStore implements FlowStore {
  private readonly byHash = new Map<string, Kept>();
  /** Per flowId, hashes in publishing order (the last is the latest). */
  private readonly byFlowId = new Map<string, string[]>();
  private closed = false;

  put(document: Record<string, unknown>): Promise<StoredFlow> {
    return this.run(() => {
      const record = flowRecord(document);
      const existing = this.byHash.get(record.flowHash);
      if (existing !== undefined) return toStored(existing);
      const hashes = record.flowId === null ? [] : (this.byFlowId.get(record.flowId) ?? []);
      if (
        record.version !== null &&
        hashes.some((hash) => this.byHash.get(hash)?.record.version === record.version)
      ) {
        throw new FlowVersionConflictError(
          `flow ${record.flowId} version ${record.version} is already published with different content`,
        );
      }
      const kept = { record, createdAt: Date.now() };
      this.byHash.set(record.flowHash, kept);
      if (record.flowId !== null) this.byFlowId.set(record.flowId, [...hashes, record.flowHash]);
      return toStored(kept);
    });
  }

  getByHash(flowHash: string): Promise<StoredFlow | null> {
    return this.run(() => {
      const kept = this.byHash.get(flowHash);
      return kept === undefined ? null : toStored(kept);
    });
  }

  getByVersion(flowId: string, version: string | null): Promise<StoredFlow | null> {
    return this.run(() => {
      const kept = (this.byFlowId.get(flowId) ?? []).map((hash) => this.byHash.get(hash)!);
      const found = version === null ? kept.at(-1) : kept.find((k) => k.record.version === version);
      return found === undefined ? null : toStored(found);
    });
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  private run<T>(operation: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('MemoryFlowStore is closed'));
    // The executor turns a throw into a rejection.
    return new Promise<T>((resolve) => resolve(operation()));
  }
}

function toStored(kept: Kept): StoredFlow {
  const { flowHash, flowId, version, text } = kept.record;
  return storedFlow(flowHash, flowId, version, text, kept.createdAt);
}
