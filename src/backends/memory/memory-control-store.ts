import {
  type ControlKey,
  type ControlPage,
  type ControlQuery,
  type ControlRecord,
  type ControlStore,
  controlLimit,
  type WriteOptions,
} from '../../store/control-store.js';
import { assertStorableKey, controlWrite } from '../../store/shared/control-record.js';
import { type Clock, systemClock } from '../../util/clock.js';

interface Entry {
  version: number;
  /** Encoded JSON: every read returns a fresh copy, as the other backends do. */
  doc: string;
  expiresAt: number | null;
}

/** The control store in process memory (tests, `--store memory`). */
export class MemoryControlStore implements ControlStore {
  readonly #records = new Map<string, Entry>();
  readonly #clock: Clock;

  /** `clock`: the store's "now", for expiry (default the system clock). */
  constructor(options: { clock?: Clock } = {}) {
    this.#clock = options.clock ?? systemClock;
  }

  get<T>(key: ControlKey): Promise<ControlRecord<T> | null> {
    return Promise.resolve(this.#live(key, this.#clock.now()));
  }

  create<T>(key: ControlKey, doc: T, options: WriteOptions = {}): Promise<boolean> {
    return attempt(() => {
      const write = this.#checked(key, doc, options);
      if (this.#live(key, this.#clock.now())) return false;
      this.#records.set(mapKey(key), { version: 1, ...write });
      return true;
    });
  }

  replace<T>(
    key: ControlKey,
    doc: T,
    expectedVersion: number,
    options: WriteOptions = {},
  ): Promise<boolean> {
    return attempt(() => {
      const write = this.#checked(key, doc, options);
      const current = this.#live(key, this.#clock.now());
      if (!current || current.version !== expectedVersion) return false;
      this.#records.set(mapKey(key), { version: expectedVersion + 1, ...write });
      return true;
    });
  }

  put<T>(key: ControlKey, doc: T, options: WriteOptions = {}): Promise<number> {
    return attempt(() => {
      const write = this.#checked(key, doc, options);
      const version = (this.#live(key, this.#clock.now())?.version ?? 0) + 1;
      this.#records.set(mapKey(key), { version, ...write });
      return version;
    });
  }

  delete(key: ControlKey): Promise<boolean> {
    const existed = this.#live(key, this.#clock.now()) !== null;
    this.#records.delete(mapKey(key));
    return Promise.resolve(existed);
  }

  take<T>(key: ControlKey): Promise<ControlRecord<T> | null> {
    const record = this.#live<T>(key, this.#clock.now());
    this.#records.delete(mapKey(key));
    return Promise.resolve(record);
  }

  list<T>(query: ControlQuery): Promise<ControlPage<T>> {
    const now = this.#clock.now();
    const limit = controlLimit(query);
    const desc = query.order === 'desc';
    const head = `${query.collection}\u0000${query.tenant}\u0000`;
    const ids: string[] = [];
    for (const [k, entry] of this.#records) {
      if (!k.startsWith(head) || expired(entry, now)) continue;
      const id = k.slice(head.length);
      if (query.prefix !== undefined && !id.startsWith(query.prefix)) continue;
      if (query.after != null && (desc ? id >= query.after : id <= query.after)) continue;
      ids.push(id);
    }
    ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (desc) ids.reverse();
    const page = ids.slice(0, limit);
    const items = page.map((id) =>
      this.#live<T>({ collection: query.collection, tenant: query.tenant, id }, now)!,
    );
    return Promise.resolve({ items, next: ids.length > limit ? page.at(-1)! : null });
  }

  sweepExpired(now: number = this.#clock.now()): Promise<number> {
    let removed = 0;
    for (const [k, entry] of this.#records) {
      if (expired(entry, now)) {
        this.#records.delete(k);
        removed++;
      }
    }
    return Promise.resolve(removed);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #live<T>(key: ControlKey, now: number): ControlRecord<T> | null {
    const entry = this.#records.get(mapKey(key));
    if (!entry || expired(entry, now)) return null;
    return {
      key: { ...key },
      version: entry.version,
      doc: JSON.parse(entry.doc) as T,
      expiresAt: entry.expiresAt,
    };
  }

  /** The same checks as the other backends (control-record.ts): they must all refuse alike. */
  #checked(key: ControlKey, doc: unknown, options: WriteOptions): Omit<Entry, 'version'> {
    assertStorableKey(key);
    return controlWrite(doc, options, this.#clock.now());
  }
}

/** Sync work as a promise: a thrown check rejects, as it does on the other backends. */
function attempt<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(work()));
}

function mapKey(key: ControlKey): string {
  return `${key.collection}\u0000${key.tenant}\u0000${key.id}`;
}

function expired(entry: Entry, now: number): boolean {
  return entry.expiresAt !== null && entry.expiresAt <= now;
}
