import type {
  ControlCollection,
  ControlKey,
  ControlPage,
  ControlQuery,
  ControlRecord,
} from '../../../store/control-store.js';
import { controlLimit } from '../../../store/control-store.js';
import { idRange, type IdRange } from '../../../store/shared/control-range.js';
import { compareCodePoints } from '../../../util/compare-code-points.js';
import { controlPage, controlRecord, isLive } from '../../../store/shared/control-record.js';
import type { ControlKeys } from './control-keys.js';
import { CONTROL_SCRIPTS } from './control-scripts.js';
import type { RedisConnection } from '../redis-connection.js';
import { unexpected } from './script-reply.js';
import type { Clock } from '../../../util/clock.js';

/** Read a few more ids than needed, so a dead entry rarely costs another round trip. */
const SLACK = 8;
/** Expiring entries handled per sweep round. */
const SWEEP_BATCH = 500;

/** `[min, max]` of ZRANGEBYLEX: `[id` inclusive, `(id` exclusive, `-` / `+` open. */
interface LexBounds {
  min: string;
  max: string;
}

/** One record hash's `v`, `doc`, `exp` (HMGET). */
type Fields = (string | null)[];

/**
 * The id indexes of the Redis control store: keyset listing and the sweep.
 *
 * Consistency: a record and its index entry are written and removed together by one script,
 * except when Redis expires the record hash itself (PEXPIREAT). Such an entry is dead: `list`
 * skips it and prunes it, and `sweepExpired` prunes every entry the expiring set says is due.
 * Pruning re-checks each record in a script, so an id written again meanwhile stays.
 */
export class ControlIndex {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keys: ControlKeys,
    private readonly clock: Clock,
  ) {}

  /**
   * Reads ids in lexicographic (byte) order from the (collection, tenant) index, then their
   * records (one pipelined batch), keeping the live ones, until one more than the page holds.
   */
  async list<T>(query: ControlQuery): Promise<ControlPage<T>> {
    const limit = controlLimit(query);
    const range = idRange(query);
    const index = this.keys.index(query.collection, query.tenant);
    const records: ControlRecord<T>[] = [];
    let bounds = lexBounds(range);
    while (records.length <= limit) {
      const wanted = limit + 1 - records.length + SLACK;
      const ids = await this.#ids(index, bounds, range.desc, wanted);
      if (ids.length === 0) break;
      const now = this.clock.now();
      const keys = ids.map((id) => ({ collection: query.collection, tenant: query.tenant, id }));
      const fields = await this.connection.call(`control list of ${query.collection}`, (client) =>
        Promise.all(keys.map((key) => client.hmget(this.keys.record(key), 'v', 'doc', 'exp'))),
      );
      const dead: string[] = [];
      keys.forEach((key, i) => {
        const record = decodeFields<T>(key, fields[i] ?? [], now);
        if (record === null) dead.push(key.id);
        else records.push(record);
      });
      if (dead.length > 0) await this.prune(query.collection, query.tenant, dead, now);
      if (ids.length < wanted) break;
      const last = `(${ids.at(-1)!}`;
      bounds = range.desc ? { ...bounds, max: last } : { ...bounds, min: last };
    }
    return controlPage(records, limit);
  }

  /**
   * Removes the index entries of those `ids` whose record is gone or expired at `now`; returns
   * control-prune.lua's code per id (-1 removed, -2 nothing to remove, else live).
   */
  async prune(
    collection: ControlCollection,
    tenant: string,
    ids: string[],
    now: number,
  ): Promise<number[]> {
    const records = ids.map((id) => this.keys.record({ collection, tenant, id }));
    const reply = await this.connection.call(`control prune of ${collection}`, (client) =>
      CONTROL_SCRIPTS.prune.run(
        client,
        [this.keys.index(collection, tenant), ...records],
        [now, ...ids],
      ),
    );
    if (!Array.isArray(reply) || reply.length !== ids.length || !reply.every(Number.isInteger))
      throw unexpected(reply, 'control-prune');
    return reply as number[];
  }

  /**
   * Visits the writes with a TTL that are due by `now` (the expiring set, by score), prunes
   * their index entries per (collection, tenant), then drops or moves their expiring entries.
   * Returns how many index entries of expired records were removed.
   */
  async sweep(now: number): Promise<number> {
    let swept = 0;
    for (;;) {
      const members = await this.connection.call('control sweep', (client) =>
        client.zrangebyscore(this.keys.expiring, '-inf', now, 'LIMIT', 0, SWEEP_BATCH),
      );
      if (members.length === 0) return swept;
      const groups = [...groupByIndex(members)];
      const codes = await Promise.all(
        groups.map(([group, entries]) =>
          group === null
            ? Promise.resolve([])
            : this.prune(
                group[0],
                group[1],
                entries.map((e) => e.id),
                now,
              ),
        ),
      );
      const settled: (string | number)[] = [];
      groups.forEach(([, entries], g) => {
        entries.forEach((entry, i) => {
          const code = codes[g]?.[i] ?? -2;
          if (code === -1) swept++;
          settled.push(entry.member, code > 0 ? code : '');
        });
      });
      await this.connection.call('control sweep', (client) =>
        CONTROL_SCRIPTS.reschedule.run(client, [this.keys.expiring], [now, ...settled]),
      );
      if (members.length < SWEEP_BATCH) return swept;
    }
  }

  #ids(index: string, bounds: LexBounds, desc: boolean, count: number): Promise<string[]> {
    return this.connection.call('control list', (client) =>
      desc
        ? client.zrevrangebylex(index, bounds.max, bounds.min, 'LIMIT', 0, count)
        : client.zrangebylex(index, bounds.min, bounds.max, 'LIMIT', 0, count),
    );
  }
}

