import { describe, expect, it } from 'vitest';
import type {
  Condition,
  ConditionIssue,
  ConditionOperator,
} from '../../src/expression/condition.js';
import { matchCondition, parseCondition } from '../../src/expression/condition.js';
import {
  ExpressionError,
  FunctionCallError,
  ValueTypeError,
} from '../../src/errors/expression-errors.js';
import { FunctionRegistry, defaultFunctions } from '../../src/expression/function-registry.js';
import { makeScope } from './make-scope.js';

function parse(raw: unknown) {
  const warnings: string[] = [];
  const issues: ConditionIssue[] = [];
  const condition = parseCondition(raw, {
    warn: (m) => warnings.push(m),
    issue: (i) => issues.push(i),
  });
  return { condition, warnings, issues };
}

const leaf = (field: unknown, operator: unknown, value: unknown) => ({ field, operator, value });

describe('parseCondition (§4)', () => {
  it('parses a leaf and a group, nested', () => {
    const raw = {
      relation: 'and',
      conditions: [leaf('$INPUT.a', 'eq', 1), { relation: 'or', conditions: [] }],
    };
    expect(parse(raw)).toEqual({
      condition: {
        kind: 'group',
        relation: 'and',
        conditions: [
          { kind: 'leaf', field: '$INPUT.a', operator: 'eq', value: 1 },
          { kind: 'group', relation: 'or', conditions: [] },
        ],
      },
      warnings: [],
      issues: [],
    });
  });

  it('accepts a JSON string of either form, also as a group member', () => {
    expect(parse(JSON.stringify(leaf('$INPUT.a', 'gt', 2))).condition).toEqual({
      kind: 'leaf',
      field: '$INPUT.a',
      operator: 'gt',
      value: 2,
    });
    const member = JSON.stringify(leaf('x', 'in', ['x']));
    expect(parse({ relation: 'or', conditions: [member] }).condition).toEqual({
      kind: 'group',
      relation: 'or',
      conditions: [{ kind: 'leaf', field: 'x', operator: 'in', value: ['x'] }],
    });
  });

  it('keeps a null value: the key has to be present, not non-null', () => {
    expect(parse(leaf('$INPUT.x', 'eq', null)).condition).toMatchObject({
      kind: 'leaf',
      value: null,
    });
  });

  it('prefers the group form when both are present', () => {
    expect(parse({ relation: 'and', conditions: [], ...leaf(1, 'eq', 1) }).condition).toEqual({
      kind: 'group',
      relation: 'and',
      conditions: [],
    });
  });

  it('returns "no condition" silently for empty values', () => {
    for (const raw of [null, undefined, '', {}, [], false, 0, 'null', '{}']) {
      expect(parse(raw), JSON.stringify(raw)).toEqual({
        condition: null,
        warnings: [],
        issues: [],
      });
    }
  });

  it('returns "no condition" with a warning for anything incomplete', () => {
    for (const raw of [
      { field: 'a', operator: 'eq' },
      { relation: 'and' },
      { foo: 1 },
      [leaf(1, 'eq', 1)],
      5,
      true,
    ]) {
      const result = parse(raw);
      expect(result.condition, JSON.stringify(raw)).toBe(null);
      expect(result.issues).toEqual([]);
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings[0]).toMatch(/can never match/);
    }
  });

  it('drops group members that parse to "no condition"', () => {
    const result = parse({
      relation: 'and',
      conditions: [leaf(1, 'eq', 1), { field: 'x' }, null, {}],
    });
    expect(result.condition).toEqual({
      kind: 'group',
      relation: 'and',
      conditions: [{ kind: 'leaf', field: 1, operator: 'eq', value: 1 }],
    });
    expect(result.warnings).toEqual([expect.stringMatching(/^conditions\[1\]/)]);
  });

  it('reports an unknown operator, with the exact spellings of the original only', () => {
    for (const operator of [
      'not_in',
      'notin',
      '==',
      '>=',
      'EQ',
      'neq',
      'contain',
      null,
      1,
    ] as unknown[]) {
      const result = parse(leaf('a', operator, 'b'));
      expect(result.condition, String(operator)).toBe(null);
      expect(result.issues).toEqual([
        { path: 'operator', message: expect.stringMatching(/unknown operator/) },
      ]);
    }
    expect(parse(leaf('a', 'contain', 'b')).issues[0]?.message).toMatch(/did you mean "contains"/);
    for (const operator of [
      'eq',
      'ne',
      'gt',
      'gte',
      'lt',
      'lte',
      'in',
      'notIn',
      'contains',
      'notContains',
    ]) {
      expect(parse(leaf('a', operator, 'b')).issues, operator).toEqual([]);
    }
  });

  it('reports a bad relation and bad members with paths relative to the condition', () => {
    const result = parse({
      relation: 'xor',
      conditions: [leaf(1, 'eq', 1), { relation: 'and', conditions: [leaf(1, 'bogus', 1)] }],
    });
    expect(result.condition).toBe(null);
    expect(result.issues.map((issue) => issue.path)).toEqual([
      'relation',
      'conditions[1].conditions[0].operator',
    ]);
    expect(parse({ relation: 'and', conditions: 'nope' }).issues).toEqual([
      { path: 'conditions', message: expect.stringMatching(/must be an array/) },
    ]);
  });

  it('reports a string that is not JSON', () => {
    const result = parse('{field: 1}');
    expect(result.condition).toBe(null);
    expect(result.issues).toEqual([{ path: '', message: expect.stringMatching(/not valid JSON/) }]);
  });
});

