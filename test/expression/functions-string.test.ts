import { describe, expect, it } from 'vitest';
import { FunctionCallError } from '../../src/errors/expression-errors.js';
import { call } from './make-scope.js';

const fails = (name: string, args: unknown[], pattern?: RegExp) => {
  expect(() => call(name, ...args), `${name}(${JSON.stringify(args)})`).toThrow(FunctionCallError);
  if (pattern) expect(() => call(name, ...args)).toThrow(pattern);
};

describe('arity', () => {
  it('rejects wrong argument counts', () => {
    for (const name of [
      'lower',
      'upper',
      'capitalize',
      'title',
      'strip',
      'lstrip',
      'rstrip',
      'isDigit',
    ]) {
      fails(name, [], /takes 1 argument/);
      fails(name, ['a', 'b']);
    }
    for (const name of ['split', 'join', 'startswith', 'endswith']) {
      fails(name, ['a'], /takes 2 arguments/);
      fails(name, ['a', 'b', 'c']);
    }
    fails('replace', ['a', 'b'], /takes 3 arguments/);
    fails('replace', ['a', 'b', 'c', 'd']);
  });

  it('requires strings', () => {
    for (const name of [
      'lower',
      'upper',
      'capitalize',
      'title',
      'strip',
      'lstrip',
      'rstrip',
      'isDigit',
    ]) {
      fails(name, [1], /argument 1 must be a string, got number/);
      fails(name, [null]);
    }
    fails('replace', ['a', 1, 'b']);
    fails('startswith', ['abc', ['a']]);
    fails('endswith', [1, 'a']);
  });
});

describe('case mapping', () => {
  it('lower / upper', () => {
    expect(call('lower', 'MiXeD')).toBe('mixed');
    expect(call('upper', 'hello')).toBe('HELLO');
    expect(call('upper', 'straße')).toBe('STRASSE');
  });

  it('capitalize: first character upper, the rest lower', () => {
    expect(call('capitalize', 'hELLO wORLD')).toBe('Hello world');
    expect(call('capitalize', '')).toBe('');
    expect(call('capitalize', '1ABC')).toBe('1abc');
    expect(call('capitalize', 'élan')).toBe('Élan');
  });

  it('title: in each run of cased letters, first upper, rest lower', () => {
    expect(call('title', "it's")).toBe("It'S");
    expect(call('title', 'hello wORLD')).toBe('Hello World');
    expect(call('title', 'a1b2 c_d')).toBe('A1B2 C_D');
    expect(call('title', "they're bill's friends from the UK")).toBe(
      "They'Re Bill'S Friends From The Uk",
    );
    expect(call('title', 'éCOLE')).toBe('École');
    expect(call('title', '')).toBe('');
  });
});

describe('strip / lstrip / rstrip', () => {
  it('remove Unicode whitespace at the ends (Python set)', () => {
    expect(call('strip', '  pad  ')).toBe('pad');
    expect(call('lstrip', '  pad  ')).toBe('pad  ');
    expect(call('rstrip', '  pad  ')).toBe('  pad');
    expect(call('strip', '\t\n\u000b\u000c\r\u001c\u0085\u00a0\u2003\u3000x\u2028\u2029')).toBe(
      'x',
    );
    // U+FEFF is not whitespace in Python (JavaScript's trim would remove it).
    expect(call('strip', '\ufeffx\ufeff')).toBe('\ufeffx\ufeff');
    expect(call('strip', '   ')).toBe('');
  });
});

describe('replace', () => {
  it('replaces every occurrence, literally', () => {
    expect(call('replace', 'a-b-c', '-', '+')).toBe('a+b+c');
    expect(call('replace', 'aaa', 'aa', 'b')).toBe('ba');
    expect(call('replace', 'a.b', '.', '$&')).toBe('a$&b');
    expect(call('replace', 'abc', 'x', 'y')).toBe('abc');
  });

  it('with an empty old string inserts between all characters and at both ends', () => {
    expect(call('replace', 'ab', '', '-')).toBe('-a-b-');
    expect(call('replace', '', '', '-')).toBe('-');
    expect(call('replace', '😀', '', '-')).toBe('-😀-');
  });
});

describe('split / join', () => {
  it('split on a non-empty separator', () => {
    expect(call('split', 'a,b,,c', ',')).toEqual(['a', 'b', '', 'c']);
    expect(call('split', '', ',')).toEqual(['']);
    expect(call('split', 'a::b', '::')).toEqual(['a', 'b']);
    fails('split', ['a', ''], /empty separator/);
    fails('split', ['a', 1]);
  });

  it('split(s, null) splits on whitespace runs and drops empty parts', () => {
    expect(call('split', '  a \t b\n\nc  ', null)).toEqual(['a', 'b', 'c']);
    expect(call('split', '', null)).toEqual([]);
    expect(call('split', '   ', null)).toEqual([]);
  });

  it('join(list, sep) joins string items (note the order)', () => {
    expect(call('join', ['x', 'y', 'z'], '-')).toBe('x-y-z');
    expect(call('join', [], '-')).toBe('');
    expect(call('join', 'abc', '-')).toBe('a-b-c');
    fails('join', [['a', 1], '-'], /item 1 must be a string, got number/);
    fails('join', [['a'], 1]);
    fails('join', [5, '-']);
  });
});

describe('startswith / endswith / concat / isDigit', () => {
  it('startswith / endswith', () => {
    expect(call('startswith', 'MiXeD', 'Mi')).toBe(true);
    expect(call('startswith', 'MiXeD', 'mi')).toBe(false);
    expect(call('endswith', 'file.json', '.json')).toBe(true);
    expect(call('endswith', 'x', '')).toBe(true);
  });

  it('concat joins display forms, any number of arguments', () => {
    expect(call('concat')).toBe('');
    expect(call('concat', 'a', 1, true, null, [1, 'b'], { k: 2 }, 0.5)).toBe(
      'a1truenull[1,"b"]{"k":2}0.5',
    );
  });

  it('isDigit: non-empty and every character a decimal digit', () => {
    expect(call('isDigit', '0123')).toBe(true);
    expect(call('isDigit', '٣')).toBe(true);
    expect(call('isDigit', '')).toBe(false);
    expect(call('isDigit', '1.5')).toBe(false);
    expect(call('isDigit', '-1')).toBe(false);
    expect(call('isDigit', ' 1')).toBe(false);
  });
});
