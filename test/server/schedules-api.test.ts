import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { overriding } from '../support/overriding.js';
import { StateCorruptError } from '../../src/errors/state-errors.js';
import type { ControlKey } from '../../src/store/control-store.js';
import { canonicalJson, sha256Hex } from '../../src/util/canonical-json.js';
import { Scheduler } from '../../src/control/schedules/scheduler.js';
import { slotsAfter, type ScheduleRecord } from '../../src/control/schedules/schedule-record.js';
import { FakeClock } from '../../src/util/fake-clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { type ApiHarness, body, startApi } from './support/api-harness.js';

const echo = JSON.parse(
  readFileSync(new URL('../../examples/echo.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

let api: ApiHarness;
beforeEach(async () => {
  api = await startApi();
  await api.backends.flows.put({ ...echo, flow_id: 'echo', version: '1' }, { tenantId: 'default' });
});
afterEach(async () => {
  await api.close();
});

interface Schedule {
  id: string;
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastExecutionId: string | null;
  skipped: number;
}

async function createSchedule(fields: Record<string, unknown>): Promise<Schedule> {
  const res = await api.fetch('/v1/schedules', {
    method: 'POST',
    json: { flowId: 'echo', ...fields },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return body<Schedule>(res);
}

describe('schedules', () => {
  it('create, read, list, patch, preview, delete', async () => {
    const created = await createSchedule({
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
      input: { name: 'Ada' },
    });
    expect(created.nextRunAt).toMatch(/T0[78]:00:00.000Z$/);
    expect(await body(await api.fetch(`/v1/schedules/${created.id}`))).toMatchObject({
      cron: '0 9 * * 1-5',
      enabled: true,
    });
    const page = await body<{ items: Schedule[] }>(await api.fetch('/v1/schedules'));
    expect(page.items.map((s) => s.id)).toEqual([created.id]);
    const patched = await api.fetch(`/v1/schedules/${created.id}`, {
      method: 'PATCH',
      json: { enabled: false },
    });
    expect(await body(patched)).toMatchObject({ enabled: false, nextRunAt: null });
    const preview = await body<{ times: string[] }>(
      await api.fetch(
        '/v1/schedules/preview?cron=*/15%20*%20*%20*%20*&timezone=Asia/Kolkata&count=5',
      ),
    );
    expect(preview.times).toHaveLength(5);
    expect(new Date(preview.times[1]!).getTime() - new Date(preview.times[0]!).getTime()).toBe(
      15 * 60_000,
    );
    // The preview's pattern and zone are query parameters: a mistake names them there.
    for (const [query, path] of [
      ['cron=*%20*%20*%20*', 'query.cron'],
      ['cron=61%20*%20*%20*%20*', 'query.cron'],
      ['cron=*%20*%20*%20*%20*&timezone=Mars/Base', 'query.timezone'],
    ] as const) {
      const bad = await api.fetch(`/v1/schedules/preview?${query}`);
      expect(bad.status, query).toBe(400);
      expect((await body<{ errors: Array<{ path: string }> }>(bad)).errors[0]?.path, query).toBe(
        path,
      );
    }
    expect((await api.fetch(`/v1/schedules/${created.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api.fetch(`/v1/schedules/${created.id}`)).status).toBe(404);
  });

  it('bad cron, bad timezone and an unpublished flow are 400/404 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ cron: '61 * * * *' }, 400, 'body.cron'],
      [{ cron: '* * * *' }, 400, 'body.cron'],
      // Croner accepts it, but no date matches: a schedule that would never fire.
      [{ cron: '0 0 30 2 *' }, 400, 'body.cron'],
      [{ cron: '* * * * *', timezone: 'Mars/Base' }, 400, 'body.timezone'],
      [{ cron: '* * * * *', flowId: 'nope' }, 404, 'body.flowId'],
    ];
    for (const [fields, status, path] of cases) {
      const res = await api.fetch('/v1/schedules', {
        method: 'POST',
        json: { flowId: 'echo', ...fields },
      });
      expect(res.status, JSON.stringify(fields)).toBe(status);
      const problem = await body<{ errors: Array<{ path: string }> }>(res);
      expect(problem.errors.map((e) => e.path)).toContain(path);
    }
    const badPreview = await api.fetch('/v1/schedules/preview?cron=nope');
    expect(badPreview.status).toBe(400);
    const never = await api.fetch('/v1/schedules/preview?cron=0%200%2030%202%20*');
    expect(await body(never)).toMatchObject({ errors: [{ path: 'query.cron' }] });
  });

  it('each slot fires once however many schedulers run, and downtime fires only the latest slot', async () => {
    const schedule = await createSchedule({ cron: '*/10 * * * * *' });
    const deps = api.app.services;
    const schedulers = [
      new Scheduler(deps, { log: silentLogger }),
      new Scheduler(deps, { log: silentLogger }),
    ];
    const base = Date.parse(
      (
        await body<Schedule & { createdAt: string }>(
          await api.fetch(`/v1/schedules/${schedule.id}`),
        )
      ).createdAt,
    );
    const firstSlot = Math.ceil((base + 1) / 10_000) * 10_000;
    // Both schedulers see the same two slots, concurrently.
    for (const slot of [firstSlot, firstSlot + 10_000])
      await Promise.all(schedulers.map((s) => s.tick(new Date(slot + 500))));
    const after2 = await body<{ items: unknown[] }>(await api.fetch('/v1/executions?flowId=echo'));
    expect(after2.items).toHaveLength(2);
    // Down for five slots: one catch-up run, for the latest.
    await Promise.all(schedulers.map((s) => s.tick(new Date(firstSlot + 70_000 + 500))));
    const after = await body<{ items: unknown[] }>(await api.fetch('/v1/executions?flowId=echo'));
    expect(after.items).toHaveLength(3);
    const read = await body<Schedule>(await api.fetch(`/v1/schedules/${schedule.id}`));
    expect(read.lastRunAt).toBe(new Date(firstSlot + 70_000).toISOString());
  });

  it('a running scheduler paces itself on its clock: a fake clock fires slots without sleeping', async () => {
    const schedule = await createSchedule({ cron: '0 * * * *' });
    const created = Date.parse(
      (await body<{ createdAt: string }>(await api.fetch(`/v1/schedules/${schedule.id}`)))
        .createdAt,
    );
    const clock = new FakeClock(created);
    const scheduler = new Scheduler(api.app.services, { log: silentLogger, clock, tickMs: 60_000 });
    scheduler.start();
    try {
      const count = async (): Promise<number> =>
        (await body<{ items: unknown[] }>(await api.fetch('/v1/executions?flowId=echo'))).items
          .length;
      // Three hours of fake time, one tick a minute: three hourly slots, each fired once. A tick
      // re-arms itself when its store calls finish (real time), so time moves a minute at a
      // time until the slot's execution shows up, never past the next slot.
      for (let hour = 0; hour < 3; hour += 1) {
        const slot = (Math.floor(clock.now() / 3_600_000) + 1) * 3_600_000;
        await clock.advanceTo(slot);
        for (let minute = 0; minute < 30 && (await count()) < hour + 1; minute += 1) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          await clock.advance(60_000);
        }
        expect(await count()).toBe(hour + 1);
      }
      const read = await body<Schedule>(await api.fetch(`/v1/schedules/${schedule.id}`));
      expect(Date.parse(read.lastRunAt ?? '')).toBe(
        Math.floor(clock.now() / 3_600_000) * 3_600_000,
      );
    } finally {
      await scheduler.stop();
    }
  });

  it('a schedule that cannot be fired is passed over: the schedules after it still fire', async () => {
    const [a, b] = [
      await createSchedule({ cron: '*/10 * * * * *' }),
      await createSchedule({ cron: '*/10 * * * * *' }),
    ];
    // The one the scheduler meets first gets a last run whose state can never be read.
    const [bad, good] = [a, b].sort((x, y) => (x.id < y.id ? -1 : 1)) as [Schedule, Schedule];
    const key = { collection: 'schedules' as const, tenant: 'default', id: bad.id };
    const record = await api.backends.control.get<ScheduleRecord>(key);
    expect(
      await api.backends.control.replace(
        key,
        { ...record!.doc, overlap: 'skip', lastExecutionId: 'unreadable' },
        record!.version,
      ),
    ).toBe(true);
    const real = api.app.services.store;
    const store = overriding(
      real,
      'load',
      (load) => (id, scope) =>
        id === 'unreadable'
          ? Promise.reject(new StateCorruptError('a corrupted record'))
          : load(id, scope),
    );
    const created = Date.parse(record!.doc.createdAt);
    const firstSlot = Math.ceil((created + 1) / 10_000) * 10_000;
    await new Scheduler({ ...api.app.services, store }, { log: silentLogger }).tick(
      new Date(firstSlot + 100),
    );
    for (const schedule of [good, bad]) {
      const read = await body<Schedule>(await api.fetch(`/v1/schedules/${schedule.id}`));
      expect(read.lastRunAt, schedule === good ? 'good' : 'bad').toBe(
        new Date(firstSlot).toISOString(),
      );
    }
  });

  it('a slot whose start died in another process stays due, and fires once that start is stale', async () => {
    const schedule = await createSchedule({ cron: '*/10 * * * * *' });
    const created = Date.parse(
      (await body<{ createdAt: string }>(await api.fetch(`/v1/schedules/${schedule.id}`)))
        .createdAt,
    );
    const slot = new Date(Math.ceil((created + 1) / 10_000) * 10_000);
    // What a process that died between taking the slot's idempotency key and saving the
    // execution leaves behind: the key, 48 s old, and no execution.
    const key = `schedule:${schedule.id}:${slot.toISOString()}`;
    const executionId = `idem-${sha256Hex(`default\u0000${key}`).slice(0, 32)}`;
    const fingerprint = sha256Hex(canonicalJson({ flowId: 'echo', input: {}, executionId }));
    await api.backends.control.create(
      { collection: 'idempotency', tenant: 'default', id: `key:${key}` },
      { executionId, fingerprint, at: Date.now() - 48_000 },
    );
    const scheduler = new Scheduler(api.app.services, { log: silentLogger });
    // Still "in progress" (younger than a minute): the slot must stay owed, not be recorded.
    await scheduler.tick(new Date(slot.getTime() + 100));
    const owed = await body<Schedule & { lastError: string | null }>(
      await api.fetch(`/v1/schedules/${schedule.id}`),
    );
    expect(owed.lastRunAt).toBeNull();
    expect(owed.lastError).toBeNull();
    // A later tick finds the dead start stale, takes it over, and the slot fires.
    await new Promise((r) => setTimeout(r, 100));
    await scheduler.tick(new Date(slot.getTime() + 200));
    const fired = await body<Schedule>(await api.fetch(`/v1/schedules/${schedule.id}`));
    expect(fired.lastRunAt).toBe(slot.toISOString());
    expect(fired.lastExecutionId).toBe(executionId);
  }, 30_000);

  it('an edit that sends the same timing again keeps a due slot owed', async () => {
    const schedule = await createSchedule({ cron: '* * * * * *' });
    const created = Date.parse(
      (await body<{ createdAt: string }>(await api.fetch(`/v1/schedules/${schedule.id}`)))
        .createdAt,
    );
    const firstSlot = Math.ceil((created + 1) / 1000) * 1000;
    // Wait for the slot to come due, then edit only the input (the form sends every field).
    await new Promise((r) => setTimeout(r, Math.max(0, firstSlot + 50 - Date.now())));
    const edit = await api.fetch(`/v1/schedules/${schedule.id}`, {
      method: 'PATCH',
      json: { cron: '* * * * * *', timezone: 'UTC', enabled: true, input: { name: 'Edited' } },
    });
    expect(edit.status).toBe(200);
    const scheduler = new Scheduler(api.app.services, { log: silentLogger });
    await scheduler.tick(new Date(firstSlot + 100));
    const read = await body<Schedule>(await api.fetch(`/v1/schedules/${schedule.id}`));
    expect(read.lastRunAt).toBe(new Date(firstSlot).toISOString());
  }, 20_000);

  it('a schedule deleted while the scheduler looks at it starts no run', async () => {
    const schedule = await createSchedule({ cron: '*/10 * * * * *' });
    const created = Date.parse(
      (await body<{ createdAt: string }>(await api.fetch(`/v1/schedules/${schedule.id}`)))
        .createdAt,
    );
    const firstSlot = Math.ceil((created + 1) / 10_000) * 10_000;
    const real = api.app.services.control;
    // The DELETE lands right after the scheduler's first read of the record.
    const control = overriding(real, 'get', (get) => async <T>(key: ControlKey) => {
      const read = await get<T>(key);
      if (key.collection === 'schedules' && key.id === schedule.id) await real.delete(key);
      return read;
    });
    await new Scheduler({ ...api.app.services, control }, { log: silentLogger }).tick(
      new Date(firstSlot + 100),
    );
    expect(
      (await body<{ items: unknown[] }>(await api.fetch('/v1/executions'))).items,
    ).toHaveLength(0);
  });

  it('overlap: skip passes a slot while the last run has not settled', async () => {
    const schedule = await createSchedule({ cron: '*/10 * * * * *', overlap: 'skip' });
    await api.worker?.stop();
    const scheduler = new Scheduler(api.app.services, { log: silentLogger });
    const base = Date.parse(
      (await body<{ createdAt: string }>(await api.fetch(`/v1/schedules/${schedule.id}`)))
        .createdAt,
    );
    const firstSlot = Math.ceil((base + 1) / 10_000) * 10_000;
    await scheduler.tick(new Date(firstSlot + 100));
    await scheduler.tick(new Date(firstSlot + 10_100));
    const read = await body<Schedule>(await api.fetch(`/v1/schedules/${schedule.id}`));
    expect(read.skipped).toBe(1);
    // The skipped slot started nothing: the last run is still the first slot's.
    expect(read.lastRunAt).toBe(new Date(firstSlot).toISOString());
    expect(
      (await body<{ items: unknown[] }>(await api.fetch('/v1/executions'))).items,
    ).toHaveLength(1);
  });

  it('a manual trigger is the last run too: overlap: skip waits for it', async () => {
    const schedule = await createSchedule({ cron: '*/10 * * * * *', overlap: 'skip' });
    await api.worker?.stop();
    const fired = await body<{ executionId: string }>(
      await api.fetch(`/v1/schedules/${schedule.id}/trigger`, { method: 'POST' }),
    );
    const after = await body<Schedule>(await api.fetch(`/v1/schedules/${schedule.id}`));
    expect(after.lastExecutionId).toBe(fired.executionId);
    expect(after.lastRunAt).not.toBeNull();
    const created = Date.parse(
      (await body<{ createdAt: string }>(await api.fetch(`/v1/schedules/${schedule.id}`)))
        .createdAt,
    );
    const firstSlot = Math.ceil((created + 1) / 10_000) * 10_000;
    await new Scheduler(api.app.services, { log: silentLogger }).tick(new Date(firstSlot + 100));
    const read = await body<Schedule>(await api.fetch(`/v1/schedules/${schedule.id}`));
    expect(read.skipped).toBe(1);
    expect(read.lastExecutionId).toBe(fired.executionId);
    expect(
      (await body<{ items: unknown[] }>(await api.fetch('/v1/executions'))).items,
    ).toHaveLength(1);
  });

  it('a create sent again with its Idempotency-Key is the same schedule (200), not a second one', async () => {
    const create = () =>
      api.fetch('/v1/schedules', {
        method: 'POST',
        headers: { 'Idempotency-Key': 'nightly-report' },
        json: { flowId: 'echo', cron: '0 2 * * *' },
      });
    const answers = await Promise.all([create(), create(), create()]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    const ids = await Promise.all(answers.map(async (r) => (await body<Schedule>(r)).id));
    expect(new Set(ids).size).toBe(1);
    const later = await create();
    expect(later.status).toBe(200);
    expect((await body<Schedule>(later)).id).toBe(ids[0]);
    expect((await body<{ items: unknown[] }>(await api.fetch('/v1/schedules'))).items).toHaveLength(
      1,
    );
  });

  it('a trigger sent again with its Idempotency-Key is the same run (200), not another', async () => {
    const schedule = await createSchedule({ cron: '0 0 1 1 *', input: { name: 'Ada' } });
    const fire = () =>
      api.fetch(`/v1/schedules/${schedule.id}/trigger`, {
        method: 'POST',
        headers: { 'Idempotency-Key': 'deploy-42' },
      });
    const first = await fire();
    expect(first.status).toBe(201);
    const again = await fire();
    expect(again.status).toBe(200);
    const [a, b] = [
      await body<{ executionId: string }>(first),
      await body<{ executionId: string }>(again),
    ];
    expect(b.executionId).toBe(a.executionId);
    expect(
      (await body<{ items: unknown[] }>(await api.fetch('/v1/executions'))).items,
    ).toHaveLength(1);
    expect(
      (await api.fetch(`/v1/schedules/${schedule.id}/trigger`, { method: 'POST' })).status,
    ).toBe(201); // without a key, every trigger is a run of its own
  });

  it('trigger starts one now; a viewer cannot create; another tenant gets 404', async () => {
    const schedule = await createSchedule({ cron: '0 0 1 1 *', input: { name: 'Ada' } });
    const fired = await api.fetch(`/v1/schedules/${schedule.id}/trigger`, { method: 'POST' });
    expect(fired.status).toBe(201);
    const viewer = await api.key('viewer', 'default');
    expect(
      (
        await api.fetch('/v1/schedules', {
          token: viewer,
          method: 'POST',
          json: { flowId: 'echo', cron: '* * * * *' },
        })
      ).status,
    ).toBe(403);
    const other = await api.key('admin', 'other');
    expect((await api.fetch(`/v1/schedules/${schedule.id}`, { token: other })).status).toBe(404);
    expect(
      (await body<{ items: unknown[] }>(await api.fetch('/v1/schedules', { token: other }))).items,
    ).toEqual([]);
  });
});

describe('schedules and manual triggers together', () => {
  it('a trigger does not move the slots: a slot that came due before it still fires', async () => {
    const schedule = await createSchedule({ cron: '* * * * * *' });
    await new Promise((r) => setTimeout(r, 1100)); // a slot comes due, not handled yet
    expect(
      (await api.fetch(`/v1/schedules/${schedule.id}/trigger`, { method: 'POST' })).status,
    ).toBe(201);
    await new Scheduler(api.app.services, { log: silentLogger }).tick(new Date());
    expect(
      (await body<{ items: unknown[] }>(await api.fetch('/v1/executions'))).items,
    ).toHaveLength(2);
  });

  it('a trigger written while the scheduler records a slot is kept, and the slot recorded once', async () => {
    const schedule = await createSchedule({ cron: '*/10 * * * * *', overlap: 'skip' });
    await api.worker?.stop();
    // The manual run: started, and not settled (no worker), so overlap: skip would wait on it.
    const manual = await body<{ executionId: string }>(
      await api.fetch('/v1/executions', { method: 'POST', json: { flowId: 'echo' } }),
    );
    const control = api.app.services.control;
    const replace = control.replace.bind(control);
    let injected = false;
    // The race, made certain: a manual run lands between the scheduler's read and its write.
    control.replace = async (key, doc, version, options) => {
      if (!injected && key.collection === 'schedules' && key.id === schedule.id) {
        injected = true;
        const current = (await control.get<Record<string, unknown>>(key))!;
        await replace(
          key,
          {
            ...current.doc,
            lastRunAt: new Date().toISOString(),
            lastExecutionId: manual.executionId,
          },
          current.version,
        );
      }
      return replace(key, doc, version, options);
    };
    const created = Date.parse(
      (await body<{ createdAt: string }>(await api.fetch(`/v1/schedules/${schedule.id}`)))
        .createdAt,
    );
    const slot = Math.ceil((created + 1) / 10_000) * 10_000;
    const scheduler = new Scheduler(api.app.services, { log: silentLogger });
    await scheduler.tick(new Date(slot + 100));
    // The slot is recorded: the same slot is not taken again (nor counted as skipped).
    await scheduler.tick(new Date(slot + 200));
    expect(injected).toBe(true);
    const read = await body<Schedule>(await api.fetch(`/v1/schedules/${schedule.id}`));
    const runs = await body<{ items: Array<{ executionId: string }> }>(
      await api.fetch('/v1/executions'),
    );
    expect(runs.items).toHaveLength(2);
    const slotRun = runs.items.find((e) => e.executionId !== manual.executionId)!;
    expect(read.skipped).toBe(0);
    // The slot's run is later than the manual one: it is the last run.
    expect(read.lastExecutionId).toBe(slotRun.executionId);
    expect(read.lastRunAt).toBe(new Date(slot).toISOString());
  });
});

describe('a schedule stored before slotsAfter existed', () => {
  it('counts its next slot from lastRunAt, which then meant the last slot handled', () => {
    const old = {
      createdAt: '2026-01-01T00:00:00.000Z',
      lastRunAt: '2026-06-01T10:00:00.000Z',
    } as ScheduleRecord;
    expect(slotsAfter(old).toISOString()).toBe('2026-06-01T10:00:00.000Z');
    expect(slotsAfter({ ...old, lastRunAt: null }).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(slotsAfter({ ...old, slotsAfter: '2026-06-02T00:00:00.000Z' }).toISOString()).toBe(
      '2026-06-02T00:00:00.000Z',
    );
  });
});
