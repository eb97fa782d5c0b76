import { describe, expect, it } from 'vitest';
import type { NodeTiming } from '../../src/state/execution-state.js';
import { changedTimings } from '../../src/worker/changed-timings.js';

const open = (at: string): NodeTiming => ({
  startedAt: at,
  endedAt: null,
  attempts: 1,
  durationMs: null,
});
const closed = (at: string): NodeTiming => ({ ...open(at), endedAt: at, durationMs: 0 });
const T0 = '2030-01-01T00:00:00.000Z';

describe('changedTimings', () => {
  const saved = { a: closed(T0), b: open(T0) };
  const cases: [string, Record<string, NodeTiming>, string[]][] = [
    ['the same map', saved, []],
    ['equal values in new objects', { a: closed(T0), b: open(T0) }, []],
    [
      'the node that ran closed, the next one started',
      { a: closed(T0), b: closed(T0), c: open(T0) },
      ['b', 'c'],
    ],
    ['a restart counted', { ...saved, b: { ...open(T0), attempts: 2 } }, ['b']],
    ['a timing removed', { a: closed(T0) }, ['b']],
    [
      'a timing removed and started again (operator retry): it and those after it move',
      { b: open('2030-01-01T00:00:01.000Z'), a: closed(T0) },
      ['b', 'a'],
    ],
    ['the first of two removed: the other moves', { b: open(T0) }, ['b', 'a']],
    [
      '`__proto__` as a node id',
      JSON.parse(
        `{"a":${JSON.stringify(closed(T0))},"b":${JSON.stringify(open(T0))},"__proto__":${JSON.stringify(open(T0))}}`,
      ) as Record<string, NodeTiming>,
      ['__proto__'],
    ],
  ];
  it.each(cases)('%s', (_, next, expected) => {
    expect(changedTimings(saved, next)).toEqual(expected);
  });
});
