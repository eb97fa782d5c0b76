/**
 * When `receive` runs the two scans it does not need on every call: promoting due timers and
 * reclaiming expired deliveries (XAUTOCLAIM). Running both on every receive costs two scripts
 * per message; skipping them between intervals keeps a busy worker at one XREADGROUP per
 * receive. A scan that found a full batch runs again at once (there may be more).
 *
 * Costs of the intervals: a message whose visibility timeout expired is reclaimed up to
 * `claimIntervalMs` later (a tenth of the visibility timeout, 10 ms – 1 s); a timer scheduled
 * by another process is promoted up to `promoteIntervalMs` later by a busy receiver (timers this
 * object schedules, and the earliest due time seen, are promoted on time).
 */
export class ScanSchedule {
  private promoteAt = 0;
  private claimAt = 0;
  /** Due time of the earliest pending timer, as of the last promotion (null: none). */
  private nextDueMs: number | null = null;
  readonly claimIntervalMs: number;

  constructor(
    visibilityTimeoutMs: number,
    private readonly promoteIntervalMs = 100,
  ) {
    this.claimIntervalMs = Math.min(1000, Math.max(10, Math.floor(visibilityTimeoutMs / 10)));
  }

  shouldPromote(now: number): boolean {
    return now >= this.promoteAt;
  }

  shouldClaim(now: number): boolean {
    return now >= this.claimAt;
  }

  promoted(now: number, moved: number, batch: number, nextDueMs: number | null): void {
    this.nextDueMs = nextDueMs;
    this.promoteAt =
      moved >= batch ? now : Math.min(now + this.promoteIntervalMs, nextDueMs ?? Infinity);
  }

  claimed(now: number, count: number, max: number): void {
    this.claimAt = count >= max ? now : now + this.claimIntervalMs;
  }

  /** A timer this object scheduled: promote it when due, not an interval later. */
  scheduled(dueMs: number): void {
    this.promoteAt = Math.min(this.promoteAt, dueMs);
    this.nextDueMs = this.nextDueMs === null ? dueMs : Math.min(this.nextDueMs, dueMs);
  }

  /** When a blocked read must return so the next scan can run: the next claim or the next known due timer. */
  wakeAt(): number {
    return Math.min(this.claimAt, this.nextDueMs ?? Infinity);
  }
}
