/** §5.2: how a string in an evaluated field is treated. */
export type StringKind = 'expression' | 'template' | 'literal';

/** `$…` is a whole expression, anything else holding `{%` a template, the rest literal text. */
export function classifyString(s: string): StringKind {
  if (s.charCodeAt(0) === 0x24) return 'expression';
  return s.includes('{%') ? 'template' : 'literal';
}

/** The nested-expression rule (§5.5) re-evaluates exactly the strings that are not literal. */
export function isEvaluable(s: string): boolean {
  return s.charCodeAt(0) === 0x24 || s.includes('{%');
}
