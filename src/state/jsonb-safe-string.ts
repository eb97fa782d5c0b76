/**
 * Strings PostgreSQL `jsonb` rejects (and some JSON tooling mangles): those holding U+0000 or a
 * lone UTF-16 surrogate. The codec stores them in a `string` tag whose text spells those code
 * units out, so the document stays valid jsonb and the string comes back unit for unit.
 *
 * Escaped text: `\` becomes `\\`; U+0000 and every lone surrogate become `\u` plus four
 * lowercase hex digits. Everything else, well-formed surrogate pairs included, is kept as is.
 */

interface WellFormedCheck {
  isWellFormed(): boolean;
}

/** True when `text` survives jsonb unchanged (no U+0000, no lone surrogate). */
export function isJsonbSafe(text: string): boolean {
  // `isWellFormed` (Node 20+) is not in the ES2023 lib typings the project compiles against.
  return (text as unknown as WellFormedCheck).isWellFormed() && !text.includes('\0');
}

/**
 * Whether JSON text may encode a string jsonb rejects: JSON.stringify writes U+0000 as
 * `\u0000` and a lone surrogate as `\udXXX`. A `\\u0000` (an escaped backslash) also
 * matches: false positives only cost the careful path.
 */
export function mayHoldUnsafeStrings(json: string): boolean {
  return json.includes('\\u') && UNSAFE_ESCAPE.test(json);
}

const UNSAFE_ESCAPE = /\\u(?:0000|d[89a-f])/;

// Without the `u` flag the pattern sees UTF-16 code units, so lone halves are matchable.
const UNSAFE_UNIT = /\\|\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function escapeUnsafeString(text: string): string {
  return text.replace(UNSAFE_UNIT, (unit) =>
    unit === '\\' ? '\\\\' : '\\u' + unit.charCodeAt(0).toString(16).padStart(4, '0'),
  );
}

const ESCAPE = /\\(\\|u[0-9a-f]{4})?/g;

/** Reverses {@link escapeUnsafeString}; `undefined` when `escaped` holds a malformed escape. */
export function unescapeUnsafeString(escaped: string): string | undefined {
  let malformed = false;
  const text = escaped.replace(ESCAPE, (_match, body: string | undefined) => {
    if (body === undefined) malformed = true;
    else if (body === '\\') return '\\';
    else return String.fromCharCode(parseInt(body.slice(1), 16));
    return '';
  });
  return malformed ? undefined : text;
}
