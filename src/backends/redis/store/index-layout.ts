import type { Cluster, Redis } from 'ioredis';
import { StoreConfigurationError } from '../../../errors/store-errors.js';
import type { RedisClient, RedisConnection } from '../redis-connection.js';
import { decodeSummary } from '../../../store/shared/execution-row.js';
import type { ExecutionSummary } from '../../../store/execution-store.js';
import type { ExecutionIndex } from './execution-index.js';
import type { RedisKeys } from './redis-keys.js';

/**
 * The listing indexes' layout (how many partitions each tenant's indexes are split over) is
 * recorded under `<prefix>:index-layout`. Processes configured with another N would read and
 * write other keys (the N is in their hash tags): lists would silently come back empty and new
 * entries would land where nobody reads them. So a mismatch is refused, typed, naming the way
 * out; `rebuildIndexes` is that way out (docs/scaling.md).
 *
 * Writers record it (`record`: `SET NX`, before a store's first index write), readers only
 * compare: an ad-hoc `plaita list` with the wrong N can never record its N over the fleet's. A
 * store older than the record is recorded by its first writer after the upgrade (the fleet's
 * N); until then a reader finds no record and is not refused. One named key: no SCAN (only
 * the offline rebuild scans).
 */
export async function checkIndexLayout(
  connection: RedisConnection,
  keys: RedisKeys,
  record: boolean,
): Promise<void> {
  const mine = String(keys.indexPartitions);
  const reply = await connection.call(`index layout ${record ? 'record' : 'check'}`, (client) =>
    record ? client.call('SET', keys.indexLayout, mine, 'NX', 'GET') : client.get(keys.indexLayout),
  );
  if (reply === null || reply === undefined) return;
  const recorded = typeof reply === 'string' ? reply : JSON.stringify(reply);
  if (recorded === mine) return;
  throw new StoreConfigurationError(
    `the listing indexes under Redis prefix "${keys.prefix}" were built with ${recorded} ` +
      `index partition(s), but this process is configured with ${keys.indexPartitions} ` +
      `(PLAITA_INDEX_PARTITIONS / indexPartitions): use ${recorded}, or stop every ` +
      `process of the store and run \`plaita reindex --index-partitions ` +
      `${keys.indexPartitions}\` (docs/scaling.md)`,
  );
}

export interface RebuildReport {
  /** Executions whose entries were written in this layout. */
  executions: number;
  /** Index keys of another layout that were deleted. */
  removedKeys: number;
  /** Execution header keys whose summary could not be read (left unlisted, named here). */
  unreadable: string[];
}

const SCAN_COUNT = 500;

/**
 * Re-derives every execution's listing-index entries in this store's layout from the execution
 * records (the truth; indexes are derived data), deletes the index keys of any other layout, and
 * records the layout. Offline: run it with no worker or server writing to the prefix. Idempotent,
 * so an interrupted rebuild is finished by running it again.
 */
export async function rebuildIndexes(
  connection: RedisConnection,
  keys: RedisKeys,
  index: ExecutionIndex,
): Promise<RebuildReport> {
  let executions = 0;
  const unreadable: string[] = [];
  await scanEveryMaster(connection, keys.headerKeyPattern, 'index rebuild', async (found) => {
    const headers = found.filter((key) => keys.isExecutionHeaderKey(key));
    if (headers.length === 0) return;
    const summaries = await connection.call('index rebuild: read summaries', (client) =>
      Promise.all(headers.map((key) => client.hget(key, 'summary'))),
    );
    const updates: Promise<void>[] = [];
    for (const [i, text] of summaries.entries()) {
      // A header without a summary is a key being deleted or not an execution: nothing to list.
      if (text === null) continue;
      let summary: ExecutionSummary;
      try {
        summary = decodeSummary(text);
      } catch {
        unreadable.push(headers[i]!);
        continue;
      }
      updates.push(
        index.record(
          {
            tenantId: summary.tenantId,
            executionId: summary.executionId,
            flowId: summary.flowId,
            flowHash: summary.flowHash,
            status: summary.status,
            createdAt: Date.parse(summary.createdAt),
          },
          null,
          null,
        ),
      );
    }
    await Promise.all(updates);
    executions += updates.length;
  });
  let removedKeys = 0;
  await scanEveryMaster(connection, keys.indexKeyPattern, 'index cleanup', async (found) => {
    const stale = found.filter((key) => keys.isIndexKeyOfLayout(key) === false);
    if (stale.length === 0) return;
    // One key per command: on a cluster the stale keys are in many slots.
    await connection.call('index cleanup: unlink', (client) =>
      Promise.all(stale.map((key) => client.unlink(key))),
    );
    removedKeys += stale.length;
  });
  await connection.call('index layout record', (client) =>
    client.set(keys.indexLayout, String(keys.indexPartitions)),
  );
  return { executions, removedKeys, unreadable };
}

/** SCANs `pattern` on the single node or on every master of a cluster, a page at a time. */
async function scanEveryMaster(
  connection: RedisConnection,
  pattern: string,
  what: string,
  onPage: (keys: string[]) => Promise<void>,
): Promise<void> {
  const nodes = await connection.call(`${what}: nodes`, (client) =>
    Promise.resolve(mastersOf(client)),
  );
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, found] = await connection.call(`${what}: scan`, () =>
        node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT),
      );
      cursor = next;
      if (found.length > 0) await onPage(found);
    } while (cursor !== '0');
  }
}

function mastersOf(client: RedisClient): Redis[] {
  return (client as { isCluster?: boolean }).isCluster === true
    ? (client as Cluster).nodes('master')
    : [client as Redis];
}
