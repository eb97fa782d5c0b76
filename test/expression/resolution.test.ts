import { describe, expect, it } from 'vitest';
import { ExpressionError } from '../../src/errors/expression-errors.js';
import { classifyString, evaluateValue } from '../../src/expression/evaluate.js';
import { evalSync, makeScope } from './make-scope.js';

describe('classifyString (§5.2)', () => {
  it('classifies by first character, then by "{%"', () => {
    expect(classifyString('$INPUT')).toBe('expression');
    expect(classifyString('$5 off')).toBe('expression');
    expect(classifyString('${INPUT.x}')).toBe('expression');
    expect(classifyString('a {% $INPUT %}')).toBe('template');
    expect(classifyString('a {% b')).toBe('template');
    expect(classifyString('Hi ${INPUT.x}')).toBe('literal');
    expect(classifyString(' $INPUT')).toBe('literal');
    expect(classifyString('')).toBe('literal');
  });
});

describe('roots (§5.4, §5.5)', () => {
  it('reads any context key as "$" + name', () => {
    expect(evalSync('$INPUT', { $INPUT: 5 })).toBe(5);
    expect(evalSync('$LOOP-INDEX', { '$LOOP-INDEX': 2 })).toBe(2);
    expect(evalSync('$EXECUTION_ID', { $EXECUTION_ID: 'abc' })).toBe('abc');
  });

  it('treats $FLOW as the alias of $FLOW_ID', () => {
    expect(evalSync('$FLOW', { $FLOW_ID: 'f1' })).toBe('f1');
  });

  it('fails on a missing root, naming it and listing the available roots', () => {
    const run = () => evalSync('$NOPE.x', { $INPUT: {}, $NODE: {}, EXPRESS_PREFIX: '$' });
    expect(run).toThrow(ExpressionError);
    expect(run).toThrow(/\$NOPE/);
    expect(run).toThrow(/available roots: \$INPUT, \$NODE$/);
    try {
      run();
      expect.unreachable('it must throw');
    } catch (error) {
      expect((error as ExpressionError).expression).toBe('$NOPE.x');
    }
  });

  it('returns a root holding undefined as null', () => {
    expect(evalSync('$X', { $X: undefined })).toBe(null);
  });
});

describe('fields', () => {
  const ctx = {
    $INPUT: { a: { b: 'deep' }, s: 'text', n: 1, list: [1], nil: null, $INPUT: 'own key' },
  };

  it('reads a key of an object, null when absent', () => {
    expect(evalSync('$INPUT.a.b', ctx)).toBe('deep');
    expect(evalSync('$INPUT.missing', ctx)).toBe(null);
    expect(evalSync('$INPUT.missing.deeper.still', ctx)).toBe(null);
  });

  it('reads null for a field on anything but an object', () => {
    expect(evalSync('$INPUT.s.length', ctx)).toBe(null);
    expect(evalSync('$INPUT.n.x', ctx)).toBe(null);
    expect(evalSync('$INPUT.list.length', ctx)).toBe(null);
    expect(evalSync('$INPUT.nil.x', ctx)).toBe(null);
    expect(evalSync('$INPUT.a.b.x', ctx)).toBe(null);
  });

  it('reads the fields INPUT, NODE, PARENT, GLOBAL and ENV as $INPUT, …', () => {
    const parent = {
      $INPUT: { name: 'P' },
      $NODE: { n: 1 },
      $GLOBAL: { g: 2 },
      $ENV: { E: 'e' },
      $PARENT: { up: true },
    };
    const context = { $PARENT: parent };
    expect(evalSync('$PARENT.INPUT.name', context)).toBe('P');
    expect(evalSync('$PARENT.$INPUT.name', context)).toBe('P');
    expect(evalSync('$PARENT.NODE.n', context)).toBe(1);
    expect(evalSync('$PARENT.GLOBAL.g', context)).toBe(2);
    expect(evalSync('$PARENT.ENV.E', context)).toBe('e');
    expect(evalSync('$PARENT.PARENT.up', context)).toBe(true);
    // Only those five names: other fields are read as written.
    expect(evalSync('$PARENT.FLOW_ID', { $PARENT: { $FLOW_ID: 'x' } })).toBe(null);
    expect(evalSync('$INPUT.INPUT', ctx)).toBe('own key');
  });
});

