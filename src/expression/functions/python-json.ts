import { isPlainObject, valueKind } from '../value-kind.js';

/**
 * `json.dumps(value)` with Python's defaults: `", "` between items, `": "` after keys, every
 * character outside printable ASCII escaped as `\uXXXX` (lower-case hex, surrogate pairs for
 * astral characters), key order kept, and `NaN`/`Infinity`/`-Infinity` spelled as Python does.
 * Throws a `TypeError` naming the path for values JSON cannot hold, and on cycles.
 */
export function pythonJsonDumps(value: unknown): string {
  return dump(value, new Set(), '$');
}

function dump(value: unknown, open: Set<object>, path: string): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value)
        ? String(value)
        : Number.isNaN(value)
          ? 'NaN'
          : value > 0
            ? 'Infinity'
            : '-Infinity';
    case 'string':
      return quote(value);
    case 'object':
      return dumpContainer(value, open, path);
    default:
      throw new TypeError(`${path} is a ${typeof value}, which JSON cannot hold`);
  }
}

function dumpContainer(value: object, open: Set<object>, path: string): string {
  if (open.has(value)) throw new TypeError(`${path} refers back to itself (circular reference)`);
  if (!Array.isArray(value) && !isPlainObject(value)) {
    throw new TypeError(
      `${path} is a ${valueKind(value)} of class ${value.constructor.name}, which JSON cannot hold`,
    );
  }
  open.add(value);
  let out: string;
  if (Array.isArray(value)) {
    out = `[${value.map((item, i) => dump(item, open, `${path}[${i}]`)).join(', ')}]`;
  } else {
    const entries = Object.keys(value).map(
      (key) => `${quote(key)}: ${dump(value[key], open, `${path}.${key}`)}`,
    );
    out = `{${entries.join(', ')}}`;
  }
  open.delete(value);
  return out;
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** Everything but printable ASCII (space to `~`) plus `"` and `\` gets escaped. */
const NEEDS_ESCAPE = /["\\]|[^\x20-\x7e]/g;

function quote(text: string): string {
  const escaped = text.replace(
    NEEDS_ESCAPE,
    (char) => SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `"${escaped}"`;
}
