import { describe, expect, it } from 'vitest';
import { FunctionCallError } from '../../src/errors/expression-errors.js';
import { evaluateValue } from '../../src/expression/evaluate.js';
import { defaultFunctions } from '../../src/expression/function-registry.js';
import { FakeClock } from '../../src/util/fake-clock.js';
import { makeScope } from './make-scope.js';

/** Tuesday 2024-03-05 14:07:09.123 UTC (a leap year; New York is still on EST). */
const INSTANT = Date.UTC(2024, 2, 5, 14, 7, 9, 123);

function at(epochMs: number, expression: string, timeZone?: string): unknown {
  const clock = new FakeClock(epochMs);
  return evaluateValue(
    expression,
    makeScope({}, timeZone === undefined ? { clock } : { timeZone, clock }),
  );
}

describe('now', () => {
  it('formats the current time in the scope time zone, default layout', () => {
    expect(at(INSTANT, '$F.now()', 'UTC')).toBe('2024-03-05 14:07:09');
    expect(at(INSTANT, '$F.now()', 'Asia/Tokyo')).toBe('2024-03-05 23:07:09');
    expect(at(INSTANT, '$F.now()', 'America/New_York')).toBe('2024-03-05 09:07:09');
    expect(at(INSTANT, '$F.now()', 'Asia/Kolkata')).toBe('2024-03-05 19:37:09');
  });

  it('supports every directive of §5.8', () => {
    expect(at(INSTANT, "$F.now('%Y|%y|%m|%d|%H|%I|%M|%S|%f|%p')", 'UTC')).toBe(
      '2024|24|03|05|14|02|07|09|123000|PM',
    );
    expect(at(INSTANT, "$F.now('%a %A %b %B %j %w [%z%Z] 100%%')", 'UTC')).toBe(
      'Tue Tuesday Mar March 065 2 [] 100%',
    );
    expect(at(Date.UTC(2024, 0, 7, 0, 5), "$F.now('%I %p %a %w %j')", 'UTC')).toBe(
      '12 AM Sun 0 007',
    );
    expect(at(Date.UTC(2024, 11, 31, 12), "$F.now('%j')", 'UTC')).toBe('366');
    expect(at(Date.UTC(2023, 11, 31, 23, 30), "$F.now('%Y-%m-%d %j')", 'Asia/Tokyo')).toBe(
      '2024-01-01 001',
    );
    expect(at(Date.UTC(2024, 6, 1, 12), "$F.now('%H')", 'America/New_York')).toBe('08');
  });

  it('copies other text and rejects other directives, naming them', () => {
    expect(at(INSTANT, "$F.now('at %H:%M on day %d')", 'UTC')).toBe('at 14:07 on day 05');
    expect(() => at(INSTANT, "$F.now('%Q')", 'UTC')).toThrow(FunctionCallError);
    expect(() => at(INSTANT, "$F.now('%Y %c')", 'UTC')).toThrow(/"%c"/);
    expect(() => at(INSTANT, "$F.now('50%')", 'UTC')).toThrow(/lone "%"/);
  });

  it('uses the process zone when the scope has none', () => {
    const local = new Date(INSTANT);
    const pad = (n: number) => String(n).padStart(2, '0');
    expect(at(INSTANT, "$F.now('%H:%M %d')")).toBe(
      `${pad(local.getHours())}:${pad(local.getMinutes())} ${pad(local.getDate())}`,
    );
  });

  it('fails on an unknown zone, a non-string format or too many arguments', () => {
    expect(() => at(INSTANT, '$F.now()', 'Mars/Olympus')).toThrow(/invalid time zone/);
    expect(() => at(INSTANT, '$F.now(1)', 'UTC')).toThrow(/argument 1 must be a string/);
    expect(() => at(INSTANT, '$F.now(null)', 'UTC')).toThrow(FunctionCallError);
    expect(() => at(INSTANT, "$F.now('%Y', 1)", 'UTC')).toThrow(/takes 0 to 1 arguments/);
  });
});

describe('today', () => {
  it('formats the current local date with time fields zero', () => {
    expect(at(INSTANT, '$F.today()', 'UTC')).toBe('2024-03-05');
    expect(at(Date.UTC(2024, 2, 5, 20), '$F.today()', 'Asia/Tokyo')).toBe('2024-03-06');
    expect(at(INSTANT, "$F.today('%d/%m/%y %H:%M:%S.%f %I %p %A')", 'UTC')).toBe(
      '05/03/24 00:00:00.000000 12 AM Tuesday',
    );
    expect(() => at(INSTANT, "$F.today('%Y', 2)", 'UTC')).toThrow(FunctionCallError);
  });
});

describe('registration', () => {
  it('keeps reading the scope time zone from a copied registry', () => {
    const scope = makeScope(
      {},
      { functions: defaultFunctions.copy(), timeZone: 'Asia/Tokyo', clock: new FakeClock(INSTANT) },
    );
    expect(evaluateValue("$F.now('%H')", scope)).toBe('23');
  });

  it('reads the system clock when the scope has none', () => {
    const year = Number(evaluateValue("$F.now('%Y')", makeScope({}, { timeZone: 'UTC' })));
    expect(year).toBeGreaterThanOrEqual(2024);
  });
});
