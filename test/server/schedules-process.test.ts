import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { body } from './support/api-harness.js';
import { call, type PlaitaProcess, startServe, startWorker } from './support/serve-process.js';

/**
 * Schedules across processes (issue 9): two `plaita serve` and one `plaita worker` on one store
 * (a SQLite file) all run the scheduler. An every-second cron for ~10 s starts exactly one
 * execution per slot; after every process is down for a gap, a restart starts one catch-up run
 * for the latest missed slot and none for the others.
 *
 * A slot's execution id is derived from its idempotency key `schedule:<id>:<slot>`, so the
 * test can tell, for every second, whether that slot fired — and that nothing else did.
 */

const echo = JSON.parse(
  readFileSync(new URL('../../examples/echo.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

const slotExecutionId = (scheduleId: string, slotMs: number): string =>
  `idem-${createHash('sha256')
    .update(`default\u0000schedule:${scheduleId}:${new Date(slotMs).toISOString()}`)
    .digest('hex')
    .slice(0, 32)}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('schedules across processes', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'plaita-sched-'));
  const running: PlaitaProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
    rmSync(cwd, { recursive: true, force: true });
  }, 60_000);

  it('two servers and a worker fire each slot once; after a gap only the latest missed slot fires', async () => {
    const first = await startServe([], { cwd });
    running.push(first);
    const key = first.adminKey!;
    running.push(await startServe([], { cwd }), await startWorker([], { cwd }));

    let base = first.url;
    expect(
      (await call(base, '/v1/flows/echo/versions/1.0.0', key, { method: 'PUT', json: echo }))
        .status,
    ).toBe(201);
    expect(
      (await call(base, '/v1/flows/echo/versions/1.0.0/publish', key, { method: 'POST' })).status,
    ).toBe(200);
    const created = await call(base, '/v1/schedules', key, {
      json: { flowId: 'echo', cron: '* * * * * *', input: { name: 'tick' } },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const schedule = await body<{ id: string }>(created);
    const t0 = Date.now();

    /** Which seconds in [from, to] fired, read from the executions the store has. */
    const fired = async (from: number, to: number): Promise<{ slots: number[]; total: number }> => {
      const page = await body<{ items: Array<{ executionId: string }> }>(
        await call(base, '/v1/executions?flowId=echo&limit=200', key),
      );
      const ids = new Set(page.items.map((e) => e.executionId));
      const slots: number[] = [];
      for (let s = Math.floor(from / 1000) * 1000; s <= to; s += 1000)
        if (ids.has(slotExecutionId(schedule.id, s))) slots.push(s);
      return { slots, total: ids.size };
    };

    await sleep(10_000);
    const t1 = Date.now();
    const before = await fired(t0 - 2_000, t1 + 2_000);
    // Every execution is one slot's; none is a duplicate or a stray.
    expect(before.total).toBe(before.slots.length);
    // Every whole second strictly inside the window fired (the edges depend on tick phase).
    for (let s = Math.ceil(t0 / 1000) * 1000 + 1000; s < t1 - 1500; s += 1000)
      expect(before.slots, `slot ${new Date(s).toISOString()}`).toContain(s);

    // Everything down for a gap, then one server back.
    await Promise.all(running.splice(0).map((p) => p.stop()));
    const stoppedAt = Date.now();
    await sleep(4_000);
    const restartAt = Date.now();
    const back = await startServe([], { cwd });
    running.push(back);
    base = back.url;
    await sleep(2_500);
    const after = await fired(t0 - 2_000, Date.now() + 2_000);
    expect(after.total).toBe(after.slots.length);
    const lastBefore = Math.max(...after.slots.filter((s) => s <= stoppedAt));
    const afterGap = after.slots.filter((s) => s > lastBefore);
    // None of the ~4 slots missed while down fired; the first run after the restart is the
    // latest slot at its first tick (the catch-up), then one a second.
    expect(afterGap.filter((s) => s < restartAt - 1_000)).toEqual([]);
    expect(Math.min(...afterGap)).toBeGreaterThanOrEqual(restartAt - 1_000);
    // And the schedule goes on, one slot a second.
    expect(afterGap.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
