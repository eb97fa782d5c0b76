import { crc16 } from '../key-slot.js';
import type { ExecutionStatus } from '../../../state/execution-state.js';

/**
 * Every Redis key the stores use is built here, and nowhere else.
 *
 * Per execution (one hash tag, so every script touches one slot and the layout runs on Redis
 * Cluster unchanged):
 *   `<prefix>:{<tenant>:<executionId>}:h`      hash: header text, summary, sizes, lease
 *   `<prefix>:{<tenant>:<executionId>}:nodes`  hash: `$NODE` id → encoded result
 * Per tenant (one hash tag per tenant: an index update is one same-slot script):
 *   `<prefix>:{<tenant>}:idx:all`, `…:idx:status:<status>`, `…:idx:flow:<flowId>`,
 *   `…:idx:hash:<flowHash>`                     sorted sets, member executionId, score createdAt ms
 *   With `indexPartitions: N > 1` the same keys exist once per partition, tagged
 *   `{<tenant>:%idx<i>of<N>}` (`%idx` is no escape the parts can produce, so no execution
 *   shares the tag): an execution is indexed in partition CRC16(executionId) mod N, and `list`
 *   merges the partitions. One partition = the keys above (existing data keeps working).
 * Global:
 *   `<prefix>:expiring`                         sorted set of terminal executions by expiry ms
 *   `<prefix>:index-layout`                     string: the N the listing indexes were built with
 *   `<prefix>:tenants`                          set: every tenant written to (its own slot)
 * Flow store, per tenant (the tenant's hash tag: one script stores and publishes a flow):
 *   `<prefix>:{<tenant>}:flowdoc:<flowHash>`    hash: the stored flow (see put-flow.lua)
 *   `<prefix>:{<tenant>}:flowid:<flowId>`       hash: `v:<version>` → flowHash, `latest` → flowHash
 * Flow store before flows had tenants (read as tenant `default`'s, never written):
 *   `<prefix>:flowdoc:{<flowHash>}`, `<prefix>:flowid:{<flowId>}`  same fields
 *
 * Components are escaped (`%`, `{`, `}`, `:` → `%XX`) so a tenant or id can neither end a hash
 * tag early nor make two different (tenant, id) pairs build the same key; ordinary ids stay
 * readable in `redis-cli`.
 */
export class RedisKeys {
  constructor(
    readonly prefix: string,
    readonly indexPartitions = 1,
  ) {
    if (prefix === '' || /[{}]/.test(prefix)) {
      throw new RangeError(
        `Redis key prefix must be non-empty without "{" or "}", got ${JSON.stringify(prefix)}`,
      );
    }
    if (!Number.isInteger(indexPartitions) || indexPartitions < 1 || indexPartitions > 1024)
      throw new RangeError(
        `indexPartitions must be an integer from 1 to 1024, got ${indexPartitions}`,
      );
  }

  /** The index partition an execution's entries live in (always 0 with one partition). */
  indexPartition(executionId: string): number {
    return this.indexPartitions === 1 ? 0 : crc16(executionId) % this.indexPartitions;
  }

  execution(tenantId: string, executionId: string): ExecutionKeys {
    const base = `${this.prefix}:{${escapeKeyPart(tenantId)}:${escapeKeyPart(executionId)}}`;
    return { header: `${base}:h`, nodes: `${base}:nodes` };
  }

  /** The listing indexes of one tenant's index partition `part` (see the layout above). */
  tenantIndex(tenantId: string, part = 0): TenantIndexKeys {
    const tag =
      this.indexPartitions === 1
        ? escapeKeyPart(tenantId)
        : `${escapeKeyPart(tenantId)}:%idx${part}of${this.indexPartitions}`;
    const base = `${this.prefix}:{${tag}}:idx`;
    return {
      all: `${base}:all`,
      status: (status) => `${base}:status:${status}`,
      flow: (flowId) => `${base}:flow:${escapeKeyPart(flowId)}`,
      hash: (flowHash) => `${base}:hash:${escapeKeyPart(flowHash)}`,
    };
  }

  get expiring(): string {
    return `${this.prefix}:expiring`;
  }

  /** `<prefix>:tenants`: set of every tenant a store wrote an execution for (the reaper's list). */
  get tenants(): string {
    return `${this.prefix}:tenants`;
  }

  get indexLayout(): string {
    return `${this.prefix}:index-layout`;
  }

  /**
   * SCAN patterns (the offline rebuild's only): every listing-index key of any layout, and every
   * execution's header key. They match loosely (`*` crosses braces): the `is…` methods decide.
   */
  get indexKeyPattern(): string {
    return `${this.#globPrefix}:{*}:idx:*`;
  }

  get headerKeyPattern(): string {
    return `${this.#globPrefix}:{*}:h`;
  }

  get #globPrefix(): string {
    return this.prefix.replace(/[*?[\]\\]/g, '\\$&');
  }

  /**
   * Whether `key` is a listing-index key of THIS layout (N partitions), or null when it is no
   * listing-index key at all.
   */
  isIndexKeyOfLayout(key: string): boolean | null {
    const start = `${this.prefix}:{`;
    if (!key.startsWith(start)) return null;
    const close = key.indexOf('}', start.length);
    if (close < 0 || !key.startsWith(':idx:', close + 1)) return null;
    // Escaped parts hold no `:` or `{`; `%idx` cannot come from escaping (`%` → `%25`).
    const layout = /^[^:{]+(?::%idx(\d+)of(\d+))?$/.exec(key.slice(start.length, close));
    if (layout === null) return null;
    return (layout[2] === undefined ? 1 : Number(layout[2])) === this.indexPartitions;
  }

  /** `<prefix>:{<tenant>:<executionId>}:h`, exactly. */
  isExecutionHeaderKey(key: string): boolean {
    const start = `${this.prefix}:{`;
    if (!key.startsWith(start) || !key.endsWith('}:h')) return false;
    // Escaped parts hold no braces or colons: one colon inside is (tenant, id), a control tag has two.
    return /^[^{}:]+:[^{}:]+$/.test(key.slice(start.length, -3));
  }

  flows(tenantId: string): FlowKeys {
    const base = `${this.prefix}:{${escapeKeyPart(tenantId)}}`;
    return {
      document: (flowHash) => `${base}:flowdoc:${escapeKeyPart(flowHash)}`,
      versions: (flowId) => `${base}:flowid:${escapeKeyPart(flowId)}`,
    };
  }

  /** The flow keys written before flows had tenants: tenant `default`'s, read only. */
  get legacyFlows(): FlowKeys {
    return {
      document: (flowHash) => `${this.prefix}:flowdoc:{${escapeKeyPart(flowHash)}}`,
      versions: (flowId) => `${this.prefix}:flowid:{${escapeKeyPart(flowId)}}`,
    };
  }
}

export interface FlowKeys {
  document(flowHash: string): string;
  versions(flowId: string): string;
}

export interface ExecutionKeys {
  header: string;
  nodes: string;
}

export interface TenantIndexKeys {
  all: string;
  status(status: ExecutionStatus): string;
  flow(flowId: string): string;
  hash(flowHash: string): string;
}

const KEY_SPECIAL = /[%{}:]/;

export function escapeKeyPart(part: string): string {
  // Nearly every id escapes to itself: a test is cheaper than a replace with a callback.
  if (!KEY_SPECIAL.test(part)) return part;
  return part.replace(
    /[%{}:]/g,
    (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'),
  );
}
