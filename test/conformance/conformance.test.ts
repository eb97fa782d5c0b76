import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FlowDefinitionError, FlowError, parseFlow, runFlow } from '../../src/index.js';

/**
 * Runs every conformance case: flow + input → expected result or error. The shared folder is
 * the source of truth when present; the vendored copy lets a fresh clone run them too. Our
 * own cases (own-cases/, same shape: behaviour of the original's tests the shared set does not
 * pin, and our deliberate differences) always run beside them.
 */
const here = dirname(fileURLToPath(import.meta.url));
const shared = resolve(here, '../../../shared/conformance/cases');
const casesDir =
  process.env.PLAITA_CONFORMANCE_DIR ?? (existsSync(shared) ? shared : join(here, 'cases'));
const ownCasesDir = join(here, 'own-cases');

interface ConformanceCase {
  name: string;
  source?: string;
  flow: unknown;
  input?: Record<string, unknown>;
  env?: Record<string, string>;
  expect:
    | { result: unknown }
    | { error: { code: number | null; type: string | null; messageIncludes: string | null } };
}

function readCases(dir: string): ConformanceCase[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ConformanceCase);
}

const cases = readCases(casesDir);
const ownCases = readCases(ownCasesDir);

async function outcome(c: ConformanceCase): Promise<{ result: unknown } | { error: unknown }> {
  try {
    const flow = parseFlow(c.flow as object);
    // Each run gets its own input copy: some cases mutate it through $F.pop / $F.delete.
    const input = structuredClone(c.input ?? {});
    return { result: await runFlow(flow, input, { env: { ...(c.env ?? {}) } }) };
  } catch (error) {
    return { error };
  }
}

function runCase(c: ConformanceCase): void {
  it(
    c.name,
    async () => {
      const got = await outcome(c);
      if ('result' in c.expect) {
        if ('error' in got) throw got.error;
        // JSON deep equality: key order ignored, 2 equals 2.0 (both are the same JS number).
        expect(got.result).toEqual(c.expect.result);
        return;
      }
      expect(
        'error' in got,
        `expected an error, got result ${JSON.stringify((got as { result: unknown }).result)}`,
      ).toBe(true);
      const error = (got as { error: unknown }).error;
      const want = c.expect.error;
      expect(error instanceof FlowError || error instanceof FlowDefinitionError).toBe(true);
      const e = error as { code: unknown; type?: unknown; message: string };
      if (want.code !== null) expect(e.code).toBe(want.code);
      if (want.type !== null) expect(e.type).toBe(want.type);
      if (want.messageIncludes !== null) expect(e.message).toContain(want.messageIncludes);
    },
    30_000,
  );
}

describe(`conformance cases (${casesDir})`, () => {
  it('found the cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(68);
  });

  for (const c of cases) runCase(c);
});

describe('our own conformance cases (own-cases/)', () => {
  it('found the cases, each naming what it pins, with names unique across both sets', () => {
    expect(ownCases.length).toBeGreaterThan(0);
    for (const c of ownCases) expect(c.source, c.name).toMatch(/\S/);
    const names = [...cases, ...ownCases].map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  for (const c of ownCases) runCase(c);
});
