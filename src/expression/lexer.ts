/**
 * The tokens of docs/flow-format.md §5.3, read on demand at the parser's position. The grammar is
 * context-sensitive (`.0` is an index after a path but `0.5` is a number in an argument, and
 * `$F.name(` / `$name` are single tokens with no inner blanks), so the parser asks for the token
 * kind it can accept next instead of consuming a pre-built token stream.
 *
 * Every reader returns `undefined` and leaves `pos` unchanged when the token is not there, after
 * noting what it expected, so the parser can report the furthest point it reached.
 */

const NUMBER = /[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const KEYWORDS: ReadonlyMap<string, boolean | null> = new Map([
  ['true', true],
  ['True', true],
  ['false', false],
  ['False', false],
  ['null', null],
  ['None', null],
]);

function isWs(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0a;
}
function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}
function isIdentChar(code: number): boolean {
  return isLetter(code) || isDigit(code) || code === 0x5f;
}
/** `namechar = letter | digit | "_" | "-" | "$"` */
function isNameChar(code: number): boolean {
  return isIdentChar(code) || code === 0x2d || code === 0x24;
}

export class Lexer {
  pos: number;
  /** Furthest position where a token was expected and missing, for error messages. */
  failPos = -1;
  private expected = new Set<string>();

  constructor(
    readonly source: string,
    start = 0,
  ) {
    this.pos = start;
  }

  atEnd(): boolean {
    return this.pos >= this.source.length;
  }

  /** What the furthest failure expected, e.g. `"," or ")"`. */
  expectation(): string {
    return [...this.expected].join(' or ');
  }

  skipWs(): void {
    while (this.pos < this.source.length && isWs(this.source.charCodeAt(this.pos))) this.pos++;
  }

  /** Consumes `text` when it is next. */
  accept(text: string): boolean {
    if (this.source.startsWith(text, this.pos)) {
      this.pos += text.length;
      return true;
    }
    return this.fail(JSON.stringify(text));
  }

  /** `"$F." , ident , "("` as one token; returns the function name. */
  callHead(): string | undefined {
    const start = this.pos;
    if (!this.source.startsWith('$F.', start)) return this.miss('$F.<name>(');
    let end = start + 3;
    if (!isLetter(this.source.charCodeAt(end))) return this.miss('$F.<name>(');
    while (isIdentChar(this.source.charCodeAt(end))) end++;
    if (this.source.charCodeAt(end) !== 0x28) return this.missAt(end, '"("');
    this.pos = end + 1;
    return this.source.slice(start + 3, end);
  }

  /** `"$" , [ name ]` as one token; returns the root as written (`"$INPUT"`, or `"$"`). */
  root(): string | undefined {
    if (this.source.charCodeAt(this.pos) !== 0x24) return this.miss('"$"');
    const start = this.pos;
    let end = start + 1;
    while (isNameChar(this.source.charCodeAt(end))) end++;
    this.pos = end;
    return this.source.slice(start, end);
  }

  /** `name = namechar , { namechar }` */
  name(): string | undefined {
    const start = this.pos;
    let end = start;
    while (isNameChar(this.source.charCodeAt(end))) end++;
    if (end === start) return this.miss('a name');
    this.pos = end;
    return this.source.slice(start, end);
  }

  /** `digits = digit , { digit }` */
  digits(): string | undefined {
    const start = this.pos;
    let end = start;
    while (isDigit(this.source.charCodeAt(end))) end++;
    if (end === start) return this.miss('digits');
    this.pos = end;
    return this.source.slice(start, end);
  }

  /** A keyword as a whole word: `trueish` is not `true`. */
  keyword(): boolean | null | undefined {
    const start = this.pos;
    let end = start;
    while (isNameChar(this.source.charCodeAt(end))) end++;
    const word = this.source.slice(start, end);
    const value = KEYWORDS.get(word);
    if (value === undefined) return this.miss('a literal');
    this.pos = end;
    return value;
  }

  /**
   * A quoted string: the body runs to the next quote of the same kind (a quote cannot be
   * escaped). As in the original (pyparsing's QuotedString), `\t` `\n` `\f` `\r` are the
   * whitespace characters they name, so `$F.join(xs, '\n')` joins by lines; any other
   * backslash stays as written.
   */
  string(): string | undefined {
    const quote = this.source[this.pos];
    if (quote !== '"' && quote !== "'") return this.miss('a literal');
    const close = this.source.indexOf(quote, this.pos + 1);
    if (close < 0) return this.missAt(this.source.length, `closing ${quote}`);
    const body = this.source.slice(this.pos + 1, close);
    this.pos = close + 1;
    return body.includes('\\') ? body.replace(WHITESPACE_ESCAPE, unescapeWhitespace) : body;
  }

  number(): number | undefined {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.source);
    if (match === null) return this.miss('a literal');
    const text = match[0];
    this.pos += text.length;
    const value = Number(text);
    // An integer literal "-0" is Python's int 0; only a float literal keeps a negative zero.
    return value === 0 && !/[.eE]/.test(text) ? 0 : value;
  }

  /** Records that `what` was expected at the current position. */
  expect(what: string): void {
    this.fail(what);
  }

  private miss(what: string): undefined {
    this.fail(what);
    return undefined;
  }

  private missAt(pos: number, what: string): undefined {
    const saved = this.pos;
    this.pos = pos;
    this.fail(what);
    this.pos = saved;
    return undefined;
  }

  private fail(what: string): false {
    if (this.pos > this.failPos) {
      this.failPos = this.pos;
      this.expected = new Set([what]);
    } else if (this.pos === this.failPos) {
      this.expected.add(what);
    }
    return false;
  }
}

const WHITESPACE_ESCAPE = /\\[tnfr]/g;
const WHITESPACES: Record<string, string> = { t: '\t', n: '\n', f: '\f', r: '\r' };

function unescapeWhitespace(escape: string): string {
  return WHITESPACES[escape[1]!]!;
}
