import { FlowVersionConflictError } from '../../errors/flow-definition-errors.js';
import type { TenantScope } from '../../store/execution-store.js';
import type { FlowStore, StoredFlow } from '../../store/flow-store.js';
import {
  flowRecord,
  flowTenant,
  putTenant,
  storedFlow,
  type FlowRecord,
} from '../../store/shared/flow-record.js';
import { type Clock, systemClock } from '../../util/clock.js';

interface Kept {
  record: FlowRecord;
  createdAt: number;
}

/** One tenant's definitions: nothing is shared between tenants. */
interface TenantFlows {
  byHash: Map<string, Kept>;
  /** Per flowId, hashes in publishing order (the last is the latest). */
  byFlowId: Map<string, string[]>;
}

/** Flow definitions in process, per tenant, kept as encoded text like every other store. */
export class MemoryFlowStore implements FlowStore {
  private readonly tenants = new Map<string, TenantFlows>();
  private closed = false;
  readonly #clock: Clock;

  /** `clock`: the store's "now", for `createdAt` (default the system clock). */
  constructor(options: { clock?: Clock } = {}) {
    this.#clock = options.clock ?? systemClock;
  }

  put(document: Record<string, unknown>, scope: TenantScope): Promise<StoredFlow> {
    return this.run(() => {
      const record = flowRecord(document);
      const { byHash, byFlowId } = this.writable(putTenant(scope));
      const existing = byHash.get(record.flowHash);
      if (existing !== undefined) return toStored(existing);
      const hashes = record.flowId === null ? [] : (byFlowId.get(record.flowId) ?? []);
      if (
        record.version !== null &&
        hashes.some((hash) => byHash.get(hash)?.record.version === record.version)
      ) {
        throw new FlowVersionConflictError(
          `flow ${record.flowId} version ${record.version} is already published with different content`,
        );
      }
      const kept = { record, createdAt: this.#clock.now() };
      byHash.set(record.flowHash, kept);
      if (record.flowId !== null) byFlowId.set(record.flowId, [...hashes, record.flowHash]);
      return toStored(kept);
    });
  }

  getByHash(flowHash: string, scope: TenantScope): Promise<StoredFlow | null> {
    return this.run(() => {
      const kept = this.tenant(scope)?.byHash.get(flowHash);
      return kept === undefined ? null : toStored(kept);
    });
  }

  getByVersion(
    flowId: string,
    version: string | null,
    scope: TenantScope,
  ): Promise<StoredFlow | null> {
    return this.run(() => {
      const flows = this.tenant(scope);
      if (flows === undefined) return null;
      const kept = (flows.byFlowId.get(flowId) ?? []).map((hash) => flows.byHash.get(hash)!);
      const found = version === null ? kept.at(-1) : kept.find((k) => k.record.version === version);
      return found === undefined ? null : toStored(found);
    });
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  /** The tenant's definitions, if it has any. */
  private tenant(scope: TenantScope): TenantFlows | undefined {
    const tenantId = flowTenant(scope);
    return tenantId === null ? undefined : this.tenants.get(tenantId);
  }

  private writable(tenantId: string): TenantFlows {
    let flows = this.tenants.get(tenantId);
    if (flows === undefined) {
      flows = { byHash: new Map(), byFlowId: new Map() };
      this.tenants.set(tenantId, flows);
    }
    return flows;
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
