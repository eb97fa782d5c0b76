/**
 * Who may decide an approval is named by text the approvals API matches exactly: a name it
 * refuses to take (`POST …/decisions`, `…/links`) could be listed but never decided, so the
 * approval node refuses it when the flow is loaded and when its approvers are resolved.
 */

/** The longest approver name: an e-mail address's (RFC 3696 errata 1690). */
export const MAX_APPROVER_NAME_LENGTH = 320;

/**
 * C0 controls, DEL, C1 controls, and the line and paragraph separators: none can be typed into
 * a form or a URL as they are, and each would break the audit log's and the inbox's lines.
 */
function isUntypable(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

/** The index of the first character no approver name may have, or -1. */
function untypableAt(name: string): number {
  for (let i = 0; i < name.length; i++) if (isUntypable(name.charCodeAt(i))) return i;
  return -1;
}

/** Whether `name` has a character no approver name may have (see isUntypable). */
export function hasUntypableCharacter(name: string): boolean {
  return untypableAt(name) !== -1;
}

/** How an approver value reads as a name (the approvals list shows it so): a string, or its JSON. */
export function approverText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value) ?? '';
}

/**
 * A `$` reference that gave nothing is kept as its raw text (docs/flow-format.md §3.17), and an
 * empty name is nobody: the approvals list leaves both out, no one decides as them.
 */
export function namesNobody(name: string): boolean {
  return name === '' || name.startsWith('$');
}

/** Why no one could decide as `name`, or null when it is a name one can decide as. */
export function approverNameProblem(name: string): string | null {
  if (name.length > MAX_APPROVER_NAME_LENGTH)
    return `is ${name.length} characters long, over the ${MAX_APPROVER_NAME_LENGTH} an approver name may have`;
  const at = untypableAt(name);
  if (at === -1) return null;
  const code = name.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0');
  return `has a control or line-separator character (U+${code} at index ${at}), which no decision can name`;
}

/** Why no one could decide as the approver `value` names; null for a name, or for nobody. */
export function approverProblem(value: unknown): string | null {
  const name = approverText(value);
  return namesNobody(name) ? null : approverNameProblem(name);
}
