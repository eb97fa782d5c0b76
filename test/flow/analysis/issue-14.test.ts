import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeFlow, analyzeFlowSync } from '../../../src/flow/analysis/analyze-flow.js';
import { ISSUE_CODES } from '../../../src/flow/analysis/flow-issue.js';
import { parseFlow } from '../../../src/index.js';
import { analyze, analyzeSync, flowOf, summary } from './analyze-support.js';

/** The document of issue #14: it loads, and today `plaita validate` calls it valid. */
const ISSUE_14 = {
  flow_id: 'b2',
  nodes: [
    { type: 'start', id: 'start', next: 'a' },
    { type: 'assignment', id: 'a', output: '$INPUT.name[', next: 'sw' },
    {
      type: 'switch',
      id: 'sw',
      cases: [{ condition: { field: '$NODE.a', operator: 'eq', value: 1 }, next: 'nowhere' }],
      default: 'end',
    },
    { type: 'assignment', id: 'orphan', output: 'x', next: 'end' },
    { type: 'end', id: 'end', output: '$F.uper($NODE.a)' },
  ],
};

describe('analyzeFlow: the document of issue #14', () => {
  it('finds exactly what will fail or is ignored', async () => {
    const issues = await analyze(ISSUE_14);
    expect(summary(issues)).toEqual([
      'error expression_parse_error nodes[1].output',
      'warning unknown_key nodes[2].cases',
      // `default` is ignored by a switch too (the loader warns about it as well).
      'warning unknown_key nodes[2].default',
      'warning unknown_target nodes[2].cases[0].next',
      'error no_branches nodes[2]',
      // Only `orphan`: `end` is named by the ignored `default`, one root cause, one finding.
      'warning unreachable_node nodes[3]',
      'warning unknown_function nodes[4].output',
    ]);
    const [parse, cases, , nowhere, , orphan, uper] = issues;
    expect(parse).toMatchObject({ nodeId: 'a', column: 13 });
    expect(cases).toMatchObject({ nodeId: 'sw', suggestion: 'branches' });
    expect(nowhere?.message).toContain("'nowhere'");
    expect(orphan).toMatchObject({ nodeId: 'orphan' });
    expect(uper).toMatchObject({ nodeId: 'end', suggestion: 'upper' });
    expect(uper?.message).toContain('$F.upper');
  });

  it('reads YAML text too', async () => {
    const yaml = [
      'flow_id: yaml_flow',
      'nodes:',
      '  - {type: start, id: start, next: a}',
      '  - {type: assignment, id: a, output: "$INPUT.x[", next: done}',
      '  - {type: end, id: end}',
    ].join('\n');
    expect(summary(await analyze(yaml))).toEqual([
      'error unknown_target nodes[1].next',
      'error expression_parse_error nodes[1].output',
      'warning unreachable_node nodes[2]',
    ]);
  });

  it('gives the same findings for the loaded flow, synchronously, and for its JSON text', async () => {
    const flow = parseFlow(ISSUE_14);
    const expected = summary(await analyze(ISSUE_14));
    expect(summary(analyzeFlowSync(flow))).toEqual(expected);
    expect(summary(await analyzeFlow(flow))).toEqual(expected);
    expect(summary(analyzeSync(JSON.stringify(ISSUE_14)))).toEqual(expected);
  });

  it('reports an `if` whose else_next names no node (it loads today)', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'if',
          id: 'check',
          condition: { field: '$INPUT.n', operator: 'gt', value: 1 },
          next: 'end',
          else_next: 'missing_node',
        },
      ]),
    );
    expect(summary(issues)).toEqual(['error unknown_target nodes[1].else_next']);
    expect(issues[0]?.nodeId).toBe('check');
  });

  it('uses only the codes docs/validate.md lists', async () => {
    const documented = readFileSync(new URL('../../../docs/validate.md', import.meta.url), 'utf8');
    for (const code of ISSUE_CODES) expect(documented, code).toContain(`\`${code}\``);
    const issues = await analyze(ISSUE_14);
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(ISSUE_CODES).toContain(issue.code);
  });
});
