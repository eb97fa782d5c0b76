/**
 * The least fencing generation a new lease holder may get: the clock in microseconds. An
 * execution deleted and made anew under the same id starts its count again; a worker of the old
 * one, stalled while it was deleted, still holds a generation of it, and must be fenced out of
 * the new one. A floor in microseconds puts every later acquisition above it (delete, create and
 * acquire take longer than one); in milliseconds, all three fit in one. Below 2^53 for another
 * 280 years, so exact as a number. The monotonic clock (`performance.now()`) keeps it from
 * going back with the wall clock within a process.
 */
export function generationFloor(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}
