import { isTerminal, type ExecutionStatus } from '../../../state/execution-state.js';

/**
 * The status this process last saved or claimed per execution: whether a save is likely to
 * change it. Only a hint — on a single Redis it decides whether a save carries its listing-index
 * update into its own script; a save whose status changed without the hint knowing it has its
 * indexes updated after the reply instead. Bounded: dropped wholesale when full; terminal
 * executions are not kept (their saves always carry the update).
 */
export class StatusHints {
  readonly #statuses = new Map<string, ExecutionStatus>();

  constructor(private readonly limit = 50_000) {}

  get(tenantId: string, executionId: string): ExecutionStatus | undefined {
    return this.#statuses.get(`${tenantId}\u0000${executionId}`);
  }

  set(tenantId: string, executionId: string, status: ExecutionStatus): void {
    const key = `${tenantId}\u0000${executionId}`;
    if (isTerminal(status)) {
      this.#statuses.delete(key);
      return;
    }
    if (this.#statuses.size >= this.limit) this.#statuses.clear();
    this.#statuses.set(key, status);
  }
}