describe('indices', () => {
  const ctx = { $INPUT: { xs: ['a', 'b', 'c'], s: 'h😀llo', o: { '0': 'zero' }, n: 5, nil: null } };

  it('indexes arrays from either end', () => {
    expect(evalSync('$INPUT.xs[0]', ctx)).toBe('a');
    expect(evalSync('$INPUT.xs[2]', ctx)).toBe('c');
    expect(evalSync('$INPUT.xs[-1]', ctx)).toBe('c');
    expect(evalSync('$INPUT.xs[-3]', ctx)).toBe('a');
    expect(evalSync('$INPUT.xs.1', ctx)).toBe('b');
  });

  it('indexes strings by code point', () => {
    expect(evalSync('$INPUT.s[1]', ctx)).toBe('😀');
    expect(evalSync('$INPUT.s[2]', ctx)).toBe('l');
    expect(evalSync('$INPUT.s[-1]', ctx)).toBe('o');
  });

  it('fails out of range and on objects, null, numbers', () => {
    expect(() => evalSync('$INPUT.xs[3]', ctx)).toThrow(/out of range/);
    expect(() => evalSync('$INPUT.xs[-4]', ctx)).toThrow(ExpressionError);
    expect(() => evalSync('$INPUT.s[5]', ctx)).toThrow(ExpressionError);
    expect(() => evalSync('$INPUT.o[0]', ctx)).toThrow(/cannot index object/);
    expect(() => evalSync('$INPUT.nil[0]', ctx)).toThrow(/cannot index null/);
    expect(() => evalSync('$INPUT.missing[0]', ctx)).toThrow(ExpressionError);
    expect(() => evalSync('$INPUT.n[0]', ctx)).toThrow(ExpressionError);
  });
});

describe('nested expressions (§5.5)', () => {
  const ctx = {
    $INPUT: {
      cfg: {
        $base: 10,
        ref: '$base',
        tpl: 'n={% $base %}',
        plain: 'costs 5 $ per unit',
        deep: '$inner.ref',
        $inner: { ref: '$v', $v: 'V' },
      },
      list: ['$base'],
      bad: '$5 off',
    },
  };

  it('evaluates a string a field step yields, against the object holding it', () => {
    expect(evalSync('$INPUT.cfg.ref', ctx)).toBe(10);
    expect(evalSync('$INPUT.cfg.tpl', ctx)).toBe('n=10');
    expect(evalSync('$INPUT.cfg.deep', ctx)).toBe('V');
  });

  it('continues the walk on the evaluated value', () => {
    const context = { $INPUT: { o: { ptr: '$target', $target: { x: 'found' } } } };
    expect(evalSync('$INPUT.o.ptr.x', context)).toBe('found');
  });

  it('leaves other strings, containers and index steps alone', () => {
    expect(evalSync('$INPUT.cfg.plain', ctx)).toBe('costs 5 $ per unit');
    expect(evalSync('$INPUT.cfg', ctx)).toBe(ctx.$INPUT.cfg);
    expect(evalSync('$INPUT.list[0]', ctx)).toBe('$base');
    expect(evalSync('$INPUT', { $INPUT: '$NOPE' })).toBe('$NOPE');
  });

  it('fails like any expression when the nested string does not parse or resolve', () => {
    expect(() => evalSync('$INPUT.bad', ctx)).toThrow(ExpressionError);
    expect(() => evalSync('$INPUT.x', { $INPUT: { x: '$INPUT.y' } })).toThrow(
      /unknown root \$INPUT/,
    );
  });

  it('stops a cycle of nested strings with a clean error', () => {
    const loop: Record<string, unknown> = { next: '$self.next' };
    loop.$self = loop;
    expect(() => evalSync('$INPUT.next', { $INPUT: loop })).toThrow(/levels deep/);
  });
});

describe('templates', () => {
  const ctx = {
    $INPUT: { name: 'Ann', flag: true, obj: { a: 1, b: 'x' }, list: [1, 2], n: 0.5, big: 1e21 },
  };

  it('substitutes the display form of each slot', () => {
    expect(evalSync('Hello {% $INPUT.name %}!', ctx)).toBe('Hello Ann!');
    expect(evalSync('flag={% $INPUT.flag %} none={% $INPUT.missing %}', ctx)).toBe(
      'flag=true none=null',
    );
    expect(evalSync('{%$INPUT.obj%}|{%$INPUT.list%}|{%$INPUT.n%}|{%$INPUT.big%}', ctx)).toBe(
      '{"a":1,"b":"x"}|[1,2]|0.5|1e+21',
    );
    expect(evalSync("{% '$' %}5 off")).toBe('$5 off');
    expect(evalSync('{% 2 %}{% true %}{% None %}{% "q" %}')).toBe('2truenullq');
  });

  it('keeps what does not parse', () => {
    expect(evalSync('{user.name}', ctx)).toBe('{user.name}');
    expect(evalSync('hi {%world%}', ctx)).toBe('hi {%world%}');
    expect(evalSync('a {% $INPUT.name %} b {%', ctx)).toBe('a Ann b {%');
    expect(evalSync('x {%@INPUT.x%} y', ctx)).toBe('x {%@INPUT.x%} y');
  });

  it('raises evaluation errors of a slot that parses', () => {
    expect(() => evalSync('a {% $NOPE %}', ctx)).toThrow(/\$NOPE/);
    expect(() => evalSync('a {% $F.nope() %}', ctx)).toThrow(/nope/);
  });

  it('never falls back to the parent', () => {
    const parent = makeScope({ $INPUT: { name: 'P' } });
    const scope = makeScope({ $INPUT: {} }, { parent });
    expect(evaluateValue('hi {% $INPUT.name %}', scope, { fallback: true })).toBe('hi null');
  });
});

