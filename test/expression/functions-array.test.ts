import { describe, expect, it } from 'vitest';
import { FunctionCallError } from '../../src/errors/expression-errors.js';
import { defaultFunctions } from '../../src/expression/function-registry.js';
import { call, evalSync } from './make-scope.js';

const fails = (name: string, args: unknown[], pattern?: RegExp) => {
  expect(() => call(name, ...args), `${name}(${JSON.stringify(args)})`).toThrow(FunctionCallError);
  if (pattern) expect(() => call(name, ...args)).toThrow(pattern);
};

describe('arity', () => {
  it('rejects wrong argument counts', () => {
    const arities: Record<string, [number, number]> = {
      len: [1, 1],
      length: [1, 1],
      index: [2, 2],
      slice: [3, 3],
      append: [2, 2],
      addListItem: [2, 2],
      extend: [2, 2],
      insert: [3, 3],
      insertListItem: [3, 3],
      remove: [2, 2],
      reverse: [1, 1],
      sort: [1, 3],
      getListItem: [2, 2],
      pop: [2, 2],
      delListItem: [2, 2],
      setListItem: [3, 3],
    };
    for (const [name, [min, max]] of Object.entries(arities)) {
      const registered = defaultFunctions.get(name);
      expect([registered?.minArgs, registered?.maxArgs], name).toEqual([min, max]);
      fails(
        name,
        Array.from({ length: min - 1 }, () => [1]),
      );
      fails(
        name,
        Array.from({ length: max + 1 }, () => [1]),
      );
    }
  });
});

describe('len / length', () => {
  it('counts code points, items or keys', () => {
    expect(call('len', 'h😀')).toBe(2);
    expect(call('length', [1, 2, 3])).toBe(3);
    expect(call('len', { a: 1, b: 2 })).toBe(2);
    expect(call('len', '')).toBe(0);
    fails('len', [5], /number has no length/);
    fails('length', [null]);
  });
});

describe('index', () => {
  it('finds the first deep-equal item or the first substring position (in code points)', () => {
    expect(call('index', [3, 1, 2], 2)).toBe(2);
    expect(call('index', [{ a: 1 }, { a: 1 }], { a: 1 })).toBe(0);
    expect(call('index', [1, true], true)).toBe(0);
    expect(call('index', 'h😀llo', 'llo')).toBe(2);
    expect(call('index', 'abc', '')).toBe(0);
    fails('index', [[1], 2], /not in the array/);
    fails('index', ['abc', 'x'], /substring not found/);
    fails('index', ['abc', 1]);
    fails('index', [{ a: 1 }, 'a']);
  });
});

describe('slice (Python bounds, clamped)', () => {
  const xs = [0, 1, 2, 3, 4];
  it('slices arrays', () => {
    expect(call('slice', xs, 1, 3)).toEqual([1, 2]);
    expect(call('slice', xs, -2, null)).toEqual([3, 4]);
    expect(call('slice', xs, null, -3)).toEqual([0, 1]);
    expect(call('slice', xs, null, null)).toEqual(xs);
    expect(call('slice', xs, 3, 1)).toEqual([]);
    expect(call('slice', xs, -100, 100)).toEqual(xs);
    expect(call('slice', xs, 10, 20)).toEqual([]);
    expect(call('slice', xs, true, 2)).toEqual([1]);
  });

  it('slices strings by code point', () => {
    expect(call('slice', 'hello', 1, 3)).toBe('el');
    expect(call('slice', 'h😀llo', 1, 2)).toBe('😀');
    expect(call('slice', 'h😀llo', -3, null)).toBe('llo');
  });

  it('returns a copy and fails on bad arguments', () => {
    const out = call('slice', xs, null, null);
    expect(out).not.toBe(xs);
    fails('slice', [xs, 1.5, 2], /argument 2 must be an integer/);
    fails('slice', [xs, 1, '2'], /argument 3 must be an integer/);
    fails('slice', [{ a: 1 }, 0, 1]);
  });
});

describe('copying list functions', () => {
  it('append / addListItem / extend / insert / insertListItem / remove / reverse return copies', () => {
    const context = { $INPUT: { xs: [3, 1, 2] } };
    expect(evalSync('$F.append($INPUT.xs, 9)', context)).toEqual([3, 1, 2, 9]);
    expect(evalSync('$F.addListItem($INPUT.xs, $INPUT.xs)', { $INPUT: { xs: [1] } })).toEqual([
      1,
      [1],
    ]);
    expect(evalSync('$F.extend($INPUT.xs, $INPUT.xs)', context)).toEqual([3, 1, 2, 3, 1, 2]);
    expect(evalSync('$F.insert($INPUT.xs, 1, 9)', context)).toEqual([3, 9, 1, 2]);
    expect(evalSync('$F.insertListItem($INPUT.xs, -1, 9)', context)).toEqual([3, 1, 9, 2]);
    expect(evalSync('$F.insert($INPUT.xs, 100, 9)', context)).toEqual([3, 1, 2, 9]);
    expect(evalSync('$F.insert($INPUT.xs, -100, 9)', context)).toEqual([9, 3, 1, 2]);
    expect(evalSync('$F.remove($INPUT.xs, 1)', context)).toEqual([3, 2]);
    expect(evalSync('$F.reverse($INPUT.xs)', context)).toEqual([2, 1, 3]);
    expect(context.$INPUT.xs).toEqual([3, 1, 2]);
  });

  it('reverse reverses strings by code point', () => {
    expect(call('reverse', 'ab😀')).toBe('😀ba');
  });

  it('fail on wrong kinds', () => {
    fails('append', ['ab', 'c'], /argument 1 must be an array, got string/);
    fails('extend', [[1], 'ab']);
    fails('extend', ['ab', 'cd']);
    fails('insert', [[1], null, 2]);
    fails('insert', [[1], 0.5, 2]);
    fails('remove', [[1, 2], 3], /not in the array/);
    fails('remove', ['abc', 'b']);
    fails('reverse', [{ a: 1 }]);
  });
});

