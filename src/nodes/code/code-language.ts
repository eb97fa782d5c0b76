import type { CodeBackend } from '../../flow/runtime-limits.js';

/**
 * The languages a code node accepts, and the backend each needs. Spellings as in the original
 * (`language`: `js`, `python`) plus `javascript`; matched case-insensitively.
 */
export type CodeLanguage = 'javascript' | 'python';

const SPELLINGS: Readonly<Record<string, CodeLanguage>> = {
  javascript: 'javascript',
  js: 'javascript',
  python: 'python',
  py: 'python',
};

export const LANGUAGE_SPELLINGS = Object.keys(SPELLINGS);

export function parseLanguage(text: string): CodeLanguage | undefined {
  return SPELLINGS[text.trim().toLowerCase()];
}

export function backendOf(language: CodeLanguage): CodeBackend {
  return language === 'python' ? 'python' : 'quickjs';
}

/** How an operator turns a backend on, for the messages that refuse a node. */
export function enableHint(backend: CodeBackend): string {
  const list = backend === 'python' ? 'quickjs,python' : 'quickjs';
  return `the operator enables it with PLAITA_CODE_BACKENDS=${list} (the codeBackends limit)`;
}

/** A whole-string expression (`$INPUT.code`), resolved when the node runs. */
export function isExpression(value: unknown): value is string {
  return typeof value === 'string' && value.trimStart().startsWith('$');
}

/** The original's load-time check for Python: the code must define `run`. */
export function definesPythonRun(source: string): boolean {
  return /\bdef\s+run\s*\(/.test(source);
}
