/**
 * Group commit: the calls made in one tick under one key are sent together, at the end of the
 * tick, by ONE `send` (one command, one transaction, instead of one per call). Each caller gets
 * its own result (`send` answers one per item, in order; an {@link ItemFailure} rejects that
 * caller alone, and a promise settles that caller when it settles) or, when the whole send fails, that failure — as it would have failed alone on
 * the same connection. Items are sent in call order.
 *
 * `flushOn: 'tick'` (the default) sends at the end of the tick (process.nextTick): on Redis,
 * when the connection uncorks its socket, so the batch joins the same write as the commands
 * of that tick. `'turn'` sends once this turn of the event loop has run every I/O callback that
 * was ready (setImmediate): callers woken by different replies (a pool of SQL connections)
 * or resumed one per callback land in one batch. Neither waits on a timer: a lone call waits
 * at most for the callbacks already due, so latency at concurrency 1 does not grow.
 */
export class TickBatch<I, R = void> {
  readonly #pending = new Map<string, Pending<I, R>>();
  /** Batches not sent yet (a full one leaves `#pending` before its flush), for {@link settle}. */
  readonly #unsent = new Set<Pending<I, R>>();
  /** Sends under way, for {@link settle}. */
  readonly #sending = new Set<Promise<unknown>>();
  readonly #maxItems: number;

  constructor(
    private readonly send: (key: string, items: readonly I[]) => Promise<Results<R>>,
    options: { maxItems?: number; flushOn?: 'tick' | 'turn' } = {},
  ) {
    this.#maxItems = Math.max(1, options.maxItems ?? Infinity);
    this.#schedule =
      options.flushOn === 'turn'
        ? (flush) => setImmediate(flush)
        : (flush) => process.nextTick(flush);
  }

  readonly #schedule: (flush: () => void) => unknown;

  add(key: string, item: I): Promise<R> {
    let pending = this.#pending.get(key);
    if (!pending) {
      const created: Pending<I, R> = { key, items: [], settlers: [] };
      this.#pending.set(key, created);
      this.#unsent.add(created);
      this.#schedule(() => this.#flush(key, created));
      pending = created;
    }
    const { items, settlers } = pending;
    // A full batch goes as it is; the next call under this key starts another.
    if (items.length + 1 >= this.#maxItems) this.#pending.delete(key);
    return new Promise<R>((resolve, reject) => {
      items.push(item);
      settlers.push({ resolve, reject });
    });
  }

  /**
   * Sends what is waiting for the end of the tick now, and resolves once every send under way
   * has settled: what a `close()` awaits, so a write its caller was promised is not dropped.
   */
  async settle(): Promise<void> {
    for (const pending of [...this.#unsent]) this.#flush(pending.key, pending);
    await Promise.allSettled([...this.#sending]);
  }

  #flush(key: string, pending: Pending<I, R>): void {
    // Already sent (settle() came first, then the scheduled flush): nothing to do.
    if (!this.#unsent.delete(pending)) return;
    if (this.#pending.get(key) === pending) this.#pending.delete(key);
    const { items, settlers } = pending;
    const fail = (error: unknown): void => {
      for (const settler of settlers) settler.reject(error);
    };
    let sent: Promise<Results<R>>;
    try {
      sent = this.send(key, items);
    } catch (error) {
      fail(error);
      return;
    }
    // Until the items sent again alone have settled too: close() must wait for them as well.
    const whole: Promise<unknown> = sent.then(
      (results) =>
        results?.some(isPromiseLike) ? Promise.allSettled(results.filter(isPromiseLike)) : null,
      () => undefined,
    );
    this.#sending.add(whole);
    void whole.finally(() => this.#sending.delete(whole));
    sent.then((results) => {
      for (let i = 0; i < settlers.length; i++) {
        const { resolve, reject } = settlers[i]!;
        const result = results?.[i];
        if (result instanceof ItemFailure) reject(result.error);
        // An item finished on its own (sent again alone): its caller waits for it alone.
        else if (isPromiseLike(result)) result.then(resolve, reject);
        else resolve(result as R);
      }
    }, fail);
  }
}

/** One item of a batch that failed on its own (the others may have succeeded). */
export class ItemFailure {
  constructor(readonly error: unknown) {}
}

/**
 * One result per item, in order; `void` when every caller gets `undefined`. An item may be a
 * promise of its own result (settled independently of the others).
 */
type Results<R> = readonly (R | ItemFailure | PromiseLike<R>)[] | void;

function isPromiseLike(value: unknown): value is PromiseLike<never> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

interface Pending<I, R> {
  key: string;
  items: I[];
  settlers: { resolve: (value: R) => void; reject: (error: unknown) => void }[];
}
