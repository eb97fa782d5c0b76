import { randomUUID } from 'node:crypto';

/** Top-level `$EXECUTION_ID` when the caller gives none: 32 hex digits (docs/flow-format.md §5.4). */
export function randomExecutionId(): string {
  // randomUUID draws from a cached entropy pool: far cheaper per call than randomBytes.
  return randomUUID().replace(/-/g, '');
}

/** Percent-encodes the separators of derived child ids (docs/flow-format.md §2.4). */
export function encodeIdPart(part: string | number): string {
  return String(part).replace(/%/g, '%25').replace(/:/g, '%3A').replace(/\//g, '%2F');
}

export function childExecutionId(
  parentId: string,
  nodeId: string,
  visit: number,
  slot: string | number,
): string {
  return `${parentId}/${encodeIdPart(nodeId)}/${visit}/${encodeIdPart(slot)}`;
}
