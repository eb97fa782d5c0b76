import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors/store-errors.js';
import { backoffMs, FailureLog } from '../../src/util/failure-log.js';
import type { Logger } from '../../src/util/logger.js';

function capture() {
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const log: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (fields, message) => lines.push({ fields, message }),
    error: () => undefined,
    child: () => log,
  };
  return { log, lines };
}

describe('FailureLog', () => {
  it('logs the first failure, one line a minute while it lasts, and the recovery', () => {
    let now = 0;
    const { log, lines } = capture();
    const failures = new FailureLog(log, 'the scheduler', () => now);
    const outage = new StoreUnavailableError('PostgreSQL is unavailable (ECONNREFUSED)');
    for (; now < 150_000; now += 500) failures.failed(outage); // a loop retried twice a second
    expect(failures.failures).toBe(300);
    expect(lines.map((l) => l.message)).toEqual([
      'the scheduler failed; retrying',
      'the scheduler still failing; retrying',
      'the scheduler still failing; retrying',
    ]);
    expect(lines[2]!.fields).toMatchObject({ failures: 241, failingForMs: 120_000 });
    failures.succeeded();
    failures.succeeded();
    expect(lines.slice(3)).toEqual([
      { fields: { failures: 300, failingForMs: 150_000 }, message: 'the scheduler works again' },
    ]);
    expect(failures.failures).toBe(0);
    failures.failed(outage); // a new outage is logged at once
    expect(lines).toHaveLength(5);
  });

  it('logs a retryable failure by code and message, anything else whole (with its stack)', () => {
    const { log, lines } = capture();
    new FailureLog(log, 'a').failed(new StoreUnavailableError('Redis is down'));
    expect(lines[0]!.fields).toEqual({
      errorCode: 'store_unavailable',
      error: 'Redis is down',
      failures: 1,
      failingForMs: 0,
    });
    const bug = new RangeError('a bug');
    new FailureLog(log, 'b').failed(bug);
    expect(lines[1]!.fields.err).toBe(bug);
  });

  it('backs off from the base delay, doubling per failure in a row, up to the cap', () => {
    expect([0, 1, 2, 3, 10, 100].map((n) => backoffMs(n, 500, 30_000))).toEqual([
      500, 1000, 2000, 4000, 30_000, 30_000,
    ]);
  });
});
