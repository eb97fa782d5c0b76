import { crc16 } from '../key-slot.js';
import type { Delivery } from '../../../queue/task-queue.js';
import { compareStreamIds } from './stream-replies.js';

/**
 * How a partitioned queue names its partitions' entries. With one partition an id is the
 * stream id itself (`<ms>-<seq>`, what the queue has always returned); with N > 1 it is
 * `<partition>:<ms>-<seq>`, so `ack`, `renew`, `deadLetter` and `replayDeadLetter` find the
 * partition from the id alone — also for a malformed message that names no execution.
 */
export class PartitionRoute {
  constructor(readonly count: number) {}

  /** The partition of an execution's messages: stable, so they keep their order. */
  of(executionId: string): number {
    return this.count === 1 ? 0 : crc16(executionId) % this.count;
  }

  qualify(partition: number, streamId: string): string {
    return this.count === 1 ? streamId : `${partition}:${streamId}`;
  }

  qualifyDelivery(partition: number, delivery: Delivery): Delivery {
    return this.count === 1 ? delivery : { ...delivery, id: this.qualify(partition, delivery.id) };
  }

  /** The partition and stream id an id names, or null when it names none of ours. */
  locate(id: string): { partition: number; streamId: string } | null {
    if (this.count === 1) return { partition: 0, streamId: id };
    const match = /^(\d+):(\d+-\d+)$/.exec(id);
    if (!match) return null;
    const partition = Number(match[1]);
    return partition < this.count ? { partition, streamId: match[2]! } : null;
  }
}

/**
 * `total` split over `n` partitions as evenly as possible; the remainder goes to the partitions
 * from `offset` on, so a caller rotating `offset` serves every partition in turn.
 */
export function shares(total: number, n: number, offset: number): number[] {
  const base = Math.floor(total / n);
  const out = Array.from({ length: n }, () => base);
  for (let j = 0; j < total % n; j++) out[(offset + j) % n]! += 1;
  return out;
}

/** Newest first across partitions: stream id descending, then partition descending. */
export function compareNewestFirst(
  a: { partition: number; streamId: string },
  b: { partition: number; streamId: string },
): number {
  return compareStreamIds(b.streamId, a.streamId) || b.partition - a.partition;
}
