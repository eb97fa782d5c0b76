/**
 * Orders strings by Unicode code point (Python `str` order). For well-formed text this is the
 * byte order of its UTF-8: how SQLite (BINARY), PostgreSQL (`COLLATE "C"`) and Redis (sorted-set
 * members, ZRANGEBYLEX) order ids, so the stores sort in JavaScript as their backend does. The
 * operator `<` compares UTF-16 code units instead, which disagrees for characters above U+FFFF
 * versus U+E000–U+FFFF. A lone surrogate counts as its own code point (stores never keep one).
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    // Outside the surrogates a unit is its code point; a pair decides by the code point it forms.
    if ((ca & 0xf800) !== 0xd800 && (cb & 0xf800) !== 0xd800) return ca - cb;
    return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
  }
  return a.length - b.length;
}
