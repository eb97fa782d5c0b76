/** One Server-Sent Event as a client sees it (the fields of the WHATWG event-stream format). */
export interface SseEvent {
  event: string;
  data: string;
  id: string | null;
  retry: number | null;
}

/**
 * Reads a `text/event-stream` response event by event (a test's EventSource): `next` gives the
 * next event, or null once the server closed the stream. Comment lines are kept in `comments`.
 */
export class SseReader {
  readonly comments: string[] = [];
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #ready: SseEvent[] = [];
  #buffer = '';
  #closed = false;

  /** `response`: a fetch response (the global fetch's or undici's). */
  constructor(response: { body: ReadableStream<Uint8Array> | null }) {
    if (!response.body) throw new Error('the response has no body');
    this.#reader = response.body.getReader();
  }

  /** The next event, or null when the stream closed first; throws after `timeoutMs`. */
  async next(timeoutMs = 10_000): Promise<SseEvent | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.#ready.length === 0) {
      if (this.#closed) return null;
      await this.#read(deadline);
    }
    return this.#ready.shift() ?? null;
  }

  /** Events until (and including) the first that matches. */
  async until(match: (event: SseEvent) => boolean, timeoutMs = 10_000): Promise<SseEvent[]> {
    const seen: SseEvent[] = [];
    for (;;) {
      const event = await this.next(timeoutMs);
      if (!event) throw new Error(`the stream closed first; saw ${describe(seen)}`);
      seen.push(event);
      if (match(event)) return seen;
    }
  }

  /** Every event left, until the server closes the stream. */
  async rest(timeoutMs = 10_000): Promise<SseEvent[]> {
    const seen: SseEvent[] = [];
    for (let event = await this.next(timeoutMs); event; event = await this.next(timeoutMs))
      seen.push(event);
    return seen;
  }

  /** Drops the connection (a client that goes away). */
  async cancel(): Promise<void> {
    this.#closed = true;
    await this.#reader.cancel().catch(() => undefined);
  }

  async #read(deadline: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error('no event in time')),
        Math.max(1, deadline - Date.now()),
      );
    });
    try {
      const chunk = await Promise.race([this.#reader.read(), timeout]);
      if (chunk.done) this.#closed = true;
      else this.#buffer += this.#decoder.decode(chunk.value, { stream: true });
    } finally {
      clearTimeout(timer);
    }
    this.#parse();
  }

  #parse(): void {
    this.#buffer = this.#buffer.replace(/\r\n?/g, '\n');
    for (let end = this.#buffer.indexOf('\n\n'); end >= 0; end = this.#buffer.indexOf('\n\n')) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      const event = this.#block(block);
      if (event) this.#ready.push(event);
    }
  }

  #block(block: string): SseEvent | null {
    const event: SseEvent = { event: 'message', data: '', id: null, retry: null };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event.event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') event.id = value;
      else if (field === 'retry') event.retry = Number(value);
    }
    if (data.length === 0) return null;
    event.data = data.join('\n');
    return event;
  }
}

function describe(events: SseEvent[]): string {
  return events.map((e) => `${e.event}#${e.id ?? '-'}`).join(', ') || 'nothing';
}
