import { FlowVersionConflictError } from '../../../errors/flow-definition-errors.js';
import { StateCorruptError } from '../../../errors/state-errors.js';
import { DEFAULT_TENANT, type TenantScope } from '../../../store/execution-store.js';
import type { FlowStore, StoredFlow } from '../../../store/flow-store.js';
import {
  flowRecord,
  lookupTenant,
  putTenant,
  storedFlow,
  type FlowRecord,
} from '../../../store/shared/flow-record.js';
import { RedisConnection, type RedisTarget } from '../redis-connection.js';
import type { RedisStoreOptions } from './redis-execution-store.js';
import { RedisKeys } from './redis-keys.js';
import { SCRIPTS } from './redis-store-scripts.js';
import { tagged, unexpected } from './script-reply.js';
import { type Clock, systemClock } from '../../../util/clock.js';

/** The four fields of a stored document, in put-flow.lua's order. */
type RecordFields = [text: string, flowId: string, version: string, createdAt: string];

/** What the keys from before flows had tenants say about a document `default` puts. */
interface LegacyPublication {
  /** The hash published there under the document's flowId + version, if any. */
  versionHash: string | null;
  /** This content was published there: putting it again is no new publication. */
  published: boolean;
  /** Its record there, kept (createdAt included) when it moves to the tenant's keys. */
  record: RecordFields | null;
}

const NO_LEGACY: LegacyPublication = { versionHash: null, published: false, record: null };

/**
 * Flow definitions on Redis, per tenant, beside the executions (docs/durable-contract.md §3):
 *   `<prefix>:{<tenant>}:flowdoc:<flowHash>`  hash: `text` (the document through the codec),
 *                                             `flowId`, `version` (JSON, so null survives),
 *                                             `createdAt` (epoch ms)
 *   `<prefix>:{<tenant>}:flowid:<flowId>`     hash: `v:<version>` → flowHash, `c:<flowHash>` → 1,
 *                                             `latest` → flowHash
 * Both carry the tenant's hash tag, so `put` is one script (`put-flow.lua`): the document is
 * stored and published together or, on a version conflict, not at all.
 *
 * Keys written before flows had tenants (`<prefix>:flowdoc:{<flowHash>}`,
 * `<prefix>:flowid:{<flowId>}`) are not moved (Redis has no migration step, and nothing here
 * may SCAN): they are tenant `default`'s, read where its own keys have nothing, never written.
 * - A hash, a version or `latest` missing from `default`'s keys is looked up in them.
 * - `default`'s `put` treats a version published there as published (a conflict for other
 *   content) and content published there as no new publication (`latest` stays), keeping its
 *   record. That check precedes the script: it is exact once no process of the previous
 *   release writes those keys any more (they are then frozen).
 * - Another tenant reads a `default` document by hash while one of its executions pins it (its
 *   flow-hash listing index names it), so executions started before the upgrade keep resuming.
 */
export class RedisFlowStore implements FlowStore {
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #clock: Clock;

  constructor(target: RedisTarget, options: RedisStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#keys = new RedisKeys(options.prefix ?? 'plaita', options.indexPartitions ?? 1);
    this.#connection = new RedisConnection(target, options, 'RedisFlowStore');
  }

  async put(document: Record<string, unknown>, scope: TenantScope): Promise<StoredFlow> {
    const record = flowRecord(document);
    const tenantId = putTenant(scope);
    const { flowHash, flowId, version } = record;
    const legacy = tenantId === DEFAULT_TENANT ? await this.#legacyPublication(record) : NO_LEGACY;
    if (version !== null && legacy.versionHash !== null && legacy.versionHash !== flowHash)
      throw conflict(flowId, version);
    const keys = this.#keys.flows(tenantId);
    const fields: RecordFields = legacy.record ?? [
      record.text,
      JSON.stringify(flowId),
      JSON.stringify(version),
      String(this.#clock.now()),
    ];
    const raw = await this.#connection.call(`flow put of ${flowHash}`, (client) =>
      SCRIPTS.putFlow.run(
        client,
        flowId === null
          ? [keys.document(flowHash)]
          : [keys.document(flowHash), keys.versions(flowId)],
        [
          flowHash,
          version === null ? '0' : '1',
          version ?? '',
          legacy.published ? '1' : '0',
        ].concat(fields),
      ),
    );
    const { tag, values } = tagged(raw, 'put-flow');
    if (tag === 'CONFLICT') throw conflict(flowId, version ?? '');
    if (tag !== 'OK') throw unexpected(raw, 'put-flow');
    const [text, storedId, storedVersion, createdAt] = values;
    return toStoredFlow(flowHash, { text, flowId: storedId, version: storedVersion, createdAt });
  }

