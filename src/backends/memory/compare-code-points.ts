/**
 * Orders strings by Unicode code point, which is the byte order of their UTF-8 text: how SQLite
 * (BINARY) and PostgreSQL (`COLLATE "C"`) order `execution_id`. JavaScript's `<` compares UTF-16
 * code units instead, which disagrees for characters above U+FFFF versus U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
