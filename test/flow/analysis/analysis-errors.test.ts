import { describe, expect, it } from 'vitest';
import { analyze, flowOf, summary, withCode } from './analyze-support.js';

describe('errors: what fails at run time', () => {
  it('definition_error: a document that does not load, with the innermost node id', async () => {
    const issues = await analyze({
      nodes: [
        { type: 'start', id: 's', next: 'c' },
        {
          type: 'child',
          id: 'c',
          next: 'e',
          childFlow: {
            nodes: [
              { type: 'start', id: 'cs' },
              { type: 'frobnicate', id: 'inner' },
            ],
          },
        },
        { type: 'end', id: 'e' },
      ],
    });
    expect(summary(issues)).toEqual(['error definition_error nodes[1].childFlow.nodes[1].type']);
    expect(issues[0]?.nodeId).toBe('inner');
    expect(summary(await analyze('{ not json'))).toEqual(['error definition_error ']);
    expect(summary(await analyze(42))).toEqual(['error definition_error ']);
  });

  it('expression_parse_error: whole-string expressions, with the column, in nested values', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'assignment',
          id: 'a',
          output: { price: ['ok', '$5 off'], call: '$F.upper($INPUT.x' },
          next: 'end',
        },
      ]),
    );
    expect(summary(issues)).toEqual([
      'error expression_parse_error nodes[1].output.price[1]',
      'error expression_parse_error nodes[1].output.call',
    ]);
    expect(issues[0]?.column).toBe(4); // `$5` is a root; the text after it cannot follow
    expect(issues[1]?.column).toBe(18);
  });

  it('expression_parse_error: inside child flows, with full paths', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'map',
          id: 'm',
          collection: '$INPUT.items',
          next: 'end',
          childFlow: {
            nodes: [
              { type: 'start', id: 's', next: 'x' },
              { type: 'assignment', id: 'x', output: '$INPUT.item[', next: 'e' },
              { type: 'end', id: 'e', output: '$NODE.x' },
            ],
          },
        },
      ]),
    );
    expect(summary(issues)).toEqual([
      'error expression_parse_error nodes[1].childFlow.nodes[1].output',
    ]);
    expect(issues[0]?.nodeId).toBe('x');
  });

  it('expression_parse_error: condition sides are evaluated too', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'if',
          id: 'i',
          condition: {
            relation: 'and',
            conditions: [{ field: '$INPUT.a', operator: 'eq', value: '$oops(' }],
          },
          next: 'end',
          else_next: 'end',
        },
      ]),
    );
    expect(summary(issues)).toEqual([
      'error expression_parse_error nodes[1].condition.conditions[0].value',
    ]);
  });

  it('wrong_argument_count: a built-in called with the wrong number of arguments', async () => {
    const issues = await analyze(
      flowOf([{ type: 'assignment', id: 'a', output: '$F.upper($INPUT.a, 2)', next: 'end' }]),
    );
    expect(summary(issues)).toEqual(['error wrong_argument_count nodes[1].output']);
    expect(issues[0]?.message).toContain('$F.upper takes 1 argument, got 2');
  });

  it('unknown_target: next, switch branch, case id, with the closest id', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'switch',
          id: 'sw',
          branches: [
            { condition: { field: 1, operator: 'eq', value: 1 }, next: 'cs' },
            { name: 'gone', isDefault: true },
          ],
        },
        {
          type: 'case',
          id: 'cs',
          target: '$INPUT.k',
          cases: [{ id: 'a1', value: 1 }],
          default: 'ed',
        },
        { type: 'assignment', id: 'a', output: 1, next: 'ende' },
      ]),
    );
    expect(summary(issues)).toEqual([
      'error unknown_target nodes[1].branches[1].name',
      'error unknown_target nodes[2].cases[0].id',
      'error unknown_target nodes[2].default',
      'warning unreachable_node nodes[3]',
      'error unknown_target nodes[3].next',
      'warning unreachable_node nodes[4]',
    ]);
    expect(withCode(issues, 'unknown_target').map((i) => i.suggestion)).toEqual([
      undefined,
      'a',
      'end',
      'end',
    ]);
  });

  it('unknown_target: only a warning where no run can choose the target', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'switch',
          id: 'sw',
          branches: [
            { name: 'never', next: 'ghost' },
            { condition: { field: 1, operator: 'eq', value: 1 }, next: 'end' },
          ],
        },
        { type: 'if', id: 'i', next: 'ghost2', else_next: 'end' },
      ]),
    );
    expect(summary(issues)).toEqual([
      'warning unknown_target nodes[1].branches[0].next',
      'warning unreachable_node nodes[2]',
      'warning unknown_target nodes[2].next',
    ]);
  });

  it('missing_next: a dead end fails; the continue escape hatch makes it a warning', async () => {
    const dead = await analyze(flowOf([{ type: 'assignment', id: 'a', output: 1 }]));
    expect(summary(dead)).toEqual([
      'error missing_next nodes[1]',
      'warning unreachable_node nodes[2]',
    ]);
    const escape = await analyze(
      flowOf([{ type: 'assignment', id: 'a', output: 1, errorHandler: { strategy: 'continue' } }]),
    );
    expect(withCode(escape, 'missing_next')[0]?.severity).toBe('warning');
  });

  it('missing_start: a flow, or a child flow, without a start node', async () => {
    expect(summary(await analyze({ nodes: [{ type: 'end', id: 'e' }] }))).toEqual([
      'error missing_start nodes',
    ]);
    const child = await analyze(
      flowOf([{ type: 'loop', id: 'l', collection: [1], childFlow: { nodes: [] }, next: 'end' }]),
    );
    expect(summary(child)).toEqual(['error missing_start nodes[1].childFlow.nodes']);
    expect(child[0]?.message).toContain('no nodes');
  });

  it('no_branches: a switch without branches; a case without cases only warns', async () => {
    const issues = await analyze(
      flowOf([
        { type: 'switch', id: 'sw', branches: [] },
        { type: 'case', id: 'c', target: 1, default: 'end' },
      ]),
    );
    expect(summary(issues)).toEqual([
      'error no_branches nodes[1]',
      'warning unreachable_node nodes[2]',
      'warning no_branches nodes[2]',
      'warning unreachable_node nodes[3]',
    ]);
    const handled = await analyze(
      flowOf([{ type: 'switch', id: 'sw', errorHandler: { strategy: 'continue-with' } }]),
    );
    expect(withCode(handled, 'no_branches')[0]?.severity).toBe('warning');
  });

  it('flow_not_found: a reference to a flow the host does not have, asked once per flow', async () => {
    const doc = flowOf([
      { type: 'reference', id: 'r1', flow_id: 'billing', flow_version: 2, next: 'r2' },
      { type: 'reference', id: 'r2', flowID: 'billing', flowVersion: '2', next: 'r3' },
      { type: 'reference', id: 'r3', flow_id: 'shipping', next: 'end' },
    ]);
    const asked: Array<[string, string | null]> = [];
    const issues = await analyze(doc, {
      flowExists: (id, version) => {
        asked.push([id, version]);
        return Promise.resolve(id === 'shipping');
      },
    });
    expect(summary(issues)).toEqual([
      'error flow_not_found nodes[1].flow_id',
      'error flow_not_found nodes[2].flowID',
    ]);
    expect(asked).toEqual([
      ['billing', '2'],
      ['shipping', null],
    ]);
    expect(await analyze(doc)).toEqual([]);
  });

  it('flow_check_failed: a flowExists that throws is reported, not thrown', async () => {
    const issues = await analyze(
      flowOf([{ type: 'reference', id: 'r', flow_id: 'x', next: 'end' }]),
      {
        flowExists: () => {
          throw new Error('store down');
        },
      },
    );
    expect(summary(issues)).toEqual(['warning flow_check_failed nodes[1].flow_id']);
    expect(issues[0]?.message).toContain('store down');
  });
});
