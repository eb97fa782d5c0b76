import type { ExecutionSummary, ListPage, ListQuery } from '../../../store/execution-store.js';
import { decodeSummary } from '../../../store/shared/execution-row.js';
import { encodeCursor, planList, type ListPlan } from '../../../store/shared/list-plan.js';
import { compareNewestFirst, isAfter, type IndexEntry } from './list-order.js';
import type { RedisConnection } from '../redis-connection.js';
import type { RedisKeys, TenantIndexKeys } from './redis-keys.js';
import { SCRIPTS } from './redis-store-scripts.js';

/** Read a few more candidates than needed, so a stale entry rarely costs another round trip. */
const SLACK = 8;

/**
 * One index sorted set and the condition its members must meet (else the entry is stale);
 * `part` is its index partition (the sources of one part share a slot).
 */
interface IndexSource {
  key: string;
  part: number;
  holds: (summary: ExecutionSummary) => boolean;
}

interface Candidate extends IndexEntry {
  source: IndexSource;
}

/**
 * `list` for the Redis execution store: validate the query like every store (planList), pick
 * the smallest index that serves it (ZCARD is O(1)), read it in keyset order with
 * `list-page.lua`, read each candidate's summary from its header hash (never the context), and
 * keep those matching every filter. Stale entries are skipped and pruned (consistency model
 * in execution-index.ts). No SCAN, no KEYS.
 */
export async function listExecutions(
  connection: RedisConnection,
  keys: RedisKeys,
  query: ListQuery,
): Promise<ListPage> {
  const plan = planList(query);
  if (plan.matchesNothing) return { items: [], nextCursor: null };
  const matches = (s: ExecutionSummary): boolean => {
    const createdAt = Date.parse(s.createdAt);
    return (
      (plan.statuses === null || plan.statuses.includes(s.status)) &&
      (plan.flowId === null || s.flowId === plan.flowId) &&
      (plan.flowHash === null || s.flowHash === plan.flowHash) &&
      (plan.createdAfter === null || createdAt > plan.createdAfter) &&
      (plan.createdBefore === null || createdAt < plan.createdBefore)
    );
  };

  const pager = new IndexPager(connection, keys, plan, await chooseSources(connection, keys, plan));
  const items: ExecutionSummary[] = [];
  let cursor: IndexEntry | null = plan.cursor && {
    score: plan.cursor.createdAt,
    executionId: plan.cursor.executionId,
  };
  // One item past the page tells whether another page exists: nextCursor is null exactly on the last one.
  while (items.length <= plan.limit) {
    const wanted = plan.limit + 1 - items.length + SLACK;
    const candidates = await pager.next(cursor, wanted);
    if (candidates.length === 0) break;
    const summaries = await pager.summaries(candidates);
    const stale: Candidate[] = [];
    for (const [i, candidate] of candidates.entries()) {
      const summary = summaries[i] ?? null;
      if (summary === null || !candidate.source.holds(summary)) stale.push(candidate);
      else if (items.length <= plan.limit && matches(summary)) items.push(summary);
    }
    if (stale.length > 0) await pager.prune(stale);
    if (candidates.length < wanted) break; // every source is exhausted
    cursor = candidates[candidates.length - 1]!;
  }
  const page = items.slice(0, plan.limit);
  const last = items.length > plan.limit ? page.at(-1) : undefined;
  return {
    items: page,
    nextCursor: last
      ? encodeCursor({ createdAt: Date.parse(last.createdAt), executionId: last.executionId })
      : null,
  };
}

/**
 * The index groups that can serve the query (flowHash, flowId, the union of the wanted
 * statuses, else `all`); with several, the one with the fewest entries wins.
 */
