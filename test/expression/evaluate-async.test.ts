import { describe, expect, it } from 'vitest';
import { FunctionCallError } from '../../src/errors/expression-errors.js';
import { evaluateValue } from '../../src/expression/evaluate.js';
import { defaultFunctions } from '../../src/expression/function-registry.js';
import type { Context } from '../../src/expression/scope.js';
import { makeScope } from './make-scope.js';

const later = <T>(value: T, ms = 1) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

function asyncFunctions() {
  const log: string[] = [];
  const functions = defaultFunctions
    .copy()
    .register('later', (x, ms) => {
      log.push(`start ${String(x)}`);
      return later(x, typeof ms === 'number' ? ms : 1).then((v) => {
        log.push(`end ${String(x)}`);
        return v;
      });
    })
    .register(
      'now',
      (x) => {
        log.push(`sync ${String(x)}`);
        return x;
      },
      { override: true },
    )
    .register('thenable', (x) => ({ then: (resolve: (v: unknown) => void) => resolve(x) }))
    .register('undef', () => later(undefined))
    .register('fail', () => Promise.reject(new Error('async failure')));
  return { functions, log };
}

describe('synchronous unless a function returns a promise', () => {
  it('returns plain values on the all-synchronous path', () => {
    const scope = makeScope({ $INPUT: { x: 1 } });
    for (const value of [
      '$INPUT.x',
      '$F.add(1, 2)',
      'a {% $INPUT.x %}',
      ['$INPUT.x'],
      { a: '$INPUT.x' },
    ]) {
      expect(evaluateValue(value, scope)).not.toBeInstanceOf(Promise);
    }
  });

  it('returns a promise as soon as a function does, at any depth', async () => {
    const { functions } = asyncFunctions();
    const scope = makeScope({ $INPUT: { x: 2 } }, { functions });
    const cases: [unknown, unknown][] = [
      ['$F.later(1)', 1],
      ['$F.add($F.later(1), $INPUT.x)', 3],
      ['n={% $F.later(5) %}, x={% $INPUT.x %}', 'n=5, x=2'],
      [
        { a: ['$F.later(1)', '$INPUT.x'], b: 'lit' },
        { a: [1, 2], b: 'lit' },
      ],
      ['$F.thenable(7)', 7],
      ['$F.undef()', null],
    ];
    for (const [value, expected] of cases) {
      const result = evaluateValue(value, scope);
      expect(result, JSON.stringify(value)).toBeInstanceOf(Promise);
      await expect(result).resolves.toEqual(expected);
    }
  });

  it('keeps evaluation strictly left to right across asynchronous arguments and leaves', async () => {
    const { functions, log } = asyncFunctions();
    const scope = makeScope({}, { functions });
    await evaluateValue(
      ['$F.concat($F.later(1, 5), $F.now(2), $F.later(3, 1))', '$F.now(4)'],
      scope,
    );
    expect(log).toEqual(['start 1', 'end 1', 'sync 2', 'start 3', 'end 3', 'sync 4']);
  });

  it('rejects with the function error', async () => {
    const { functions } = asyncFunctions();
    const scope = makeScope({}, { functions });
    await expect(evaluateValue('$F.add($F.fail(), 1)', scope)).rejects.toThrow('async failure');
    await expect(evaluateValue('$F.add($F.later(1), "x")', scope)).rejects.toThrow(
      FunctionCallError,
    );
  });

  it('falls back to the parent after an asynchronous null', async () => {
    const { functions } = asyncFunctions();
    const parent = makeScope({ $INPUT: { v: 'parent' } }, { functions });
    const child = makeScope({ $INPUT: {} }, { functions, parent });
    await expect(evaluateValue('$F.undef()', child, { fallback: true })).resolves.toBe(null);
    await expect(
      evaluateValue(["$F.get($INPUT, $F.later('v'))"], child, { fallback: true }),
    ).resolves.toEqual(['parent']);
  });

  it('continues a path walk after an asynchronous nested expression', async () => {
    const { functions } = asyncFunctions();
    const scope = makeScope(
      { $INPUT: { o: { ptr: '$F.later($target)', $target: { x: 'found' } } } },
      { functions },
    );
    await expect(evaluateValue('$INPUT.o.ptr.x', scope)).resolves.toBe('found');
  });
});

describe('mutating functions and beforeMutation', () => {
  it('mutates the value in the context (a whole expression is a reference)', () => {
    const context = { $INPUT: { xs: [0, 0, 5] } };
    const scope = makeScope(context);
    expect(() => evaluateValue('$F.div(1, $F.pop($INPUT.xs, 0))', scope)).toThrow(
      /division by zero/,
    );
    expect(() => evaluateValue('$F.div(1, $F.pop($INPUT.xs, 0))', scope)).toThrow(
      /division by zero/,
    );
    expect(evaluateValue('$F.div(1, $F.pop($INPUT.xs, 0))', scope)).toBe(0.2);
    expect(context.$INPUT.xs).toEqual([]);
  });

  it('calls the hook before the arguments are evaluated and reads the swapped context afterwards', () => {
    const original: Context = { $INPUT: { xs: [1, 2, 3] }, $TAG: 'old' };
    const detached: Context = structuredClone({ ...original, $TAG: 'new' });
    const events: string[] = [];
    const functions = defaultFunctions.copy().register('tag', (x) => {
      events.push(`tag ${String(x)}`);
      return x;
    });
    const scope = makeScope(original, {
      functions,
      beforeMutation: () => {
        events.push('hook');
        scope.context = detached;
      },
    });
    const result = evaluateValue(
      '$F.concat($F.tag($TAG), $F.pop($F.tag($INPUT.xs), 0), $F.tag($TAG))',
      scope,
    );
    expect(result).toBe('old1new');
    expect(events).toEqual(['tag old', 'hook', 'tag 1,2,3', 'tag new']);
    expect(original.$INPUT).toEqual({ xs: [1, 2, 3] });
    expect(detached.$INPUT).toEqual({ xs: [2, 3] });
  });

  it('does not call the hook for pure functions', () => {
    let hooks = 0;
    const scope = makeScope({ $INPUT: { xs: [1] } }, { beforeMutation: () => hooks++ });
    evaluateValue(['$F.append($INPUT.xs, 2)', '$F.len($INPUT.xs)', '$INPUT.xs'], scope);
    expect(hooks).toBe(0);
    evaluateValue(["$F.set($INPUT, 'k', 1)", '$F.clear($INPUT.xs)'], scope);
    expect(hooks).toBe(2);
  });

  it('calls the hook for custom functions registered with sideEffects', () => {
    let hooks = 0;
    const functions = defaultFunctions.copy().register('touch', () => null, { sideEffects: true });
    evaluateValue('$F.touch()', makeScope({}, { functions, beforeMutation: () => hooks++ }));
    expect(hooks).toBe(1);
  });
});
