/** The JSON kind of a value, as the expression language sees it (`undefined` counts as null). */
export type ValueKind = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'other';

export function valueKind(value: unknown): ValueKind {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'object':
      return Array.isArray(value) ? 'array' : 'object';
    default:
      return 'other';
  }
}

/** Any non-array object: fields are read from it as from a JSON object (own properties only). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An object literal or a null-prototype object: the only objects `evaluateValue` walks into.
 * Class instances (a Date a custom function returned, say) are values, not templates.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
