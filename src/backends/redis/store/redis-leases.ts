import type {
  Lease,
  LeaseRequest,
  TenantScope,
  LeaseRenewal,
  LeaseRelease,
} from '../../../store/execution-store.js';
import { executionKey, renewalKey } from '../../../store/shared/stored-key.js';
import { assertStorableOwner, assertTtl } from '../../../store/shared/stored-text.js';
import type { RedisConnection } from '../redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import { SCRIPTS } from './redis-store-scripts.js';
import { ScriptBatch } from './script-batch.js';
import { integerAt, stringAt, tagged, unexpected } from './script-reply.js';

/**
 * Execution leases, kept in the execution's header hash (`leaseOwner`, `leaseGen`,
 * `leaseExpiresAt` epoch ms) so that `save-state.lua` checks the fence on the same key in the
 * same slot. Expiry is judged by the Redis server's clock (TIME in each script): workers whose
 * clocks disagree still agree on who holds a lease. The generation survives release and
 * expiry, so it strictly increases for the life of the execution.
 */
export class RedisLeases {
  /** Releases of one tick go as one script call (script-batch.ts). */
  readonly #releases: ScriptBatch;

  constructor(
    private readonly connection: RedisConnection,
    private readonly keys: RedisKeys,
  ) {
    this.#releases = new ScriptBatch(connection, SCRIPTS.releaseLeases, 'lease release');
  }

  /** Null when another owner holds an unexpired lease, or when there is no such execution (as every store). */
  async acquire(executionId: string, request: LeaseRequest): Promise<Lease | null> {
    assertStorableOwner(request.owner);
    assertTtl(request.ttlMs);
    const key = executionKey(executionId, request);
    if (key === null) return null;
    const { tenantId } = key;
    const header = this.keys.execution(tenantId, executionId).header;
    const raw = await this.connection.call(`lease acquisition of ${executionId}`, (client) =>
      SCRIPTS.acquireLease.run(client, [header], [request.owner, request.ttlMs]),
    );
    const { tag, values } = tagged(raw, 'acquire-lease');
    switch (tag) {
      case 'OK':
        return {
          executionId,
          tenantId,
          owner: request.owner,
          generation: integerAt(values, 0, 'acquire-lease'),
          expiresAt: integerAt(values, 1, 'acquire-lease'),
        };
      case 'HELD':
      case 'MISSING':
        return null;
      default:
        throw unexpected(raw, 'acquire-lease');
    }
  }

  async renew(executionId: string, lease: LeaseRenewal): Promise<boolean> {
    const key = renewalKey(executionId, lease);
    if (key === null) return false;
    const header = this.keys.execution(key.tenantId, executionId).header;
    const raw = await this.connection.call(`lease renewal of ${executionId}`, (client) =>
      SCRIPTS.renewLease.run(client, [header], [lease.owner, lease.generation, lease.ttlMs]),
    );
    return flag(raw, 'renew-lease');
  }

  async release(executionId: string, lease: LeaseRelease): Promise<void> {
    const key = executionKey(executionId, lease);
    if (key === null) return;
    const header = this.keys.execution(key.tenantId, executionId).header;
    const raw = await this.#releases.run({
      executionId,
      keys: [header],
      args: [lease.owner, lease.generation],
    });
    flag(raw, 'release-lease');
  }

  /** Lets the releases already asked for finish (a store's close). */
  settle(): Promise<void> {
    return this.#releases.settle();
  }

  async get(executionId: string, options: TenantScope): Promise<Lease | null> {
    const key = executionKey(executionId, options);
    if (key === null) return null;
    const { tenantId } = key;
    const header = this.keys.execution(tenantId, executionId).header;
    const raw = await this.connection.call(`lease read of ${executionId}`, (client) =>
      SCRIPTS.getLease.run(client, [header], []),
    );
    if (raw === null) return null;
    if (!Array.isArray(raw)) throw unexpected(raw, 'get-lease');
    const values = raw as unknown[];
    return {
      executionId,
      tenantId,
      owner: stringAt(values, 0, 'get-lease'),
      generation: integerAt(values, 1, 'get-lease'),
      expiresAt: integerAt(values, 2, 'get-lease'),
    };
  }
}

function flag(raw: unknown, script: string): boolean {
  if (raw !== 0 && raw !== 1) throw unexpected(raw, script);
  return raw === 1;
}
