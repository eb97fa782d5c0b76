import { beforeEach, describe, expect, it } from 'vitest';
import { parseFlow, runFlow } from '../../src/index.js';
import { clearParseCache, parseCacheChars, parseCacheStats } from '../../src/expression/program.js';

// Issue 7 item 3: every distinct `$…` data string used to be cached (10,000 entries, no size
// bound): 300 runs with a 1 MiB string each held 315 MB. Long strings are now never cached, and
// the cache is bounded by the characters it holds.

const echo = parseFlow({
  nodes: [
    { type: 'start', id: 's', next: 'e' },
    { type: 'end', id: 'e', output: '$INPUT.data' },
  ],
});

describe('the parse cache holds no untrusted bulk', () => {
  beforeEach(() => clearParseCache());

  it('300 runs with a distinct 1 MiB `$…` string each leave nothing large in the cache', async () => {
    const filler = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 300; i++) {
      // A string literal expression: parses, evaluates to the literal text.
      await runFlow(echo, { data: `$F.len('${i}${filler}')` });
    }
    expect(parseCacheChars()).toBeLessThan(64 * 1024);
  });

  it('many distinct mid-sized strings stay under the character bound', async () => {
    const filler = 'y'.repeat(2_000);
    for (let i = 0; i < 5_000; i++) await runFlow(echo, { data: `$F.len('${i}${filler}')` });
    expect(parseCacheChars()).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(parseCacheStats().size).toBeLessThan(5_000);
  });

  it("the flow's own expressions are still parsed once", async () => {
    for (let i = 0; i < 100; i++) await runFlow(echo, { data: 1 });
    expect(parseCacheStats().parses).toBe(1);
  });
});
