/**
 * The expression-level conformance cases (expr_*, fn_*, condition_*, if_*, switch_*) run through a
 * deliberately tiny walker (start, end, if, switch) to prove this module makes them pass. The real
 * engine runs every case end to end in test/conformance; this only pins the expression side.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { matchCondition, parseCondition } from '../../src/expression/condition.js';
import type { Condition } from '../../src/expression/condition.js';
import { evaluateValue } from '../../src/expression/evaluate.js';
import { defaultFunctions } from '../../src/expression/function-registry.js';
import type { EvaluationScope } from '../../src/expression/scope.js';

interface Node {
  type: string;
  id: string;
  next?: string;
  else_next?: string;
  output?: unknown;
  resultType?: string;
  error?: { code?: number; message?: string };
  condition?: unknown;
  branches?: {
    name?: string;
    next?: string;
    priority?: number;
    condition?: unknown;
    isDefault?: boolean;
  }[];
}
interface Case {
  name: string;
  flow: { flow_id?: string; globalContext?: Record<string, unknown>; nodes: Node[] };
  input: unknown;
  expect: { result?: unknown; error?: { messageIncludes: string | null } };
}

const dir = new URL('../conformance/cases/', import.meta.url);
const WALKABLE = new Set(['start', 'end', 'if', 'switch']);
const cases = readdirSync(dir)
  .filter((file) => /^(expr|fn|condition|if|switch)_/.test(file))
  .map((file) => JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Case)
  .filter((c) => c.flow.nodes.every((node) => WALKABLE.has(node.type)));

function condition(raw: unknown): Condition | null {
  return parseCondition(raw, {
    warn: () => undefined,
    issue: (issue) => {
      throw new Error(`condition issue at ${issue.path}: ${issue.message}`);
    },
  });
}

async function run(c: Case): Promise<unknown> {
  const { flow } = c;
  const scope: EvaluationScope = {
    context: {
      $INPUT: structuredClone(c.input),
      $NODE: {},
      $GLOBAL: { ...flow.globalContext, flow_id: flow.flow_id ?? null },
      $PARENT: {},
      $ENV: {},
      $FLOW_ID: flow.flow_id ?? null,
      EXPRESS_PREFIX: '$',
    },
    functions: defaultFunctions,
  };
  const byId = new Map(flow.nodes.map((node) => [node.id, node]));
  let node = flow.nodes.find((n) => n.type === 'start');
  for (let steps = 0; node !== undefined && steps < 100; steps++) {
    let target: string | undefined;
    switch (node.type) {
      case 'end':
        if (node.resultType === 'error') throw new Error(node.error?.message ?? 'error');
        return evaluateValue(node.output ?? null, scope);
      case 'start':
        target = node.next;
        break;
      case 'if': {
        const parsed = condition(node.condition);
        target =
          parsed !== null && (await matchCondition(parsed, scope))
            ? (node.next ?? 'true')
            : (node.else_next ?? 'false');
        break;
      }
      case 'switch': {
        const branches = [...(node.branches ?? [])].sort(
          (a, b) => (b.priority ?? 0) - (a.priority ?? 0),
        );
        for (const branch of branches) {
          const parsed = condition(branch.condition);
          if (parsed !== null && (await matchCondition(parsed, scope))) {
            target = branch.next ?? branch.name;
            break;
          }
        }
        const fallback = node.branches?.find((branch) => branch.isDefault === true);
        target ??= fallback?.next ?? fallback?.name;
        if (target === undefined) throw new Error(`${node.id} matched no branch`);
        break;
      }
    }
    node = target === undefined ? undefined : byId.get(target);
  }
  throw new Error('the walk did not reach an end node');
}

describe('expression-level conformance cases', () => {
  it('finds the cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  for (const c of cases) {
    it(c.name, async () => {
      if (c.expect.error !== undefined) {
        const pattern = c.expect.error.messageIncludes;
        await expect(run(c)).rejects.toThrow(pattern ?? '');
      } else {
        expect(await run(c)).toEqual(c.expect.result);
      }
    });
  }
});