  async getByHash(flowHash: string, scope: TenantScope): Promise<StoredFlow | null> {
    const tenantId = lookupTenant(flowHash, null, scope);
    if (tenantId === null) return null;
    const own = await this.#document(this.#keys.flows(tenantId).document(flowHash), flowHash);
    if (own !== null) return own;
    if (tenantId === DEFAULT_TENANT)
      return this.#document(this.#keys.legacyFlows.document(flowHash), flowHash);
    // Each index partition's flow-hash index alone: one key per command, any slot.
    const pinned = await this.#connection.call(`flow pin check of ${flowHash}`, (client) =>
      Promise.all(
        Array.from({ length: this.#keys.indexPartitions }, (_, part) =>
          client.exists(this.#keys.tenantIndex(tenantId, part).hash(flowHash)),
        ),
      ),
    );
    return pinned.every((n) => n === 0)
      ? null
      : this.getByHash(flowHash, { tenantId: DEFAULT_TENANT });
  }

  async getByVersion(
    flowId: string,
    version: string | null,
    scope: TenantScope,
  ): Promise<StoredFlow | null> {
    const tenantId = lookupTenant(flowId, version, scope);
    if (tenantId === null) return null;
    const field = version === null ? 'latest' : `v:${version}`;
    const lookup = (key: string): Promise<string | null> =>
      this.#connection.call(`flow lookup of ${flowId}`, (client) => client.hget(key, field));
    let flowHash = await lookup(this.#keys.flows(tenantId).versions(flowId));
    if (flowHash === null && tenantId === DEFAULT_TENANT)
      flowHash = await lookup(this.#keys.legacyFlows.versions(flowId));
    return flowHash === null ? null : this.getByHash(flowHash, { tenantId });
  }

  close(): Promise<void> {
    return this.#connection.close();
  }

  async #document(key: string, flowHash: string): Promise<StoredFlow | null> {
    const fields = await this.#connection.call(`flow read of ${flowHash}`, (client) =>
      client.hgetall(key),
    );
    return Object.keys(fields).length === 0 ? null : toStoredFlow(flowHash, fields);
  }

  #legacyPublication({ flowHash, flowId, version }: FlowRecord): Promise<LegacyPublication> {
    const legacy = this.#keys.legacyFlows;
    return this.#connection.call(`legacy flow check of ${flowHash}`, async (client) => {
      const [fields, [versionHash, published]] = await Promise.all([
        client.hgetall(legacy.document(flowHash)),
        flowId === null
          ? [null, null]
          : client.hmget(legacy.versions(flowId), `v:${version ?? ''}`, `c:${flowHash}`),
      ]);
      const { text, flowId: id, version: v, createdAt } = fields;
      const complete =
        text !== undefined && id !== undefined && v !== undefined && createdAt !== undefined;
      return {
        versionHash: version === null ? null : (versionHash ?? null),
        published: published !== null && published !== undefined,
        record: complete ? [text, id, v, createdAt] : null,
      };
    });
  }
}

function conflict(flowId: string | null, version: string): FlowVersionConflictError {
  return new FlowVersionConflictError(
    `flow ${flowId} version ${version} is already published with different content`,
  );
}

function toStoredFlow(flowHash: string, fields: Record<string, unknown>): StoredFlow {
  const { text, flowId, version, createdAt } = fields;
  if (
    typeof text !== 'string' ||
    typeof flowId !== 'string' ||
    typeof version !== 'string' ||
    typeof createdAt !== 'string'
  ) {
    throw new StateCorruptError(`stored flow ${flowHash} is incomplete`);
  }
  try {
    return storedFlow(
      flowHash,
      JSON.parse(flowId) as string | null,
      JSON.parse(version) as string | null,
      text,
      Number(createdAt),
    );
  } catch (error) {
    if (error instanceof StateCorruptError) throw error;
    throw new StateCorruptError(
      `stored flow ${flowHash} cannot be decoded: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
