import type { QuickJSSandbox } from './quickjs-sandbox.js';

/**
 * Warm sandboxes by key (the code text), least recently used evicted first. Making a sandbox
 * costs a runtime, a context and a compile (about a millisecond); calling a warm one costs
 * microseconds. The JavaScript backend keeps one pool per tenant, so whatever a run leaves in
 * a sandbox's globals is only ever seen by the same code of the same tenant (see
 * docs/code-node.md, "Isolation between runs").
 */
export class SandboxPool {
  readonly #entries = new Map<string, QuickJSSandbox>();

  constructor(readonly capacity = 64) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The warm sandbox for `key`, or a new one from `create` (which may throw: nothing is kept). */
  acquire(key: string, create: () => QuickJSSandbox): QuickJSSandbox {
    const warm = this.#entries.get(key);
    if (warm !== undefined) {
      // Re-inserting moves the entry to the end: Map iteration order is the LRU order.
      this.#entries.delete(key);
      this.#entries.set(key, warm);
      return warm;
    }
    const sandbox = create();
    this.#entries.set(key, sandbox);
    this.#evict();
    return sandbox;
  }

  /** Drops and frees the sandbox of `key` (after a run left it unusable). */
  discard(key: string): void {
    const sandbox = this.#entries.get(key);
    if (sandbox === undefined) return;
    this.#entries.delete(key);
    sandbox.dispose();
  }

  /** Frees every sandbox. */
  clear(): void {
    for (const sandbox of this.#entries.values()) sandbox.dispose();
    this.#entries.clear();
  }

  /** Forgets every sandbox without freeing it: their WebAssembly instance is gone. */
  abandon(): void {
    this.#entries.clear();
  }

  #evict(): void {
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value as string;
      this.discard(oldest);
    }
  }
}
