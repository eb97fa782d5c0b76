import type { CallExpr, Expr, PathExpr, Segment, TemplatePart } from './ast.js';
import { ExpressionError } from '../errors/expression-errors.js';
import { Lexer } from './lexer.js';

/** Calls nested deeper than this are refused instead of overflowing the stack. */
const MAX_CALL_DEPTH = 200;

/**
 * Recursive descent over docs/flow-format.md §5.3, with PEG semantics: alternatives are tried in order and
 * the first that matches wins (`expr = literal | call | path`; a `.` followed by digits is an
 * index even when letters follow, so `$NODE.1st` does not parse, as in the original).
 */
class Parser {
  private depth = 0;

  constructor(readonly lexer: Lexer) {}

  /** `expr = literal | call | path` */
  expr(): Expr | undefined {
    return this.literal() ?? this.call() ?? this.path();
  }

  /** `call | path`, the only forms a whole-string expression may take. */
  callOrPath(): Expr | undefined {
    return this.call() ?? this.path();
  }

  private literal(): Expr | undefined {
    const lx = this.lexer;
    const keyword = lx.keyword();
    if (keyword !== undefined) return { type: 'literal', value: keyword };
    const text = lx.string();
    if (text !== undefined) return { type: 'literal', value: text };
    const number = lx.number();
    if (number !== undefined) return { type: 'literal', value: number };
    return undefined;
  }

  /** `call = "$F." , ident , "(" , ws , [ args ] , ws , ")"` with an optional trailing comma. */
  private call(): CallExpr | undefined {
    const lx = this.lexer;
    const start = lx.pos;
    const name = lx.callHead();
    if (name === undefined) return undefined;
    if (++this.depth > MAX_CALL_DEPTH) {
      throw new ExpressionError(
        `function calls are nested more than ${MAX_CALL_DEPTH} deep`,
        lx.source,
        { position: start },
      );
    }
    const args = this.args();
    this.depth--;
    if (args === undefined) {
      lx.pos = start;
      return undefined;
    }
    return { type: 'call', name, args };
  }

  private args(): Expr[] | undefined {
    const lx = this.lexer;
    const args: Expr[] = [];
    lx.skipWs();
    if (lx.accept(')')) return args;
    for (;;) {
      const arg = this.expr();
      if (arg === undefined) return undefined;
      args.push(arg);
      lx.skipWs();
      if (lx.accept(')')) return args;
      if (!lx.accept(',')) return undefined;
      lx.skipWs();
      if (lx.accept(')')) return args;
    }
  }

  /** `path = "$" , [ name ] , { ws , segment }` */
  private path(): PathExpr | undefined {
    const lx = this.lexer;
    const root = lx.root();
    if (root === undefined) return undefined;
    const segments: Segment[] = [];
    for (;;) {
      const before = lx.pos;
      lx.skipWs();
      const segment = this.segment();
      if (segment === undefined) {
        lx.pos = before;
        return { type: 'path', root, segments };
      }
      segments.push(segment);
    }
  }

  /** `"[" ws ["-"] digits ws "]"` | `"." ws digits` | `"." ws name` */
  private segment(): Segment | undefined {
    const lx = this.lexer;
    const start = lx.pos;
    if (lx.accept('[')) {
      lx.skipWs();
      const negative = lx.accept('-');
      const digits = lx.digits();
      lx.skipWs();
      if (digits !== undefined && lx.accept(']')) {
        const index = Number(digits);
        return { type: 'index', index: negative && index !== 0 ? -index : index };
      }
    } else if (lx.accept('.')) {
      lx.skipWs();
      const digits = lx.digits();
      if (digits !== undefined) return { type: 'index', index: Number(digits) };
      const name = lx.name();
      if (name !== undefined) return { type: 'field', name };
    }
    lx.pos = start;
    return undefined;
  }
}

/** Parses a whole-string expression (§5.2 rule 1): a call or a path, then only blanks. */
export function parseExpression(source: string): Expr {
  const lexer = new Lexer(source);
  const expr = new Parser(lexer).callOrPath();
  if (expr !== undefined) {
    lexer.skipWs();
    if (lexer.atEnd()) return expr;
    lexer.expect('the end of the expression');
  }
  throw new ExpressionError(describeFailure(lexer), source, {
    position: Math.max(lexer.failPos, 0),
  });
}

function describeFailure(lexer: Lexer): string {
  const at = Math.max(lexer.failPos, 0);
  const found =
    at < lexer.source.length ? JSON.stringify(lexer.source.slice(at, at + 12)) : 'the end';
  return (
    `cannot parse expression ${JSON.stringify(lexer.source)}: at position ${at} expected ` +
    `${lexer.expectation()}, found ${found}. An expression is a $F call or a $ path ` +
    `(write "{% '$' %}" for a literal dollar sign).`
  );
}

/**
 * `slot = "{%" , ws , expr , ws , "%}"` at `start`; `undefined` when it does not parse.
 * Exported for static analysis (flow/analysis), which reports slots left verbatim.
 */
export function parseSlot(source: string, start: number): { expr: Expr; end: number } | undefined {
  const lexer = new Lexer(source, start + 2);
  lexer.skipWs();
  const expr = new Parser(lexer).expr();
  if (expr === undefined) return undefined;
  lexer.skipWs();
  return lexer.accept('%}') ? { expr, end: lexer.pos } : undefined;
}

/**
 * Splits a template into text and slots, scanning left to right. A slot that does not parse
 * stays verbatim and scanning resumes at the next character (§5.3).
 */
export function parseTemplate(source: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let textStart = 0;
  let from = 0;
  for (;;) {
    const open = source.indexOf('{%', from);
    if (open < 0) break;
    const slot = parseSlot(source, open);
    if (slot === undefined) {
      from = open + 1;
      continue;
    }
    if (open > textStart) parts.push(source.slice(textStart, open));
    parts.push(slot.expr);
    textStart = from = slot.end;
  }
  if (textStart < source.length) parts.push(source.slice(textStart));
  return parts;
}