/** The member of the expiring set for one key. */
export function expiringMember(key: ControlKey): string {
  return JSON.stringify([key.collection, key.tenant, key.id]);
}

/** A record from HMGET v, doc, exp; null when gone or expired at `now`. */
export function decodeFields<T>(
  key: ControlKey,
  fields: Fields,
  now: number,
): ControlRecord<T> | null {
  const [version, doc, exp] = fields;
  if (version == null || doc == null) return null;
  const expiresAt = exp == null ? null : Number(exp);
  if (!isLive(expiresAt, now)) return null;
  return controlRecord<T>(key, Number(version), doc, expiresAt);
}

/** The ZRANGEBYLEX bounds of a range: the tighter of the cursor and the prefix on each side. */
function lexBounds(range: IdRange): LexBounds {
  const { after, from, to, desc } = range;
  const min = from === null ? '-' : `[${from}`;
  const max = to === null ? '+' : `(${to}`;
  if (after === null) return { min, max };
  if (desc)
    return { min, max: to === null || compareCodePoints(after, to) < 0 ? `(${after}` : max };
  return { min: from === null || compareCodePoints(after, from) >= 0 ? `(${after}` : min, max };
}

interface ExpiringEntry {
  member: string;
  id: string;
}

/**
 * Expiring members by (collection, tenant): one prune script per index. A member that does
 * not parse (written by another version?) goes under `null`, to be dropped.
 */
function groupByIndex(members: string[]): Map<[ControlCollection, string] | null, ExpiringEntry[]> {
  const byName = new Map<
    string,
    { group: [ControlCollection, string]; entries: ExpiringEntry[] }
  >();
  const junk: ExpiringEntry[] = [];
  for (const member of members) {
    const parsed = parseMember(member);
    if (parsed === null) {
      junk.push({ member, id: '' });
      continue;
    }
    const [collection, tenant, id] = parsed;
    const name = JSON.stringify([collection, tenant]);
    let slot = byName.get(name);
    if (slot === undefined) {
      slot = { group: [collection, tenant], entries: [] };
      byName.set(name, slot);
    }
    slot.entries.push({ member, id });
  }
  const groups = new Map<[ControlCollection, string] | null, ExpiringEntry[]>();
  for (const { group, entries } of byName.values()) groups.set(group, entries);
  if (junk.length > 0) groups.set(null, junk);
  return groups;
}

function parseMember(member: string): [ControlCollection, string, string] | null {
  try {
    const value: unknown = JSON.parse(member);
    if (Array.isArray(value) && value.length === 3 && value.every((v) => typeof v === 'string'))
      return value as [ControlCollection, string, string];
  } catch {
    // not ours: dropped
  }
  return null;
}