async function chooseSources(
  connection: RedisConnection,
  keys: RedisKeys,
  plan: ListPlan,
): Promise<IndexSource[]> {
  const groups: IndexSource[][] = [];
  const { flowHash, flowId, statuses } = plan;
  // Every group names its index in each partition: the merge reads them all.
  const perPart = (
    pick: (idx: TenantIndexKeys) => string,
    holds: IndexSource['holds'],
  ): IndexSource[] =>
    Array.from({ length: keys.indexPartitions }, (_, part) => ({
      key: pick(keys.tenantIndex(plan.tenantId, part)),
      part,
      holds,
    }));
  if (flowHash !== null)
    groups.push(
      perPart(
        (idx) => idx.hash(flowHash),
        (s) => s.flowHash === flowHash,
      ),
    );
  if (flowId !== null)
    groups.push(
      perPart(
        (idx) => idx.flow(flowId),
        (s) => s.flowId === flowId,
      ),
    );
  if (statuses !== null)
    groups.push(
      statuses.flatMap((status) =>
        perPart(
          (idx) => idx.status(status),
          (s) => s.status === status,
        ),
      ),
    );
  if (groups.length === 0)
    return perPart(
      (idx) => idx.all,
      () => true,
    );
  if (groups.length === 1) return groups[0]!;
  const sizes = await connection.call('list planning', (client) =>
    Promise.all(
      groups.map(async (group) =>
        (await Promise.all(group.map((s) => client.zcard(s.key)))).reduce((a, b) => a + b, 0),
      ),
    ),
  );
  let best = 0;
  for (let i = 1; i < groups.length; i++) if (sizes[i]! < sizes[best]!) best = i;
  return groups[best]!;
}

/** Reads candidates from a set of index keys of one tenant in page order. */
class IndexPager {
  readonly #high: number | '+inf';
  readonly #low: number | '-inf';

  constructor(
    private readonly connection: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly plan: ListPlan,
    private readonly sources: IndexSource[],
  ) {
    // Scores are whole milliseconds: the exclusive bounds become inclusive ones.
    this.#high = plan.createdBefore === null ? '+inf' : Math.ceil(plan.createdBefore) - 1;
    this.#low = plan.createdAfter === null ? '-inf' : Math.floor(plan.createdAfter) + 1;
  }

  /**
   * The next `count` entries after `cursor`, merged across the sources, deduplicated by id:
   * one `list-page.lua` per index partition (its sources share a slot), in parallel.
   */
  async next(cursor: IndexEntry | null, count: number): Promise<Candidate[]> {
    const parts = new Map<number, IndexSource[]>();
    for (const source of this.sources)
      parts.set(source.part, [...(parts.get(source.part) ?? []), source]);
    const args = [count, this.#high, this.#low, cursor?.score ?? '', cursor?.executionId ?? ''];
    const replies = await this.connection.call('list', (client) =>
      Promise.all(
        [...parts.values()].map(async (sources) => ({
          sources,
          reply: await SCRIPTS.listPage.run(
            client,
            sources.map((s) => s.key),
            args,
          ),
        })),
      ),
    );
    const merged: Candidate[] = [];
    for (const { sources, reply } of replies) {
      for (const [i, flat] of (Array.isArray(reply) ? (reply as unknown[]) : []).entries()) {
        const source = sources[i];
        if (!source || !Array.isArray(flat)) continue;
        for (let j = 0; j + 1 < flat.length; j += 2) {
          const entry = { executionId: String(flat[j]), score: Number(flat[j + 1]), source };
          if (isAfter(entry, cursor)) merged.push(entry);
        }
      }
    }
    merged.sort(compareNewestFirst);
    const seen = new Set<string>();
    return merged
      .filter((c) => !seen.has(c.executionId) && seen.add(c.executionId))
      .slice(0, count);
  }

  /** Each candidate's summary from its header hash; null when the record is gone. */
  summaries(candidates: readonly IndexEntry[]): Promise<(ExecutionSummary | null)[]> {
    return this.connection.call('list summaries', async (client) => {
      const texts = await Promise.all(
        candidates.map((c) =>
          client.hget(this.keys.execution(this.plan.tenantId, c.executionId).header, 'summary'),
        ),
      );
      return texts.map((text) => (text === null ? null : decodeSummary(text)));
    });
  }

  /** Removes stale entries, then restores any that a concurrent save made valid again meanwhile. */
  async prune(stale: readonly Candidate[]): Promise<void> {
    await this.connection.call('list pruning', (client) =>
      Promise.all(stale.map((c) => client.zrem(c.source.key, c.executionId))),
    );
    const now = await this.summaries(stale);
    const restore = stale.filter((c, i) => {
      const summary = now[i];
      return summary != null && c.source.holds(summary);
    });
    if (restore.length === 0) return;
    await this.connection.call('list pruning', (client) =>
      Promise.all(restore.map((c) => client.zadd(c.source.key, c.score, c.executionId))),
    );
  }
}
