import { EXIT } from './exit-codes.js';

/**
 * After a worker's drain timed out, what it cut off was abandoned (redelivered once the
 * visibility timeout passes), but a node that ignores its AbortSignal may still hold the event
 * loop: a stopped process exits now, as the operator was told, rather than when that node
 * returns. (Logs are written synchronously: nothing buffered is lost.)
 */
export function exitIfWorkWasCutOff(worker: { readonly abandonedOnStop: number } | null): void {
  if (worker !== null && worker.abandonedOnStop > 0) process.exit(EXIT.ok);
}

/** The terminal's last line for a stop that cut work off. */
export function cutOffNote(worker: { readonly abandonedOnStop: number } | null): string {
  const n = worker?.abandonedOnStop ?? 0;
  return n === 0
    ? ''
    : ` (${n} execution${n === 1 ? '' : 's'} cut off at the drain time: redelivered after the visibility timeout)`;
}
