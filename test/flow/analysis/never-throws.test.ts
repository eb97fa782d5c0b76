import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ISSUE_CODES, type FlowIssue } from '../../../src/flow/analysis/flow-issue.js';
import { analyze, analyzeSync } from './analyze-support.js';
import { conformanceCases, exampleDocuments } from './flow-corpus.js';

/** Every issue is well-formed, and the analysis itself never gave up on a loaded flow. */
function checkIssues(issues: readonly FlowIssue[]): void {
  for (const issue of issues) {
    expect(['error', 'warning']).toContain(issue.severity);
    expect(ISSUE_CODES).toContain(issue.code);
    expect(typeof issue.path).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
    if (issue.column !== undefined) expect(issue.column).toBeGreaterThanOrEqual(1);
    expect(issue.code).not.toBe('analysis_failed');
  }
}

const realFlows: unknown[] = [
  ...conformanceCases.map((c) => c.flow),
  ...exampleDocuments.map((d) => JSON.parse(d.text) as unknown),
];

type Path = ReadonlyArray<string | number>;

/** Every position in a JSON value, the root excluded. */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(value)) {
    value.forEach((item: unknown, i) => {
      out.push([...prefix, i]);
      pathsOf(item, [...prefix, i], out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      out.push([...prefix, key]);
      pathsOf(item, [...prefix, key], out);
    }
  }
  return out;
}

/** Values that stress the analysis: expressions half written, ids, wrong shapes. */
const nasty = fc.oneof(
  fc.constantFrom(
    '$',
    '$F.',
    '$F.upper(',
    '$F.nope($NODE.x)',
    '{% $INPUT.x',
    '{% %}',
    '$NODE.',
    '$NODE.start',
    'start',
    'end',
    'ghost',
    null,
    [],
    {},
    { nodes: [] },
    { relation: 'and', conditions: [{ field: '$x(', operator: 'eq', value: 1 }] },
    '{"field": 1, "operator": "eq", "value": 1}',
  ),
  fc.jsonValue({ maxDepth: 3 }),
);

type Mutation = { pick: number; action: 'replace' | 'delete'; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  action: fc.constantFrom('replace' as const, 'delete' as const),
  value: nasty,
});

function mutate(flow: unknown, mutations: readonly Mutation[]): unknown {
  const copy = structuredClone(flow);
  for (const m of mutations) {
    const paths = pathsOf(copy);
    const path = paths[m.pick % Math.max(paths.length, 1)];
    if (!path) continue;
    let holder: unknown = copy;
    for (const key of path.slice(0, -1)) holder = (holder as Record<string | number, unknown>)[key];
    const last = path[path.length - 1]!;
    if (Array.isArray(holder) && m.action === 'delete') holder.splice(Number(last), 1);
    else if (m.action === 'delete') delete (holder as Record<string, unknown>)[String(last)];
    else (holder as Record<string | number, unknown>)[last] = structuredClone(m.value);
  }
  return copy;
}

describe('analyzeDocument never throws', () => {
  it('on arbitrary JSON values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        checkIssues(await analyze(value));
      }),
      { numRuns: 200 },
    );
  });

  it('on arbitrary values and text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.anything(), fc.string()), async (value) => {
        checkIssues(await analyze(value));
      }),
      { numRuns: 200 },
    );
  });

  it('on real flows with parts replaced or removed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...realFlows),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        async (flow, mutations) => {
          const mutated = mutate(flow, mutations);
          checkIssues(await analyze(mutated, { flowExists: (id) => id.length % 2 === 0 }));
          checkIssues(analyzeSync(mutated));
        },
      ),
      { numRuns: 500 },
    );
  });
});
