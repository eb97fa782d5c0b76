import { compileExpression } from './compile.js';
import { compileTemplate } from './compile-template.js';
import type { Compiled } from './compile.js';
import type { Expr } from './ast.js';
import { ExpressionError } from '../errors/expression-errors.js';
import { looksLikeOtherTemplateLanguage } from './other-template-language.js';
import { ParseCache } from './parse-cache.js';
import type { ParseCacheStats } from './parse-cache.js';
import { parseExpression, parseTemplate } from './parser.js';
import type { EvaluationMeter } from './meter.js';
import type { Context, EvaluationScope } from './scope.js';
import { classifyString } from './string-kind.js';
import type { StringKind } from './string-kind.js';
import type { MaybePromise } from '../util/maybe-promise.js';

/** A string, classified and compiled once: evaluating it again costs a map lookup. */
export interface Program {
  readonly kind: StringKind;
  readonly run: Compiled;
  /** 1 + how deep its function calls nest: about how much stack one evaluation of it takes. */
  readonly weight: number;
}

const CACHE_CAPACITY = 10_000;
/** Characters the cache may hold in all (≈ 8 MiB of UTF-16). */
const CACHE_MAX_CHARS = 4 * 1024 * 1024;
/** Longer strings are parsed each time they are met: flow expressions are never this long. */
const CACHE_MAX_KEY_LENGTH = 4_096;
/** Nested-expression strings that lead to further nested strings; real data never gets close. */
const MAX_NESTING = 64;
/**
 * The nesting levels and the call depth of each level, summed (Program.weight): each limit
 * alone is far from the stack's end, but 64 levels of 200 nested calls are past it.
 */
const MAX_STACK_WEIGHT = 1_600;
/** Weight of the nested evaluations running on the stack now (they nest synchronously). */
let stackWeight = 0;

const cache = new ParseCache<Program>(CACHE_CAPACITY, CACHE_MAX_CHARS, CACHE_MAX_KEY_LENGTH);

/** The compiled form of `text`, parsing it only on first sight. */
export function programFor(text: string, scope: EvaluationScope): Program {
  let program = cache.get(text);
  if (program === undefined) {
    program = build(text, scope);
    cache.set(text, program);
  }
  return program;
}

/** How many strings were parsed and how many evaluations reused one (for tests and metrics). */
export function parseCacheStats(): ParseCacheStats {
  return cache.stats();
}

/** Characters of the strings the cache holds now (a memory bound the tests check). */
export function parseCacheChars(): number {
  return cache.heldChars();
}

/** Forgets every parsed string and resets the counters. */
export function clearParseCache(): void {
  cache.clear();
}

function build(text: string, scope: EvaluationScope): Program {
  const kind = classifyString(text);
  switch (kind) {
    case 'expression': {
      let weight = 1;
      const run = orFailure(text, () => {
        const expr = parseExpression(text);
        weight = 1 + callDepth(expr);
        return compileExpression(expr, text, evaluateNested);
      });
      return { kind, run, weight };
    }
    case 'template': {
      let weight = 1;
      const run = orFailure(text, () => {
        const parts = parseTemplate(text);
        for (const part of parts) if (typeof part !== 'string') weight += callDepth(part);
        return compileTemplate(parts, text, evaluateNested);
      });
      return { kind, run, weight };
    }
    case 'literal':
      if (looksLikeOtherTemplateLanguage(text)) scope.warn?.(otherLanguageWarning(text));
      return { kind, run: () => text, weight: 1 };
  }
}

/** A string that does not parse fails the same way every time, without being parsed again. */
function orFailure(text: string, compile: () => Compiled): Compiled {
  try {
    return compile();
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    const { message, position } = error;
    return () => {
      throw new ExpressionError(message, text, { position: position ?? undefined });
    };
  }
}

function evaluateNested(
  text: string,
  holder: Context,
  scope: EvaluationScope,
  depth: number,
  meter: EvaluationMeter,
): MaybePromise<unknown> {
  if (depth > MAX_NESTING) {
    throw new ExpressionError(
      `nested expressions go more than ${MAX_NESTING} levels deep at ${JSON.stringify(text)}`,
      text,
    );
  }
  // Parsing is linear in the text: a long string found in data pays for its length.
  meter.charge(1 + (text.length >> 4), 'a nested expression');
  const program = programFor(text, scope);
  if (stackWeight + program.weight > MAX_STACK_WEIGHT)
    throw new ExpressionError(
      `nested expressions and their function calls go too deep (more than ${MAX_STACK_WEIGHT} in all) at ${JSON.stringify(text.slice(0, 120))}`,
      text,
    );
  // What runs synchronously is on this stack; a part that awaits resumes on a fresh one.
  stackWeight += program.weight;
  try {
    return program.run(scope, holder, depth, meter);
  } finally {
    stackWeight -= program.weight;
  }
}

/** How deep the function calls of `expr` nest. */
function callDepth(expr: Expr): number {
  if (expr.type !== 'call') return 0;
  let deepest = 0;
  for (const arg of expr.args) deepest = Math.max(deepest, callDepth(arg));
  return 1 + deepest;
}

function otherLanguageWarning(text: string): string {
  const shown = text.length > 120 ? `${text.slice(0, 117)}...` : text;
  return (
    `the string ${JSON.stringify(shown)} looks like a template from another language and is kept as literal ` +
    'text; plaita expressions look like $INPUT.x or $F.name(...), and {% ... %} inserts one into text'
  );
}
