import type { ControlCollection, ControlKey } from '../../../store/control-store.js';
import { escapeKeyPart } from './redis-keys.js';

/**
 * Every Redis key of the control store is built here, and nowhere else.
 *
 * Per (collection, tenant) — one hash tag, so every script touches one slot and the layout
 * runs on Redis Cluster unchanged (a busy tenant's audit log and its schedules land on
 * different slots):
 *   `<prefix>:{ctl:<collection>:<tenant>}:rec:<id>`  hash: `v` version, `doc` JSON text,
 *                                                    `exp` expiry epoch ms (only with a TTL,
 *                                                    which PEXPIREAT also sets on the key)
 *   `<prefix>:{ctl:<collection>:<tenant>}:ids`       sorted set: every id (raw) at score 0,
 *                                                    listed by ZRANGEBYLEX (byte order)
 * Global:
 *   `<prefix>:ctl:expiring`                          sorted set: member JSON
 *                                                    `[collection, tenant, id]`, score the
 *                                                    expiry epoch ms of a write with a TTL
 *
 * Components are escaped as in redis-keys.ts (`%`, `{`, `}`, `:` → `%XX`): a tenant or id can
 * neither end the hash tag early nor make two (collection, tenant, id) build the same key. The
 * tag `ctl:<collection>:<tenant>` holds two colons, an execution's `<tenant>:<executionId>`
 * one, so the two layouts never share a tag.
 */
export class ControlKeys {
  constructor(readonly prefix: string) {
    if (prefix === '' || /[{}]/.test(prefix)) {
      throw new RangeError(
        `Redis key prefix must be non-empty without "{" or "}", got ${JSON.stringify(prefix)}`,
      );
    }
  }

  /** The record hash of one key. */
  record(key: ControlKey): string {
    return `${this.#base(key.collection, key.tenant)}:rec:${escapeKeyPart(key.id)}`;
  }

  /** The id index of one (collection, tenant). */
  index(collection: ControlCollection, tenant: string): string {
    return `${this.#base(collection, tenant)}:ids`;
  }

  /** Writes with a TTL, by expiry: what `sweepExpired` visits (no SCAN). */
  get expiring(): string {
    return `${this.prefix}:ctl:expiring`;
  }

  #base(collection: ControlCollection, tenant: string): string {
    return `${this.prefix}:{ctl:${escapeKeyPart(collection)}:${escapeKeyPart(tenant)}}`;
  }
}
