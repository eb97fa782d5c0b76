import { describe, expect, it } from 'vitest';
import { ItemFailure, TickBatch } from '../../src/util/tick-batch.js';

describe('TickBatch', () => {
  it('sends the calls of one tick together, in call order, and answers each caller', async () => {
    const sent: number[][] = [];
    const batch = new TickBatch<number, number>((_, items) => {
      sent.push([...items]);
      return Promise.resolve(items.map((n) => n * 10));
    });
    const answers = await Promise.all([1, 2, 3].map((n) => batch.add('k', n)));
    expect(sent).toEqual([[1, 2, 3]]);
    expect(answers).toEqual([10, 20, 30]);
  });

  it('an ItemFailure rejects its caller alone; a failed send rejects every caller', async () => {
    const batch = new TickBatch<number>((_, items) =>
      Promise.resolve(items.map((n) => (n === 2 ? new ItemFailure(new Error('two')) : undefined))),
    );
    const settled = await Promise.allSettled([1, 2, 3].map((n) => batch.add('k', n)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const down = new TickBatch<number>(() => Promise.reject(new Error('down')));
    const all = await Promise.allSettled([1, 2].map((n) => down.add('k', n)));
    expect(all.map((s) => s.status)).toEqual(['rejected', 'rejected']);
  });

  it('an item answered by a promise settles its caller alone, not held back by slower items', async () => {
    let releaseSlow: () => void = () => undefined;
    const slow = new Promise<string>((resolve) => (releaseSlow = () => resolve('slow')));
    const batch = new TickBatch<number, string>(() =>
      Promise.resolve([Promise.resolve('fast'), slow, Promise.reject(new Error('bad'))]),
    );
    const [fast, held, bad] = [1, 2, 3].map((n) => batch.add('k', n));
    expect(await fast).toBe('fast');
    await expect(bad).rejects.toThrow('bad');
    let heldDone = false;
    void held!.then(() => (heldDone = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(heldDone).toBe(false);
    releaseSlow();
    expect(await held).toBe('slow');
  });

  it('a full batch goes as it is and the next call starts another', async () => {
    const sizes: number[] = [];
    const batch = new TickBatch<number>(
      (_, items) => {
        sizes.push(items.length);
        return Promise.resolve();
      },
      { maxItems: 4 },
    );
    await Promise.all(Array.from({ length: 10 }, (_, n) => batch.add('k', n)));
    expect(sizes).toEqual([4, 4, 2]);
  });

  it("flushOn 'turn' gathers callers woken by different callbacks of one loop turn", async () => {
    const sizes: number[] = [];
    const batch = new TickBatch<number>(
      (_, items) => {
        sizes.push(items.length);
        return Promise.resolve();
      },
      { flushOn: 'turn' },
    );
    // Three immediates queued together run as three callbacks of one check phase (each with
    // its own microtask drain); the flush, queued from the first, runs in the next one.
    const calls = await new Promise<Promise<void>[]>((resolve) => {
      const made: Promise<void>[] = [];
      for (let n = 0; n < 3; n++)
        setImmediate(() => {
          made.push(batch.add('k', n));
          if (made.length === 3) resolve(made);
        });
    });
    await Promise.all(calls);
    expect(sizes).toEqual([3]);
  });
});
