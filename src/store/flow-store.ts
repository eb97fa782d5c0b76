import type { TenantScope } from './execution-store.js';

/** A stored flow definition: immutable once written (docs/durable-contract.md §3). */
export interface StoredFlow {
  /** SHA-256 of the canonical JSON of `document`. */
  flowHash: string;
  flowId: string | null;
  version: string | null;
  /** The parsed flow document as published. */
  document: Record<string, unknown>;
  createdAt: string;
}

/**
 * Flow definitions beside the executions, on the same backend: by content hash, and by
 * `flowId` + `version`. An execution pins (its tenant, the hash it started with) and always
 * resumes with exactly that definition.
 *
 * Every definition belongs to one tenant (`scope.tenantId`, default `default`; the scope is
 * required so that no call can forget it). Tenants share nothing: the same `flowId` +
 * `version`, even the same content, exists independently in each tenant that publishes it, and
 * a tenant never reads another tenant's definitions, by version or by hash — knowing a hash
 * grants nothing. One exception bridges the upgrade that gave flows a tenant: definitions
 * published before belong to `default`, and another tenant reads one BY HASH while one of its
 * executions pins that hash (so executions started before the upgrade keep resuming). Memory
 * stores hold nothing from before and never take it.
 */
export interface FlowStore {
  /**
   * Stores the document in the tenant, atomically: afterwards it is readable by hash and, when
   * it names a `flowId`, published under it (and its `version`, if any) as the tenant's most
   * recent publication of that flow. Idempotent for the same content (returns the first
   * record; putting it again is no new publication). Rejects with FlowVersionConflictError when
   * the tenant already published other content under that `flowId` + `version`; nothing is
   * written then. Other tenants' publications never conflict.
   */
  put(document: Record<string, unknown>, scope: TenantScope): Promise<StoredFlow>;
  /** The tenant's definition with this content hash, or null. */
  getByHash(flowHash: string, scope: TenantScope): Promise<StoredFlow | null>;
  /**
   * The tenant's definition published as `flowId` + `version`, or null. `version` null → the
   * tenant's most recently published version of `flowId`.
   */
  getByVersion(
    flowId: string,
    version: string | null,
    scope: TenantScope,
  ): Promise<StoredFlow | null>;
  close(): Promise<void>;
}
