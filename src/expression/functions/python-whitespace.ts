/**
 * Python's `str.isspace` set, used by `strip`/`lstrip`/`rstrip` and `split(s, null)`. It differs
 * from JavaScript's `trim`: it includes U+001C–U+001F and U+0085 and excludes U+FEFF.
 */
const WHITESPACE = new Set(
  '\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000',
);

export function stripStart(text: string): string {
  let start = 0;
  while (start < text.length && WHITESPACE.has(text.charAt(start))) start++;
  return text.slice(start);
}

export function stripEnd(text: string): string {
  let end = text.length;
  while (end > 0 && WHITESPACE.has(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}

/** `s.split()`: split on runs of whitespace, dropping empty parts. */
export function splitOnWhitespace(text: string): string[] {
  const parts: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    if (WHITESPACE.has(text.charAt(i))) {
      if (start >= 0) parts.push(text.slice(start, i));
      start = -1;
    } else if (start < 0) {
      start = i;
    }
  }
  if (start >= 0) parts.push(text.slice(start));
  return parts;
}
