/**
 * Python sequence positions: `a[i]` (negative counts from the end) and the bounds of `a[start:end]`
 * (negative and null bounds as in Python, clamped to the sequence).
 */

/** The non-negative position `index` designates, or `undefined` when it is out of range. */
export function resolveIndex(index: number, length: number): number | undefined {
  const position = index < 0 ? index + length : index;
  return position >= 0 && position < length ? position : undefined;
}

/** `[start, end)` of `a[start:end]` with step 1; `null` means "from the start" / "to the end". */
export function sliceBounds(
  start: number | null,
  end: number | null,
  length: number,
): [number, number] {
  return [clampBound(start, 0, length), clampBound(end, length, length)];
}

function clampBound(bound: number | null, absent: number, length: number): number {
  if (bound === null) return absent;
  const position = bound < 0 ? bound + length : bound;
  return Math.min(Math.max(position, 0), length);
}