describe('matchCondition (§4)', () => {
  const scope = makeScope({
    $INPUT: { name: 'KongJie', age: 18, tags: ['a', 'b'], s: 'hello', n: 0, o: { k: 1 } },
  });
  const match = (condition: Condition) => matchCondition(condition, scope);
  const test = (field: unknown, operator: ConditionOperator, value: unknown) =>
    match({ kind: 'leaf', field, operator, value });

  it('evaluates both sides', () => {
    expect(test('$INPUT.name', 'eq', 'KongJie')).toBe(true);
    expect(test('$INPUT.age', 'eq', '$INPUT.age')).toBe(true);
    expect(test('Hi {% $INPUT.name %}', 'eq', 'Hi KongJie')).toBe(true);
    expect(test(['$INPUT.n'], 'eq', [0])).toBe(true);
    expect(test('$F.len($INPUT.tags)', 'gte', 2)).toBe(true);
  });

  it('applies each operator', () => {
    expect(test('$INPUT.age', 'ne', 17)).toBe(true);
    expect(test('$INPUT.age', 'gt', 17)).toBe(true);
    expect(test('$INPUT.age', 'gte', 18)).toBe(true);
    expect(test('$INPUT.age', 'lt', 18)).toBe(false);
    expect(test('$INPUT.age', 'lte', 18)).toBe(true);
    expect(test('a', 'in', '$INPUT.tags')).toBe(true);
    expect(test('c', 'notIn', '$INPUT.tags')).toBe(true);
    expect(test('$INPUT.tags', 'contains', 'b')).toBe(true);
    expect(test('$INPUT.s', 'notContains', 'z')).toBe(true);
    expect(test('$INPUT.o', 'contains', 'k')).toBe(true);
    expect(test('branch4', 'in', ['branch1', 'branch2'])).toBe(false);
  });

  it('does not coerce: "18" eq 18 is false, "18" gte 18 is an error', () => {
    expect(test('18', 'eq', 18)).toBe(false);
    expect(() => test('18', 'gte', 18)).toThrow(ValueTypeError);
    expect(() => test(1, 'in', 'a1')).toThrow(ValueTypeError);
    expect(() => test('$INPUT.o', 'gt', '$INPUT.o')).toThrow(ValueTypeError);
  });

  it('handles null operands: eq only when both null, ne when exactly one, others false', () => {
    expect(test('$INPUT.missing', 'eq', null)).toBe(true);
    expect(test(null, 'eq', '$INPUT.missing')).toBe(true);
    expect(test('$INPUT.missing', 'eq', 0)).toBe(false);
    expect(test('$INPUT.missing', 'ne', 1)).toBe(true);
    expect(test('$INPUT.missing', 'ne', null)).toBe(false);
    for (const operator of [
      'gt',
      'gte',
      'lt',
      'lte',
      'in',
      'notIn',
      'contains',
      'notContains',
    ] as const) {
      expect(test('$INPUT.missing', operator, 0), operator).toBe(false);
      expect(test('$INPUT.tags', operator, null), operator).toBe(false);
      expect(test(null, operator, null), operator).toBe(false);
    }
  });

  it('combines groups; an empty group is true', () => {
    const yes = { kind: 'leaf', field: 1, operator: 'eq', value: 1 } as const;
    const no = { kind: 'leaf', field: 1, operator: 'eq', value: 2 } as const;
    expect(match({ kind: 'group', relation: 'and', conditions: [yes, yes] })).toBe(true);
    expect(match({ kind: 'group', relation: 'and', conditions: [yes, no] })).toBe(false);
    expect(match({ kind: 'group', relation: 'or', conditions: [no, yes] })).toBe(true);
    expect(match({ kind: 'group', relation: 'or', conditions: [no, no] })).toBe(false);
    expect(match({ kind: 'group', relation: 'and', conditions: [] })).toBe(true);
    expect(match({ kind: 'group', relation: 'or', conditions: [] })).toBe(true);
    expect(
      match({
        kind: 'group',
        relation: 'and',
        conditions: [yes, { kind: 'group', relation: 'or', conditions: [] }],
      }),
    ).toBe(true);
  });

  it('evaluates every member of a group: no short-circuit', () => {
    const calls: string[] = [];
    const functions = defaultFunctions.copy().register('seen', (tag) => {
      calls.push(String(tag));
      return tag;
    });
    const counting = makeScope({}, { functions });
    const member = (tag: string) =>
      ({ kind: 'leaf', field: `$F.seen('${tag}')`, operator: 'eq', value: 'a' }) as const;
    expect(
      matchCondition(
        { kind: 'group', relation: 'or', conditions: [member('a'), member('b')] },
        counting,
      ),
    ).toBe(true);
    expect(
      matchCondition(
        { kind: 'group', relation: 'and', conditions: [member('x'), member('a')] },
        counting,
      ),
    ).toBe(false);
    expect(calls).toEqual(['a', 'b', 'x', 'a']);
    const failing = { kind: 'leaf', field: '$NOPE', operator: 'eq', value: 1 } as const;
    expect(() =>
      matchCondition(
        { kind: 'group', relation: 'or', conditions: [member('a'), failing] },
        counting,
      ),
    ).toThrow(ExpressionError);
  });

  it('never falls back to the parent', () => {
    const parent = makeScope({ $INPUT: { x: 1 } });
    const child = makeScope({ $INPUT: {} }, { parent });
    expect(
      matchCondition({ kind: 'leaf', field: '$INPUT.x', operator: 'eq', value: null }, child),
    ).toBe(true);
  });

  it('returns a promise only when a function does', async () => {
    const functions = new FunctionRegistry().register('later', (x) => Promise.resolve(x));
    const asyncScope = makeScope({}, { functions });
    const result = matchCondition(
      {
        kind: 'group',
        relation: 'and',
        conditions: [
          { kind: 'leaf', field: '$F.later(2)', operator: 'gt', value: 1 },
          { kind: 'leaf', field: 'x', operator: 'eq', value: 'x' },
          { kind: 'leaf', field: 3, operator: 'eq', value: '$F.later(3)' },
        ],
      },
      asyncScope,
    );
    expect(result).toBeInstanceOf(Promise);
    await expect(result).resolves.toBe(true);
    const failing = matchCondition(
      { kind: 'leaf', field: '$F.later(1)', operator: 'gt', value: 'a' },
      asyncScope,
    );
    await expect(failing).rejects.toThrow(ValueTypeError);
    expect(() =>
      matchCondition({ kind: 'leaf', field: '$F.nope()', operator: 'eq', value: 1 }, asyncScope),
    ).toThrow(FunctionCallError);
  });
});