describe('literals (§5.2 rule 3)', () => {
  it('returns them as is', () => {
    expect(evalSync('plain')).toBe('plain');
    expect(evalSync('Hi ${INPUT.x}')).toBe('Hi ${INPUT.x}');
  });

  it('warns once per string that looks like another template language', () => {
    for (const text of [
      'Hello {{ name }}',
      'x }} y',
      "f'{x}'",
      'await load()',
      'fmt(a, $INPUT.x)',
    ]) {
      const scope = makeScope();
      expect(evaluateValue(text, scope)).toBe(text);
      expect(scope.warnings).toHaveLength(1);
      expect(scope.warnings[0]).toContain('another language');
      const again = makeScope();
      evaluateValue(text, again);
      expect(again.warnings).toHaveLength(0);
    }
  });

  it('does not warn for ordinary text', () => {
    for (const text of [
      'if (x) then $5',
      'awaiting',
      'elf"s',
      'a { b } c',
      'Hi ${INPUT.x}',
      'f(a) $b',
      '9($x)',
    ]) {
      const scope = makeScope();
      evaluateValue(text, scope);
      expect(scope.warnings, text).toHaveLength(0);
    }
  });
});

describe('evaluateValue walks containers (§5.1)', () => {
  const ctx = { $INPUT: { x: 7, xs: [1, 2] } };

  it('evaluates string leaves at any depth and never keys', () => {
    const value = {
      n: 1,
      f: 2.5,
      b: true,
      z: null,
      s: 'plain',
      list: [1, '$INPUT.x'],
      nested: { k: ['$INPUT.x'] },
      $INPUT: 'k',
    };
    expect(evalSync(value, ctx)).toEqual({
      n: 1,
      f: 2.5,
      b: true,
      z: null,
      s: 'plain',
      list: [1, 7],
      nested: { k: [7] },
      $INPUT: 'k',
    });
  });

  it('returns new containers and the same non-string leaves', () => {
    const plain = { kind: 'plain object' };
    const date = new Date(0);
    const input = { a: [1], d: date };
    const out = evalSync(input, ctx) as typeof input;
    expect(out).not.toBe(input);
    expect(out.a).not.toBe(input.a);
    expect(out.d).toBe(date);
    expect(evalSync(plain)).not.toBe(plain);
    expect(evalSync(42)).toBe(42);
    expect(evalSync(undefined)).toBe(undefined);
  });

  it('returns a whole expression by reference into the context', () => {
    expect(evalSync('$INPUT.xs', ctx)).toBe(ctx.$INPUT.xs);
  });

  it('keeps a "__proto__" key as a key', () => {
    const input = JSON.parse('{"__proto__": "$INPUT.x", "a": 1}') as Record<string, unknown>;
    const out = evalSync(input, ctx) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(out.__proto__).toBe(7);
  });
});

describe('parent fallback (§5.5)', () => {
  const grandparent = makeScope({ $INPUT: { only: 'grandparent', shared: 'gp' } });
  const parent = makeScope({ $INPUT: { shared: 'from-parent' } }, { parent: grandparent });
  const child = makeScope({ $INPUT: { own: 1, nil: null } }, { parent });

  it('re-evaluates a whole expression that is null in the parent, then further up', () => {
    const value = {
      own: '$INPUT.own',
      fallback: '$INPUT.shared',
      far: '$INPUT.only',
      none: '$INPUT.nothing',
    };
    expect(evaluateValue(value, child, { fallback: true })).toEqual({
      own: 1,
      fallback: 'from-parent',
      far: 'grandparent',
      none: null,
    });
  });

  it('is off by default and never applies to templates or literals', () => {
    expect(evaluateValue('$INPUT.shared', child)).toBe(null);
    expect(evaluateValue('{% $INPUT.shared %}', child, { fallback: true })).toBe('null');
  });

  it('does not apply to errors', () => {
    const lonely = makeScope({ $OTHER: 1 }, { parent });
    expect(() => evaluateValue('$INPUT.shared', lonely, { fallback: true })).toThrow(
      ExpressionError,
    );
  });

  it('applies to calls that return null', () => {
    expect(evaluateValue("$F.get($INPUT, 'shared')", child, { fallback: true })).toBe(
      'from-parent',
    );
  });

  it('keeps non-null falsy values', () => {
    const scope = makeScope({ $INPUT: { zero: 0, empty: '', no: false } }, { parent });
    expect(
      evaluateValue(['$INPUT.zero', '$INPUT.empty', '$INPUT.no'], scope, { fallback: true }),
    ).toEqual([0, '', false]);
  });
});
