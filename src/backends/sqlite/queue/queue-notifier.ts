import { resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

type Wake = () => void;

/**
 * In-process wake-ups for blocked receives: an enqueue in this process wakes every LocalQueue on
 * the same database file at once (different connections to one file share a key). Other
 * processes are noticed by polling instead.
 */
const waiters = new Map<unknown, Set<Wake>>();

/** Files are keyed by absolute path; an in-memory database only by its connection. */
export function notifierKey(db: BetterSqlite3.Database): unknown {
  return db.memory || db.name === '' ? db : resolve(db.name);
}

export function notify(key: unknown): void {
  const set = waiters.get(key);
  if (set === undefined) return;
  for (const wake of set) wake();
}

/**
 * Resolves after `ms`, on a notification for `key`, or when `cancel` is fired (close). Never
 * rejects; always unregisters itself.
 */
export function waitForNotification(key: unknown, ms: number, cancel: Set<Wake>): Promise<void> {
  return new Promise((done) => {
    const wake = (): void => {
      clearTimeout(timer);
      const set = waiters.get(key);
      set?.delete(wake);
      if (set?.size === 0) waiters.delete(key);
      cancel.delete(wake);
      done();
    };
    const timer = setTimeout(wake, ms);
    let set = waiters.get(key);
    if (set === undefined) waiters.set(key, (set = new Set()));
    set.add(wake);
    cancel.add(wake);
  });
}
