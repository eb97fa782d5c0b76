import { isRecord } from '../../expression/value-kind.js';
import { closestName } from './closest-name.js';
import type { FlowIssue } from './flow-issue.js';
import { pathTo } from './flow-scope.js';
import { keyHint } from './key-hints.js';
import { isKnownKey, objectShapeOf, type Shape } from './known-keys.js';

export interface KeyOwner {
  /** What the keys belong to, for messages: `a switch node`, `the flow`. */
  readonly label: string;
  /** Node type for the meaning-based hints; null at the top level. */
  readonly type: string | null;
  readonly nodeId: string | null;
}

/**
 * Keys the loader ignores (it warns about the same ones at the top of an object), with the key
 * most likely meant. Also looks inside known fields whose schema is an object or a list of
 * objects — handlers, branches, cases — where a misspelt key is ignored just as silently.
 */
export function unknownKeyIssues(
  raw: Record<string, unknown>,
  known: { shape: Shape; extra: readonly string[] },
  path: string,
  owner: KeyOwner,
): FlowIssue[] {
  const issues: FlowIssue[] = [];
  checkObject(raw, known, path, owner, issues, true);
  return issues;
}

function checkObject(
  raw: Record<string, unknown>,
  known: { shape: Shape; extra: readonly string[] },
  path: string,
  owner: KeyOwner,
  issues: FlowIssue[],
  top: boolean,
): void {
  const candidates = [...Object.keys(known.shape), ...known.extra];
  for (const key of Object.keys(raw)) {
    const at = pathTo(path, key);
    if (!isKnownKey(key, known)) {
      issues.push(unknownKey(key, at, candidates, owner, top));
      continue;
    }
    const inner = objectShapeOf(known.shape[key]);
    if (inner === null) continue;
    const value = raw[key];
    const nested = { shape: inner, extra: [] };
    const label = { ...owner, label: `${owner.label}'s ${key}` };
    if (isRecord(value)) checkObject(value, nested, at, label, issues, false);
    else if (Array.isArray(value))
      value.forEach((item: unknown, i) => {
        if (isRecord(item)) checkObject(item, nested, pathTo(at, i), label, issues, false);
      });
  }
}

function unknownKey(
  key: string,
  path: string,
  candidates: readonly string[],
  owner: KeyOwner,
  top: boolean,
): FlowIssue {
  const hint = top && owner.type !== null ? keyHint(owner.type, key) : undefined;
  const suggestion = hint?.suggestion ?? (hint?.note ? undefined : closestName(key, candidates));
  let message = `unknown key "${key}" on ${owner.label} is ignored`;
  if (suggestion !== undefined) message += `; did you mean "${suggestion}"?`;
  else if (hint?.note) message += `; ${hint.note}`;
  return {
    severity: 'warning',
    code: 'unknown_key',
    path,
    nodeId: owner.nodeId,
    message,
    ...(suggestion === undefined ? {} : { suggestion }),
  };
}
