import { codePoints } from '../code-points.js';
import type { FunctionRegistry } from '../function-registry.js';
import { displayForm } from '../values.js';
import { valueKind } from '../value-kind.js';
import { callError, stringArg } from './arguments.js';
import { defineBuiltins } from './define-builtins.js';
import { deepArgumentsCost, sizeOf } from '../meter.js';
import { splitOnWhitespace, stripEnd, stripStart } from './python-whitespace.js';

/** Python's "cased" characters (Lu, Ll, Lt and the other-case letters), which `title` tracks. */
const CASED = /\p{Cased}/u;
const DECIMAL_DIGITS = /^\p{Nd}+$/u;

function capitalize(s: unknown): string {
  const text = stringArg('capitalize', s, 1);
  const first = text.codePointAt(0);
  if (first === undefined) return '';
  const head = String.fromCodePoint(first);
  return head.toUpperCase() + text.slice(head.length).toLowerCase();
}

/** Python `str.title`: a cased character after a cased one is lowered, any other is raised. */
function title(s: unknown): string {
  let previousCased = false;
  let out = '';
  for (const char of stringArg('title', s, 1)) {
    out += previousCased ? char.toLowerCase() : char.toUpperCase();
    previousCased = CASED.test(char);
  }
  return out;
}

function replace(s: unknown, old: unknown, replacement: unknown): string {
  const text = stringArg('replace', s, 1);
  const search = stringArg('replace', old, 2);
  const insert = stringArg('replace', replacement, 3);
  if (search !== '') return text.split(search).join(insert);
  // Python inserts between code points (never inside a surrogate pair) and at both ends.
  const chars = codePoints(text);
  return chars.length === 0 ? insert : insert + chars.join(insert) + insert;
}

function split(s: unknown, separator: unknown): string[] {
  const text = stringArg('split', s, 1);
  if (separator === null) return splitOnWhitespace(text);
  const sep = stringArg('split', separator, 2);
  if (sep === '') throw callError('split', 'empty separator');
  return text.split(sep);
}

/** `join(list, sep)` is Python's `sep.join(list)`: a string joins its characters, an object its keys. */
function join(items: unknown, separator: unknown): string {
  const sep = stringArg('join', separator, 2);
  let parts: unknown[];
  if (Array.isArray(items)) parts = items;
  else if (typeof items === 'string') parts = codePoints(items);
  else if (items !== null && typeof items === 'object') parts = Object.keys(items);
  else throw callError('join', `argument 1 must be an array, got ${valueKind(items)}`);
  parts.forEach((part, i) => {
    if (typeof part !== 'string')
      throw callError('join', `item ${i} must be a string, got ${valueKind(part)}`);
  });
  return parts.join(sep);
}

function concat(...args: unknown[]): string {
  let out = '';
  for (const arg of args) out += displayForm(arg);
  return out;
}

export function registerStringFunctions(registry: FunctionRegistry): void {
  const unary = (name: string, description: string, map: (text: string) => unknown) => ({
    fn: (s: unknown) => map(stringArg(name, s, 1)),
    minArgs: 1,
    maxArgs: 1,
    description,
  });
  defineBuiltins(registry, 'string', {
    lower: unary('lower', 'Lower-case', (text) => text.toLowerCase()),
    upper: unary('upper', 'Upper-case', (text) => text.toUpperCase()),
    capitalize: {
      fn: capitalize,
      minArgs: 1,
      maxArgs: 1,
      description: 'First character upper, rest lower',
    },
    title: {
      fn: title,
      minArgs: 1,
      maxArgs: 1,
      description: 'Title-case each run of cased letters',
      // Word-by-word casing costs a few units per character.
      cost: ([x]) => 1 + 3 * sizeOf(x),
    },
    strip: unary('strip', 'Remove whitespace at both ends', (text) => stripEnd(stripStart(text))),
    lstrip: unary('lstrip', 'Remove leading whitespace', stripStart),
    rstrip: unary('rstrip', 'Remove trailing whitespace', stripEnd),
    replace: {
      fn: replace,
      minArgs: 3,
      maxArgs: 3,
      description: 'Replace every occurrence',
      // The output can be the input times the replacement: charge the worst case first.
      cost: ([s, old, replacement]) => {
        const n = sizeOf(s);
        const occurrences = n / Math.max(1, sizeOf(old));
        return 1 + n + occurrences * sizeOf(replacement);
      },
    },
    split: {
      fn: split,
      minArgs: 2,
      maxArgs: 2,
      description: 'Split on a separator (null: on whitespace)',
    },
    join: { fn: join, minArgs: 2, maxArgs: 2, description: 'Join string items with a separator' },
    startswith: {
      fn: (s, p) => stringArg('startswith', s, 1).startsWith(stringArg('startswith', p, 2)),
      minArgs: 2,
      maxArgs: 2,
      description: 'Prefix test',
    },
    endswith: {
      fn: (s, p) => stringArg('endswith', s, 1).endsWith(stringArg('endswith', p, 2)),
      minArgs: 2,
      maxArgs: 2,
      description: 'Suffix test',
    },
    // An object's display form is its JSON text: charged from its deep size before it is made.
    concat: {
      fn: concat,
      minArgs: 0,
      description: 'Display forms joined',
      cost: deepArgumentsCost,
    },
    isDigit: unary('isDigit', 'Non-empty and only decimal digits', (text) =>
      DECIMAL_DIGITS.test(text),
    ),
  });
}
