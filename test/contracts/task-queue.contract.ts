import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Delivery, TaskQueue, TaskQueueOptions } from '../../src/queue/task-queue.js';
import type { TaskMessage } from '../../src/queue/task-message.js';
import { FakeClock } from '../../src/util/fake-clock.js';

/**
 * What a backend provides to the shared queue suite. One harness = one isolated storage (a
 * unique key prefix, a temp file); `open` may be called several times for several queue objects
 * on that storage — the view of another worker process.
 */
export interface TaskQueueHarness {
  open(options?: Pick<TaskQueueOptions, 'visibilityTimeoutMs' | 'dlqMaxLen' | 'clock'>): TaskQueue;
  /** Stores a raw payload as a ready message, bypassing `enqueue` (what a foreign writer could do). */
  injectRaw(payload: string): Promise<void>;
  /** Messages physically stored (ready + in flight): proves that an ack deletes. */
  storedMessages(): Promise<number>;
  /** Closes every queue it opened and releases the storage. */
  close(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const run = (executionId: string): TaskMessage => ({
  v: 1,
  kind: 'run',
  executionId,
  tenantId: 't1',
});
const executionOf = (d: Delivery): string =>
  d.parsed.ok ? d.parsed.message.executionId : `malformed:${d.payload}`;

/**
 * What a queue promises beyond the contract. A partitioned queue (RedisStreamQueue with
 * `partitions > 1`) keeps the order of one execution's messages, not between executions, and
 * caps dead letters per partition: the suite then checks the same deliveries as sets.
 */
export interface TaskQueueTraits {
  /** Messages of different executions come out in enqueue order (default true). */
  globalOrder?: boolean;
  /** `dlqMaxLen` caps all dead letters together (default true). */
  exactDeadLetterCap?: boolean;
}

/** The conformance suite every TaskQueue passes (docs/durable-contract.md §4). */
export function describeTaskQueue(
  name: string,
  factory: () => Promise<TaskQueueHarness>,
  describeFn: (title: string, body: () => void) => void = describe,
  traits: TaskQueueTraits = {},
): void {
  const ordered = traits.globalOrder !== false;
  /** The sequence as the queue promises it: as is, or as a multiset when order is not kept. */
  const inOrder = <T>(items: readonly T[]): T[] =>
    ordered ? [...items] : [...items].sort((a, b) => (String(a) < String(b) ? -1 : 1));
  describeFn(`TaskQueue contract: ${name}`, () => {
    let harness: TaskQueueHarness;
    let queue: TaskQueue;

    beforeEach(async () => {
      harness = await factory();
      queue = harness.open();
    });
    afterEach(async () => {
      await harness.close();
    });

    describe('delivery', () => {
      it('delivers an enqueued message once with deliveryCount 1, and ack deletes it', async () => {
        const id = await queue.enqueue(run('e1'));
        expect(typeof id).toBe('string');
        expect(await harness.storedMessages()).toBe(1);
        const [delivery, ...rest] = await queue.receive('c1', { max: 10, blockMs: 0 });
        expect(rest).toEqual([]);
        expect(delivery).toMatchObject({
          id,
          deliveryCount: 1,
          parsed: { ok: true, message: run('e1') },
        });
        expect(JSON.parse(delivery!.payload)).toEqual(run('e1'));
        expect(await queue.receive('c2', { max: 10, blockMs: 0 })).toEqual([]);
        await queue.ack(delivery!);
        expect(await harness.storedMessages()).toBe(0);
        await queue.ack(delivery!); // idempotent
      });

      it('honours max and keeps enqueue order', async () => {
        for (const e of ['a', 'b', 'c']) await queue.enqueue(run(e));
        const first = await queue.receive('c1', { max: 2, blockMs: 0 });
        const second = await queue.receive('c1', { max: 2, blockMs: 0 });
        expect(first).toHaveLength(2);
        expect(second).toHaveLength(1);
        expect(inOrder([...first, ...second].map(executionOf))).toEqual(['a', 'b', 'c']);
        expect(await queue.receive('c1', { max: 0, blockMs: 0 })).toEqual([]);
      });

      it('keeps unknown extra fields of a valid message', async () => {
        await queue.enqueue({ ...run('e1'), traceId: 'x-1' });
        const [delivery] = await queue.receive('c1', { max: 1, blockMs: 0 });
        expect(delivery!.parsed).toMatchObject({ ok: true, message: { traceId: 'x-1' } });
      });

      it('blocks up to blockMs when empty, and wakes as soon as a message arrives', async () => {
        let started = Date.now();
        expect(await queue.receive('c1', { max: 1, blockMs: 300 })).toEqual([]);
        expect(Date.now() - started).toBeGreaterThanOrEqual(250);
        started = Date.now();
        const other = harness.open();
        const receiving = queue.receive('c1', { max: 1, blockMs: 5000 });
        await sleep(100);
        await other.enqueue(run('late'));
        const got = await receiving;
        expect(got.map(executionOf)).toEqual(['late']);
        expect(Date.now() - started).toBeLessThan(2000);
      });

      it('enqueues and acks accepted before close() are written, not dropped', async () => {
        const writer = harness.open();
        await writer.enqueue(run('warm')); // connected, in use
        const [warm] = await writer.receive('c1', { max: 1, blockMs: 0 });
        // In the same turn as close(): a queue that commits in groups still holds them.
        const acked = writer.ack(warm!);
        const enqueued = writer.enqueue(run('kept'));
        await writer.close();
        await acked;
        await enqueued;
        const got = await queue.receive('c2', { max: 5, blockMs: 500 });
        expect(got.map(executionOf)).toEqual(['kept']);
      });

      it('ends a blocked receive empty when the queue is closed', async () => {
        const receiving = queue.receive('c1', { max: 1, blockMs: 10_000 });
        await sleep(50);
        const started = Date.now();
        await queue.close();
        expect(await receiving).toEqual([]);
        expect(Date.now() - started).toBeLessThan(2000);
      });
    });

    describe('visibility', () => {
      it('redelivers an unacknowledged message after the visibility timeout, counting deliveries', async () => {
        queue = harness.open({ visibilityTimeoutMs: 200 });
        await queue.enqueue(run('e1'));
        const [first] = await queue.receive('c1', { max: 1, blockMs: 0 });
        expect(first!.deliveryCount).toBe(1);
        expect(await queue.receive('c2', { max: 1, blockMs: 0 })).toEqual([]);
        await sleep(300);
        const [second] = await queue.receive('c2', { max: 1, blockMs: 0 });
        expect(second).toMatchObject({ id: first!.id, deliveryCount: 2, payload: first!.payload });
        await sleep(300);
        const [third] = await queue.receive('c3', { max: 1, blockMs: 0 });
        expect(third!.deliveryCount).toBe(3);
      });

      it("gives a dead consumer's message to another queue object (another process)", async () => {
        const dying = harness.open({ visibilityTimeoutMs: 200 });
        const alive = harness.open({ visibilityTimeoutMs: 200 });
        await dying.enqueue(run('e1'));
        const [lost] = await dying.receive('dead-worker', { max: 1, blockMs: 0 });
        await dying.close(); // died without ack
        const [taken] = await alive.receive('live-worker', { max: 1, blockMs: 2000 });
        expect(taken).toMatchObject({ id: lost!.id, deliveryCount: 2 });
        await alive.ack(taken!);
        expect(await harness.storedMessages()).toBe(0);
      });

      it('renew keeps a live consumer\u2019s message invisible without counting a delivery', async () => {
        queue = harness.open({ visibilityTimeoutMs: 300 });
        await queue.enqueue(run('e1'));
        const [held] = await queue.receive('c1', { max: 1, blockMs: 0 });
        for (let i = 0; i < 5; i++) {
          await sleep(120);
          expect(await queue.renew(held!, 'c1')).toBe(true);
          expect(await queue.receive('c2', { max: 1, blockMs: 0 })).toEqual([]);
        }
        expect(await queue.renew(held!, 'c2')).toBe(false); // a non-owner never takes it over
        await sleep(400);
        const [taken] = await queue.receive('c2', { max: 1, blockMs: 0 });
        expect(taken).toMatchObject({ id: held!.id, deliveryCount: 2 });
        expect(await queue.renew(held!, 'c1')).toBe(false); // lost to c2
        expect(await queue.renew(taken!, 'c2')).toBe(true);
        await queue.ack(taken!);
        expect(await queue.renew(taken!, 'c2')).toBe(false);
      });
    });

    describe('malformed messages', () => {
      it('delivers anything stored with parsed.ok === false instead of crashing or skipping it', async () => {
        const raw = [
          '{not json',
          JSON.stringify({ v: 1, kind: 'explode', executionId: 'e-x', tenantId: 't1' }),
          JSON.stringify({ ...run('e-v2'), v: 2 }),
          JSON.stringify({ v: 1, kind: 'event', executionId: 'e-ev', tenantId: 't1' }),
        ];
        for (const payload of raw) await harness.injectRaw(payload);
        await queue.enqueue(run('good'));
        const received = await queue.receive('c1', { max: 10, blockMs: 0 });
        expect(inOrder(received.map((d) => d.payload))).toEqual(
          inOrder([...raw, JSON.stringify(run('good'))]),
        );
        // The raw ones in their own order (one writer, one stream), then the good one.
        const good = received.filter((d) => d.parsed.ok);
        const got = [...received.filter((d) => !d.parsed.ok), ...good];
        expect(got.map((d) => d.payload)).toEqual([...raw, JSON.stringify(run('good'))]);
        expect(good).toHaveLength(1);
        expect(got.every((d) => d.deliveryCount === 1)).toBe(true);
        const v2 = got[2]!.parsed;
        expect(v2.ok === false && v2.reason).toMatch(/v2/);
        for (const d of got.slice(0, 4))
          await queue.deadLetter(d, 'malformed', d.parsed.ok ? null : d.parsed.reason);
        const { items } = await queue.listDeadLetters();
        expect(items.map((i) => i.executionId)).toEqual(['e-ev', 'e-v2', 'e-x', null]);
        expect(await harness.storedMessages()).toBe(1);
      });
    });

    describe('dead letters', () => {
      it('writes {reason, lastError, deliveryCount, payload, executionId, at} and acknowledges', async () => {
        await queue.enqueue(run('e1'));
        const [d] = await queue.receive('c1', { max: 1, blockMs: 0 });
        const before = Date.now();
        await queue.deadLetter(d!, 'delivery_exhausted', 'store down');
        expect(await harness.storedMessages()).toBe(0);
        expect(await queue.receive('c1', { max: 1, blockMs: 0 })).toEqual([]);
        const { items, nextCursor } = await queue.listDeadLetters();
        expect(nextCursor).toBeNull();
        expect(items).toHaveLength(1);
        expect(items[0]).toMatchObject({
          reason: 'delivery_exhausted',
          lastError: 'store down',
          deliveryCount: 1,
          payload: d!.payload,
          executionId: 'e1',
        });
        expect(Date.parse(items[0]!.at)).toBeGreaterThanOrEqual(before - 1000);
        expect(items[0]!.at).toBe(new Date(items[0]!.at).toISOString());
        expect((await queue.stats()).deadLetters).toBe(1);
      });

      it('records a missing lastError as null, and writes nothing for an already acknowledged delivery', async () => {
        await queue.enqueue(run('e1'));
        const [d] = await queue.receive('c1', { max: 1, blockMs: 0 });
        await queue.deadLetter(d!, 'unknown_execution');
        await queue.deadLetter(d!, 'unknown_execution'); // a retried call after a lost reply
        const { items } = await queue.listDeadLetters();
        expect(items).toHaveLength(1);
        expect(items[0]!.lastError).toBeNull();
      });

      it('caps the dead-letter queue at dlqMaxLen, dropping the oldest', async () => {
        queue = harness.open({ dlqMaxLen: 3 });
        for (let i = 0; i < 5; i++) await queue.enqueue(run(`e${i}`));
        for (const [i, d] of (await queue.receive('c1', { max: 5, blockMs: 0 })).entries())
          await queue.deadLetter(d, `r${i}`);
        const { items } = await queue.listDeadLetters();
        if (traits.exactDeadLetterCap !== false)
          expect(items.map((i) => i.reason)).toEqual(['r4', 'r3', 'r2']);
        else expect(items.length).toBeLessThanOrEqual(5); // capped per partition
      });

      it('lists newest first with a cursor, replays and purges', async () => {
        for (let i = 0; i < 5; i++) await queue.enqueue(run(`e${i}`));
        for (const [i, d] of (await queue.receive('c1', { max: 5, blockMs: 0 })).entries())
          await queue.deadLetter(d, `r${i}`);
        const pages: string[][] = [];
        let cursor: string | null = null;
        do {
          const page: Awaited<ReturnType<TaskQueue['listDeadLetters']>> =
            await queue.listDeadLetters({ limit: 2, cursor });
          pages.push(page.items.map((i) => i.reason));
          cursor = page.nextCursor;
        } while (cursor !== null);
        expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
        expect(inOrder(pages.flat())).toEqual(inOrder(['r4', 'r3', 'r2', 'r1', 'r0']));
        if (ordered) expect(pages).toEqual([['r4', 'r3'], ['r2', 'r1'], ['r0']]);

        const newest = (await queue.listDeadLetters({ limit: 1 })).items[0]!;
        const oldest = (await queue.listDeadLetters({ limit: 5 })).items[4]!;
        expect(await queue.findDeadLetter(newest.id)).toEqual(newest);
        expect(await queue.findDeadLetter(oldest.id)).toEqual(oldest);
        expect(await queue.findDeadLetter('no-such-id')).toBeNull();
        expect(await queue.replayDeadLetter(newest.id)).toBe(true);
        expect(await queue.findDeadLetter(newest.id)).toBeNull();
        expect(await queue.replayDeadLetter(newest.id)).toBe(false);
        expect(await queue.replayDeadLetter('no-such-id')).toBe(false);
        const [replayed] = await queue.receive('c2', { max: 5, blockMs: 0 });
        expect(replayed).toMatchObject({
          deliveryCount: 1,
          payload: newest.payload,
          parsed: { ok: true, message: ordered ? run('e4') : JSON.parse(newest.payload) },
        });
        expect((await queue.listDeadLetters()).items).toHaveLength(4);

        expect(await queue.purgeDeadLetters()).toBe(4);
        expect(await queue.purgeDeadLetters()).toBe(0);
        expect((await queue.listDeadLetters()).items).toEqual([]);
      });
    });

    describe('delayed messages', () => {
      it('are invisible until due, then delivered', async () => {
        // 1 s: the checks before it is due must run before it is, also on a loaded CI machine
        // (at 300 ms a cluster under load once answered the first receive after the due time).
        const timerId = await queue.enqueue(run('later'), { delayMs: 1000 });
        expect(typeof timerId).toBe('string');
        expect(await queue.receive('c1', { max: 1, blockMs: 0 })).toEqual([]);
        expect(await queue.promoteDue()).toBe(0);
        expect((await queue.stats()).delayed).toBe(1);
        const [d] = await queue.receive('c1', { max: 1, blockMs: 4000 });
        expect(d).toMatchObject({ deliveryCount: 1, parsed: { ok: true, message: run('later') } });
        expect(await queue.cancelDelayed(timerId)).toBe(false); // already fired
      });

      it('promoteDue(now) moves what is due at that time and reports how many', async () => {
        await queue.enqueue(run('a'), { delayMs: 60_000 });
        await queue.enqueue(run('b'), { delayMs: 120_000 });
        expect(await queue.promoteDue(Date.now() + 90_000)).toBe(1);
        expect((await queue.stats()).delayed).toBe(1);
        expect((await queue.receive('c1', { max: 5, blockMs: 0 })).map(executionOf)).toEqual(['a']);
      });

      it("a delay is counted on the queue's clock, not the process's", async () => {
        const clock = new FakeClock(Date.now() - 86_400_000);
        const timed = harness.open({ clock });
        await timed.enqueue(run('c'), { delayMs: 60_000 });
        expect(await timed.promoteDue()).toBe(0);
        await clock.advance(60_000);
        expect(await timed.promoteDue()).toBe(1);
        expect((await timed.receive('c1', { max: 5, blockMs: 0 })).map(executionOf)).toEqual(['c']);
      });

      it('a dedupId makes scheduling idempotent', async () => {
        const first = await queue.enqueue(run('t'), { delayMs: 200, dedupId: 'timer:e1:n1:1' });
        const again = await queue.enqueue(run('t'), { delayMs: 200, dedupId: 'timer:e1:n1:1' });
        expect(first).toBe('timer:e1:n1:1');
        expect(again).toBe(first);
        expect((await queue.stats()).delayed).toBe(1);
        await sleep(250);
        const got = await queue.receive('c1', { max: 5, blockMs: 0 });
        expect(got.map(executionOf)).toEqual(['t']);
      });

      it('cancelDelayed removes a pending timer, by returned id or dedupId', async () => {
        const id = await queue.enqueue(run('a'), { delayMs: 200 });
        await queue.enqueue(run('b'), { delayMs: 200, dedupId: 'd-b' });
        expect(await queue.cancelDelayed(id)).toBe(true);
        expect(await queue.cancelDelayed('d-b')).toBe(true);
        expect(await queue.cancelDelayed(id)).toBe(false);
        expect(await queue.cancelDelayed('never')).toBe(false);
        await sleep(250);
        expect(await queue.receive('c1', { max: 5, blockMs: 0 })).toEqual([]);
        expect((await queue.stats()).delayed).toBe(0);
      });

      it('are delivered exactly once when two workers promote and receive concurrently', async () => {
        const ids = Array.from({ length: 30 }, (_, i) => `e${i}`);
        for (const [i, e] of ids.entries())
          await queue.enqueue(run(e), { delayMs: 150 + (i % 5) * 20 });
        const seen: string[] = [];
        const worker = async (q: TaskQueue, consumer: string): Promise<void> => {
          const until = Date.now() + 1200;
          while (Date.now() < until) {
            await q.promoteDue();
            for (const d of await q.receive(consumer, { max: 4, blockMs: 50 })) {
              seen.push(executionOf(d));
              await q.ack(d);
            }
          }
        };
        await Promise.all([
          worker(harness.open(), 'w1'),
          worker(harness.open(), 'w2'),
          worker(queue, 'w3'),
        ]);
        expect(seen.sort()).toEqual([...ids].sort());
        expect(await harness.storedMessages()).toBe(0);
      });
    });

    describe('stats', () => {
      it('counts ready, in-flight, delayed and dead letters, and the age of the oldest ready message', async () => {
        expect(await queue.stats()).toEqual({
          ready: 0,
          inFlight: 0,
          delayed: 0,
          deadLetters: 0,
          oldestReadyAgeMs: null,
        });
        for (const e of ['a', 'b', 'c', 'd']) await queue.enqueue(run(e));
        await queue.enqueue(run('later'), { delayMs: 60_000 });
        await sleep(60);
        const [a, b] = await queue.receive('c1', { max: 2, blockMs: 0 });
        await queue.deadLetter(b!, 'malformed');
        const stats = await queue.stats();
        expect(stats).toMatchObject({ ready: 2, inFlight: 1, delayed: 1, deadLetters: 1 });
        expect(stats.oldestReadyAgeMs).toBeGreaterThanOrEqual(40);
        expect(stats.oldestReadyAgeMs).toBeLessThan(10_000);
        await queue.ack(a!);
        for (const d of await queue.receive('c1', { max: 5, blockMs: 0 })) await queue.ack(d);
        expect(await queue.stats()).toEqual({
          ready: 0,
          inFlight: 0,
          delayed: 1,
          deadLetters: 1,
          oldestReadyAgeMs: null,
        });
      });
    });
  });
}
