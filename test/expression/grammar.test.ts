import { describe, expect, it } from 'vitest';
import { ExpressionError } from '../../src/errors/expression-errors.js';
import { parseExpression, parseTemplate } from '../../src/expression/parser.js';
import { evalSync } from './make-scope.js';

const ctx = {
  $INPUT: {
    a: { b: 1 },
    xs: [10, 20, 30],
    users: [{ name: 'first' }, { name: 'last' }],
    'x-y': 2,
    $k: 3,
    '0': 'zero',
  },
  $F: { mul: 'not a call' },
  '$LOOP-ITEM': 'item',
  $: 'bare',
  $5: 'five',
};
const parseFails = (source: string) =>
  expect(() => parseExpression(source)).toThrow(ExpressionError);

describe('whole expressions (§5.2 rule 1, §5.3)', () => {
  it('parses a bare root, fields, indices and a call', () => {
    expect(parseExpression('$INPUT')).toEqual({ type: 'path', root: '$INPUT', segments: [] });
    expect(parseExpression('$INPUT.a.b[0].-x.$y')).toEqual({
      type: 'path',
      root: '$INPUT',
      segments: [
        { type: 'field', name: 'a' },
        { type: 'field', name: 'b' },
        { type: 'index', index: 0 },
        { type: 'field', name: '-x' },
        { type: 'field', name: '$y' },
      ],
    });
    expect(parseExpression('$F.add(1, $INPUT.x)')).toEqual({
      type: 'call',
      name: 'add',
      args: [
        { type: 'literal', value: 1 },
        { type: 'path', root: '$INPUT', segments: [{ type: 'field', name: 'x' }] },
      ],
    });
  });

  it('accepts any name characters in a root, including "-" and "$", and a bare "$"', () => {
    expect(evalSync('$LOOP-ITEM', ctx)).toBe('item');
    expect(evalSync('$', ctx)).toBe('bare');
    expect(evalSync('$5', ctx)).toBe('five');
  });

  it('reads a "$F" root as a path when no call follows', () => {
    expect(evalSync('$F.mul', ctx)).toBe('not a call');
  });

  it('allows trailing blanks but nothing else after the expression', () => {
    expect(evalSync('$INPUT.a.b \t\r\n', ctx)).toBe(1);
    parseFails('$5 off');
    parseFails('$INPUT.a b');
    parseFails('$F.add(1, 2) x');
    parseFails('$INPUT.');
    parseFails('$INPUT[');
    parseFails('$INPUT[]');
  });

  it('treats "${INPUT.x}" as a parse error (it starts with $)', () => {
    parseFails('${INPUT.x}');
  });

  it('allows blanks before a segment and after "[" / "." / before "]"', () => {
    expect(evalSync('$INPUT .a\n.b', ctx)).toBe(1);
    expect(evalSync('$INPUT.xs[ 1 ]', ctx)).toBe(20);
    expect(evalSync('$INPUT.xs. 2', ctx)).toBe(30);
    expect(evalSync('$INPUT. a', ctx)).toEqual({ b: 1 });
    expect(evalSync('$INPUT.xs [-1]', ctx)).toBe(30);
  });

  it('keeps "$F.name(" and "$name" single tokens', () => {
    parseFails('$F.add (1, 2)');
    parseFails('$F. add(1, 2)');
    parseFails('$ INPUT');
    parseFails('$INPUT.xs[- 1]');
  });

  it('reads negative indices in brackets only', () => {
    expect(evalSync('$INPUT.xs[-3]', ctx)).toBe(10);
    expect(evalSync('$INPUT.xs[-0]', ctx)).toBe(10);
    // ".-1" is not an index: "-" is a name character, so it is a field (null on an array).
    expect(evalSync('$INPUT.xs.-1', ctx)).toBe(null);
    expect(parseExpression('$INPUT.-1')).toEqual({
      type: 'path',
      root: '$INPUT',
      segments: [{ type: 'field', name: '-1' }],
    });
  });

  it('tries ".digits" as an index before a field', () => {
    expect(evalSync('$INPUT.users.0.name', ctx)).toBe('first');
    expect(evalSync('$INPUT.users.1', ctx)).toEqual({ name: 'last' });
    // The key "0" of an object is not reachable as ".0": it is an index, and objects have none.
    expect(() => evalSync('$INPUT.0', ctx)).toThrow(ExpressionError);
    // Digits followed by letters: the index is taken, then the rest does not parse (as in the original).
    parseFails('$INPUT.1st');
  });

  it('rejects non-ASCII names', () => {
    parseFails('$NODE.节点');
  });
});

describe('calls and arguments', () => {
  it('allows blanks inside the parentheses and around commas, and a trailing comma', () => {
    expect(evalSync('$F.add( 1 , 2 )')).toBe(3);
    expect(evalSync('$F.add(\n1,\t2\n)')).toBe(3);
    expect(evalSync('$F.add(1, 2,)')).toBe(3);
    expect(evalSync('$F.add(1, 2 , )')).toBe(3);
    expect(evalSync('$F.concat()')).toBe('');
    expect(evalSync('$F.concat( )')).toBe('');
  });

  it('rejects empty or doubled commas', () => {
    parseFails('$F.concat(,)');
    parseFails('$F.concat(1,,2)');
    parseFails('$F.concat(1 2)');
    parseFails('$F.concat(1');
  });

  it('nests calls and paths as arguments', () => {
    expect(evalSync('$F.add($F.mul(2, 3), $INPUT.a.b)', ctx)).toBe(7);
  });

  it('needs a letter to start a function name', () => {
    parseFails('$F._x()');
    parseFails('$F.1x()');
    expect(parseExpression('$F.json_dumps(1)')).toMatchObject({ type: 'call', name: 'json_dumps' });
  });
});

