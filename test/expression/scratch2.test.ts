import { it, expect } from 'vitest';
it('imports', async () => {
  for (const m of ['../../src/util/maybe-promise.ts', '../../src/expression/python-index.ts', '../../src/expression/code-points.ts', '../../src/expression/string-kind.ts', '../../src/expression/value-kind.ts']) {
    try { await import(m); console.log('ok', m); } catch (e) { console.log('fail', m, String(e), e?.constructor?.name); }
  }
  expect(1).toBe(1);
});