describe('sort', () => {
  it('returns a stable sorted copy', () => {
    const xs = [3, 1, 2];
    expect(call('sort', xs)).toEqual([1, 2, 3]);
    expect(xs).toEqual([3, 1, 2]);
    expect(call('sort', ['b', 'B', 'a'])).toEqual(['B', 'a', 'b']);
    expect(call('sort', [[1, 2], [1], [0, 9]])).toEqual([[0, 9], [1], [1, 2]]);
    expect(call('sort', [true, 0, 0.5])).toEqual([0, 0.5, true]);
    expect(call('sort', [])).toEqual([]);
  });

  it('orders objects by item[key], absent keys being null', () => {
    const users = [
      { n: 'b', age: 30 },
      { n: 'a', age: 20 },
      { n: 'c', age: 20 },
    ];
    expect(call('sort', users, 'age')).toEqual([users[1], users[2], users[0]]);
    expect(call('sort', users, 'age', true)).toEqual([users[0], users[1], users[2]]);
    expect(call('sort', [{ k: 1 }], 'nope')).toEqual([{ k: 1 }]);
    fails('sort', [[{ k: 1 }, { j: 2 }], 'k'], /cannot order (number and null|null and number)/);
  });

  it('sorts descending, keeping equal items in their order', () => {
    expect(call('sort', [1, 3, 2], null, true)).toEqual([3, 2, 1]);
    const items = [
      { id: 1, v: 1 },
      { id: 2, v: 2 },
      { id: 3, v: 1 },
    ];
    expect((call('sort', items, 'v', true) as { id: number }[]).map((item) => item.id)).toEqual([
      2, 1, 3,
    ]);
    expect(call('sort', [1, 3, 2], null, 1)).toEqual([3, 2, 1]);
    expect(call('sort', [1, 3, 2], null, false)).toEqual([1, 2, 3]);
  });

  it('sorts the characters of a string and the keys of an object, as Python sorted() does', () => {
    expect(call('sort', 'cab')).toEqual(['a', 'b', 'c']);
    expect(call('sort', { b: 1, a: 2 })).toEqual(['a', 'b']);
  });

  it('fails on incomparable items and bad options', () => {
    fails('sort', [[1, 'a']], /cannot order/);
    fails('sort', [[{}, {}]]);
    fails('sort', [[null, null]]);
    fails('sort', [[1], 5]);
    fails('sort', [[1], null, 'yes']);
    fails('sort', [[1], null, null]);
    fails('sort', [5]);
  });
});

describe('getListItem', () => {
  it('reads a[i] with negative indices, arrays and strings', () => {
    expect(call('getListItem', [3, 1, 2], -1)).toBe(2);
    expect(call('getListItem', [3, 1, 2], 0)).toBe(3);
    expect(call('getListItem', 'h😀', 1)).toBe('😀');
    expect(call('getListItem', [1, 2], true)).toBe(2);
    fails('getListItem', [[1], 1], /index 1 is out of range for length 1/);
    fails('getListItem', [[1], -2]);
    fails('getListItem', [[1], '0']);
    fails('getListItem', [{ a: 1 }, 0]);
  });
});

describe('mutating list functions', () => {
  it('pop / delListItem remove and return a[i] in place', () => {
    const context = { $INPUT: { xs: [0, 1, 2, 3] } };
    expect(evalSync('$F.pop($INPUT.xs, 0)', context)).toBe(0);
    expect(evalSync('$F.delListItem($INPUT.xs, -1)', context)).toBe(3);
    expect(context.$INPUT.xs).toEqual([1, 2]);
    fails('pop', [[], 0], /out of range/);
    fails('pop', [{ a: 1 }, 'a']);
  });

  it('setListItem sets a[i] in place and returns null', () => {
    const context = { $INPUT: { xs: [0, 1] } };
    expect(evalSync("$F.setListItem($INPUT.xs, -1, 'x')", context)).toBe(null);
    expect(context.$INPUT.xs).toEqual([0, 'x']);
    fails('setListItem', [[0], 1, 'x'], /out of range/);
  });

  it('are registered with side effects, the copying ones without', () => {
    for (const name of ['pop', 'delListItem', 'setListItem'])
      expect(defaultFunctions.get(name)?.sideEffects, name).toBe(true);
    for (const name of ['append', 'insert', 'remove', 'reverse', 'sort', 'slice']) {
      expect(defaultFunctions.get(name)?.sideEffects, name).toBe(false);
    }
  });
});
