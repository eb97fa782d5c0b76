import { beforeEach, describe, expect, it } from 'vitest';
import { evaluateValue } from '../../src/expression/evaluate.js';
import { ParseCache } from '../../src/expression/parse-cache.js';
import { clearParseCache, parseCacheStats } from '../../src/expression/program.js';
import { makeScope } from './make-scope.js';

describe('the parse cache', () => {
  beforeEach(() => clearParseCache());

  it('parses each distinct string once', () => {
    const scope = makeScope({ $INPUT: { items: [{ price: 3 }], name: 'A' } });
    const strings = [
      '$INPUT.items[0].price',
      'Hi {% $INPUT.name %}',
      '$F.add(1, 2)',
      'literal',
      '$5 off',
    ];
    for (let round = 0; round < 100; round++) {
      for (const text of strings) {
        try {
          evaluateValue(text, scope);
        } catch {
          // '$5 off' does not parse: it fails every time, without being parsed again.
        }
      }
    }
    expect(parseCacheStats()).toEqual({
      parses: strings.length,
      hits: 99 * strings.length,
      size: strings.length,
    });
  });

  it('parses a template once, slots included, and nested strings once each', () => {
    const scope = makeScope({ $INPUT: { cfg: { $b: 1, ref: '$b' } } });
    for (let i = 0; i < 10; i++)
      evaluateValue(['{% $INPUT.cfg.ref %} {% $INPUT.cfg.ref %}'], scope);
    expect(parseCacheStats().parses).toBe(2);
  });

  it('remembers a template that cannot be compiled, and fails it every time', () => {
    const deep = '{% ' + '$F.not('.repeat(300) + '1' + ')'.repeat(300) + ' %}';
    for (let i = 0; i < 3; i++)
      expect(() => evaluateValue(deep, makeScope())).toThrow(/nested more than/);
    expect(parseCacheStats().parses).toBe(1);
  });

  it('warns about a suspicious literal only when it is first parsed', () => {
    const scope = makeScope();
    for (let i = 0; i < 5; i++) evaluateValue('{{ name }}', scope);
    expect(scope.warnings).toHaveLength(1);
  });
});

describe('ParseCache', () => {
  it('stays bounded and keeps recently used entries', () => {
    const cache = new ParseCache<number>(10);
    for (let i = 0; i < 100; i++) {
      if (cache.get('hot') === undefined) cache.set('hot', -1);
      cache.set(`k${i}`, i);
    }
    expect(cache.stats().size).toBeLessThanOrEqual(10);
    expect(cache.get('hot')).toBe(-1);
    expect(cache.get('k0')).toBe(undefined);
    expect(cache.get('k99')).toBe(99);
  });
});
