import { CodeError } from '../../errors/code-errors.js';

/**
 * The input of a Python code node as JSON text, as the original sends it. Only JSON crosses
 * to Python: a Date becomes its ISO text (as `JSON.stringify` writes it), `undefined` in an
 * object is dropped; anything JSON would silently mangle (a Map, a Set, a BigInt, bytes,
 * NaN) is refused with its path instead of reaching the code as `{}` or `null`.
 */
export function pythonInputJson(value: unknown): string {
  return JSON.stringify(toJson(value, 'input', 0)) ?? 'null';
}

const MAX_DEPTH = 1000;

function toJson(value: unknown, path: string, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw refuse(path, String(value));
      return value;
    case 'undefined':
      return undefined;
    case 'object':
      break;
    default:
      throw refuse(path, typeof value);
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH) throw refuse(path, `nesting deeper than ${MAX_DEPTH} levels`);
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw refuse(path, 'an invalid Date');
    return value.toISOString();
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown, i) => toJson(item, `${path}[${i}]`, depth + 1) ?? null);
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw refuse(path, `a ${value.constructor?.name ?? 'class instance'}`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const json = toJson(item, `${path}.${key}`, depth + 1);
    if (json !== undefined) Object.defineProperty(out, key, { value: json, enumerable: true });
  }
  return out;
}

function refuse(path: string, what: string): CodeError {
  return new CodeError(
    `${path} is ${what}: Python code nodes take JSON values only (convert it in an expression first)`,
    { retryable: false },
  );
}