describe('literals', () => {
  const literal = (text: string) => parseExpression(`$F.f(${text})`);
  const value = (text: string) =>
    (literal(text) as unknown as { args: { value: unknown }[] }).args[0]?.value;

  it('reads the six keywords', () => {
    expect(value('true')).toBe(true);
    expect(value('True')).toBe(true);
    expect(value('false')).toBe(false);
    expect(value('False')).toBe(false);
    expect(value('null')).toBe(null);
    expect(value('None')).toBe(null);
  });

  it('reads keywords as whole words only', () => {
    expect(() => literal('trueish')).toThrow(ExpressionError);
    expect(() => literal('TRUE')).toThrow(ExpressionError);
    expect(() => literal('nullx')).toThrow(ExpressionError);
    expect(() => literal('none')).toThrow(ExpressionError);
  });

  it('reads both quote styles; a quote cannot be escaped, whitespace escapes are read as the original does', () => {
    expect(value('"a b"')).toBe('a b');
    expect(value("'it\"s'")).toBe('it"s');
    expect(value('"it\'s"')).toBe("it's");
    expect(value("''")).toBe('');
    // pyparsing's QuotedString: \t \n \f \r become the characters; other backslashes stay.
    expect(value('"a\\n"')).toBe('a\n');
    expect(value("'\\t\\r\\f'")).toBe('\t\r\f');
    expect(value('"c:\\d\\x"')).toBe('c:\\d\\x');
    expect(value('"\\\\n"')).toBe('\\\n');
    expect(value("'\\'")).toBe('\\');
    expect(value('"%}, )"')).toBe('%}, )');
    expect(() => literal('"open')).toThrow(ExpressionError);
  });

  it('reads every number form', () => {
    expect(value('1')).toBe(1);
    expect(value('+1')).toBe(1);
    expect(value('-1')).toBe(-1);
    expect(value('1.5')).toBe(1.5);
    expect(value('1.')).toBe(1);
    expect(value('.5')).toBe(0.5);
    expect(value('-.5')).toBe(-0.5);
    expect(value('1e3')).toBe(1000);
    expect(value('1E+3')).toBe(1000);
    expect(value('2.5e-1')).toBe(0.25);
    expect(value('.5e1')).toBe(5);
    expect(Object.is(value('-0'), 0)).toBe(true);
    expect(Object.is(value('-0.0'), -0)).toBe(true);
    expect(() => literal('1e')).toThrow(ExpressionError);
    expect(() => literal('1x')).toThrow(ExpressionError);
    expect(() => literal('.')).toThrow(ExpressionError);
    expect(() => literal('--1')).toThrow(ExpressionError);
    expect(() => literal('0x10')).toThrow(ExpressionError);
  });

  it('has no operators, arrays or objects', () => {
    expect(() => literal('1 + 2')).toThrow(ExpressionError);
    expect(() => literal('[1]')).toThrow(ExpressionError);
    expect(() => literal('{}')).toThrow(ExpressionError);
  });

  it('is not a whole expression on its own', () => {
    // A string starting with "$" must be a call or a path; literals only appear as arguments or in slots.
    parseFails('$"x"');
  });
});

describe('parse errors', () => {
  it('are ExpressionErrors that carry the expression and say where parsing stopped', () => {
    try {
      parseExpression('$F.add(1, 2');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ExpressionError);
      expect((error as ExpressionError).name).toBe('ExpressionError');
      expect((error as ExpressionError).expression).toBe('$F.add(1, 2');
      expect((error as Error).message).toMatch(/position 11/);
      expect((error as Error).message).toMatch(/"\)"/);
    }
  });

  it('refuses calls nested absurdly deep instead of overflowing the stack', () => {
    const deep = '$F.not('.repeat(500) + '1' + ')'.repeat(500);
    expect(() => parseExpression(deep)).toThrow(/nested more than/);
  });
});

describe('templates (§5.3 template/slot)', () => {
  it('splits text and slots', () => {
    expect(parseTemplate('a {% $INPUT.x %} b {%$F.f()%}')).toEqual([
      'a ',
      { type: 'path', root: '$INPUT', segments: [{ type: 'field', name: 'x' }] },
      ' b ',
      { type: 'call', name: 'f', args: [] },
    ]);
  });

  it('accepts literals in slots', () => {
    expect(parseTemplate("{% '$' %}5 off")).toEqual([{ type: 'literal', value: '$' }, '5 off']);
    expect(parseTemplate('{%1%}{% None %}')).toEqual([
      { type: 'literal', value: 1 },
      { type: 'literal', value: null },
    ]);
  });

  it('leaves a slot that does not parse verbatim and resumes at the next character', () => {
    expect(parseTemplate('a {% b')).toEqual(['a {% b']);
    expect(parseTemplate('hi {%world%}')).toEqual(['hi {%world%}']);
    expect(parseTemplate('{%{% $INPUT %}')).toEqual([
      '{%',
      { type: 'path', root: '$INPUT', segments: [] },
    ]);
    expect(parseTemplate('{% $INPUT %} {% $INPUT x %}')).toEqual([
      { type: 'path', root: '$INPUT', segments: [] },
      ' {% $INPUT x %}',
    ]);
  });
});
