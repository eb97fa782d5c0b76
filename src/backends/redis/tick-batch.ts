/**
 * Group commit: the calls made in one tick under one key are sent together, at the end of the
 * tick, by ONE `send` (one command instead of one per call). Each caller gets its own result
 * (`send` answers one per item, in order) or, when the send fails, that failure — as it would
 * have failed alone on the same connection. Items are sent in call order.
 *
 * Used where many concurrent executions touch one slot: a tenant's indexes, the expiry index,
 * the task stream. The end of the tick (process.nextTick) is also when the connection
 * uncorks its socket, so the batch joins the same write as the commands of that tick.
 */
export class TickBatch<I, R = void> {
  readonly #pending = new Map<string, Pending<I, R>>();

  constructor(private readonly send: (key: string, items: readonly I[]) => Promise<Results<R>>) {}

  add(key: string, item: I): Promise<R> {
    let pending = this.#pending.get(key);
    if (!pending) {
      const created: Pending<I, R> = { items: [], settlers: [] };
      this.#pending.set(key, created);
      process.nextTick(() => this.#flush(key, created));
      pending = created;
    }
    const { items, settlers } = pending;
    return new Promise<R>((resolve, reject) => {
      items.push(item);
      settlers.push({ resolve, reject });
    });
  }

  #flush(key: string, { items, settlers }: Pending<I, R>): void {
    this.#pending.delete(key);
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
    sent.then((results) => {
      for (let i = 0; i < settlers.length; i++) settlers[i]!.resolve(results?.[i] as R);
    }, fail);
  }
}

/** One result per item, in order; `void` when every caller gets `undefined`. */
type Results<R> = readonly R[] | void;

interface Pending<I, R> {
  items: I[];
  settlers: { resolve: (value: R) => void; reject: (error: unknown) => void }[];
}
