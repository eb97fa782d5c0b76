import { describe, expect, it } from 'vitest';
import {
  FunctionCallError,
  FunctionRegistrationError,
} from '../../src/errors/expression-errors.js';
import { evaluateValue } from '../../src/expression/evaluate.js';
import { FunctionRegistry, defaultFunctions } from '../../src/expression/function-registry.js';
import { makeScope } from './make-scope.js';

const BUILT_INS = {
  math: 'add sub mul div mod pow abs ceil floor round trunc sqrt',
  string:
    'lower upper capitalize title strip lstrip rstrip replace split join startswith endswith concat isDigit',
  array:
    'len length index slice append extend insert remove reverse sort getListItem addListItem insertListItem pop delListItem setListItem',
  dict: 'keys values items get getDictValue getDictKeys getDictValues set delete clear setDictValue delDictValue clearDict',
  logic: 'and or not eq ne gt gte lt lte in notIn contains notContains ifelse',
  datetime: 'now today',
  json: 'json_loads json_dumps',
};
const MUTATING = [
  'pop',
  'delListItem',
  'setListItem',
  'set',
  'setDictValue',
  'delete',
  'delDictValue',
  'clear',
  'clearDict',
];

describe('defaultFunctions', () => {
  it('holds the 73 built-ins of §5.8 with their categories', () => {
    expect(defaultFunctions.names()).toHaveLength(73);
    for (const [category, names] of Object.entries(BUILT_INS)) {
      for (const name of names.split(' ')) {
        const registered = defaultFunctions.get(name);
        expect(registered?.category, name).toBe(category);
        expect(registered?.sideEffects, name).toBe(MUTATING.includes(name));
        expect(registered?.description, name).toBeTruthy();
      }
    }
  });
});

describe('FunctionRegistry', () => {
  it('registers, finds and lists functions', () => {
    const registry = new FunctionRegistry();
    const fn = (x: unknown) => x;
    expect(registry.register('double', fn, { category: 'math', description: 'd' })).toBe(registry);
    expect(registry.has('double')).toBe(true);
    expect(registry.get('double')).toEqual({
      name: 'double',
      fn,
      category: 'math',
      sideEffects: false,
      // A host's function is never trusted to be deterministic (replayability analysis).
      deterministic: false,
      description: 'd',
    });
    expect(registry.names()).toEqual(['double']);
    expect(registry.get('nope')).toBe(undefined);
  });

  it('refuses a second registration unless override is set', () => {
    const registry = new FunctionRegistry().register('f', () => 1);
    expect(() => registry.register('f', () => 2)).toThrow(FunctionRegistrationError);
    expect(() => registry.register('f', () => 2)).toThrow(/already registered.*override/);
    registry.register('f', () => 3, { override: true });
    expect(evaluateValue('$F.f()', makeScope({}, { functions: registry }))).toBe(3);
  });

  it('refuses names no expression could call, and non-functions', () => {
    const registry = new FunctionRegistry();
    for (const name of ['', '1x', '_x', 'a-b', 'a.b', 'é']) {
      expect(() => registry.register(name, () => 1), name).toThrow(FunctionRegistrationError);
    }
    expect(() => registry.register('x', 5 as unknown as () => unknown)).toThrow(/not a function/);
    expect(() => registry.register('x', () => 1, { minArgs: 2, maxArgs: 1 })).toThrow(/exceeds/);
    expect(() => registry.register('x', () => 1, { minArgs: -1 })).toThrow(/non-negative/);
  });

  it('copies independently', () => {
    const copy = defaultFunctions.copy();
    copy.register('extra', () => 'x');
    copy.register('add', () => 'overridden', { override: true });
    expect(defaultFunctions.has('extra')).toBe(false);
    expect(evaluateValue('$F.add(1, 2)', makeScope())).toBe(3);
    expect(evaluateValue('$F.add(1, 2)', makeScope({}, { functions: copy }))).toBe('overridden');
    expect(copy.names()).toHaveLength(74);
  });

  it('checks custom arity bounds when given', () => {
    const functions = new FunctionRegistry().register('two', (a, b) => [a, b], {
      minArgs: 2,
      maxArgs: 2,
    });
    const scope = makeScope({}, { functions });
    expect(evaluateValue('$F.two(1, 2)', scope)).toEqual([1, 2]);
    expect(() => evaluateValue('$F.two(1)', scope)).toThrow(/\$F\.two takes 2 arguments, got 1/);
  });

  it('returns null for a custom function returning undefined and lets its errors through', () => {
    class Custom extends Error {}
    const functions = new FunctionRegistry()
      .register('nothing', () => undefined)
      .register('boom', () => {
        throw new Custom('boom');
      });
    const scope = makeScope({}, { functions });
    expect(evaluateValue('$F.nothing()', scope)).toBe(null);
    expect(() => evaluateValue('$F.boom()', scope)).toThrow(Custom);
  });

  it('looks functions up at call time', () => {
    const functions = new FunctionRegistry();
    const scope = makeScope({}, { functions });
    expect(() => evaluateValue('$F.late()', scope)).toThrow(FunctionCallError);
    functions.register('late', () => 'now here');
    expect(evaluateValue('$F.late()', scope)).toBe('now here');
  });
});

describe('suggest', () => {
  it('offers up to three names at case-insensitive edit distance ≤ 2 or sharing the prefix', () => {
    expect(defaultFunctions.suggest('uper')).toEqual(['upper']);
    expect(defaultFunctions.suggest('UPPER')).toEqual(['upper']);
    expect(defaultFunctions.suggest('getDict')).toEqual([
      'getDictKeys',
      'getDictValue',
      'getDictValues',
    ]);
    expect(defaultFunctions.suggest('nope')).toContain('not');
    expect(defaultFunctions.suggest('zzzzzzzz')).toEqual([]);
    expect(defaultFunctions.suggest('json_dump')).toEqual(['json_dumps']);
    expect(defaultFunctions.suggest('Len')).toEqual(['len', 'length', 'eq']);
  });

  it('feeds the unknown-function error', () => {
    const run = () => evaluateValue('$F.uper($INPUT)', makeScope({ $INPUT: 'x' }));
    expect(run).toThrow(FunctionCallError);
    expect(run).toThrow(/unknown function \$F\.uper; did you mean \$F\.upper\?/);
    expect(() => evaluateValue('$F.zzzzzzzz()', makeScope())).toThrow(
      /no registered function has a similar name/,
    );
    try {
      run();
      expect.unreachable('it must throw');
    } catch (error) {
      expect((error as FunctionCallError).functionName).toBe('uper');
    }
  });
});
