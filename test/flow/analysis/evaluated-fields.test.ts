import { describe, expect, it } from 'vitest';
import { analyze, flowOf, summary } from './analyze-support.js';

describe('which strings are evaluated', () => {
  it('not: a mock value, names, descriptions, targets, nop ends, handler messages', async () => {
    const issues = await analyze({
      nodes: [
        { type: 'start', id: 'start', next: 'm', desc: '$not an expression(' },
        {
          type: 'mock',
          id: 'm',
          name: '$5 name',
          value: { a: '$5 off', b: '$F.nope()' },
          next: 'n',
          errorHandler: { message: '$F.nope(' },
        },
        { type: 'end', id: 'n', resultType: 'nop', output: '$broken(' },
      ],
    });
    expect(issues).toEqual([]);
  });

  it('assignment: upstreamOutput values replace output', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'assignment',
          id: 'a',
          output: '$ignored(',
          upstreamOutput: [{ upstream: '$also ignored(', value: '$F.upper(' }],
          next: 'end',
        },
      ]),
    );
    expect(summary(issues)).toEqual([
      'error expression_parse_error nodes[1].upstreamOutput[0].value',
    ]);
  });

  it('parallel: branch conditions only when isConditional', async () => {
    const branch = (condition: unknown) => ({
      name: 'b',
      condition,
      input: '$INPUT',
      flow: {
        nodes: [
          { type: 'start', id: 's', next: 'e' },
          { type: 'end', id: 'e', output: '$INPUT' },
        ],
      },
    });
    const bad = { field: '$x(', operator: 'eq', value: 1 };
    const plain = await analyze(
      flowOf([{ type: 'parallel', id: 'p', branches: [branch(bad)], next: 'end' }]),
    );
    expect(plain).toEqual([]);
    const conditional = await analyze(
      flowOf([
        { type: 'parallel', id: 'p', isConditional: true, branches: [branch(bad)], next: 'end' },
      ]),
    );
    expect(summary(conditional)).toEqual([
      'error expression_parse_error nodes[1].branches[0].condition.field',
    ]);
  });

  it('suspending nodes: a `$` field that fails keeps its raw text, so only a warning', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'approval',
          id: 'ap',
          approval_title: '$bad(',
          approval_content: 'Approve {% $bad( %}',
          approvers: ['$F.lower($INPUT.who, 1)'],
          next: 'end',
        },
      ]),
    );
    expect(summary(issues)).toEqual([
      'warning expression_parse_error nodes[1].approval_title',
      'warning wrong_argument_count nodes[1].approvers[0]',
    ]);
  });

  it('kafka_queue bootstrap_servers and delay event_type are evaluated too', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'kafka_queue',
          id: 'k',
          bootstrap_servers: '$bad(',
          topic: 't',
          group_id: 'g',
          next: 'd',
        },
        { type: 'delay', id: 'd', delay_seconds: 1, event_type: '$bad(', next: 'end' },
      ]),
    );
    expect(summary(issues)).toEqual([
      'warning expression_parse_error nodes[1].bootstrap_servers',
      'warning expression_parse_error nodes[2].event_type',
    ]);
  });

  it('plugins: fields of a type we do not know are not checked', async () => {
    const { NodeRegistry } = await import('../../../src/nodes/node-registry.js');
    const { BUILTIN_NODE_TYPES } = await import('../../../src/nodes/default-registry.js');
    const registry = new NodeRegistry([...BUILTIN_NODE_TYPES, { type: 'custom', run: () => null }]);
    const issues = await analyze(
      flowOf([{ type: 'custom', id: 'c', output: '$x(', anything: 1, next: 'end' }]),
      { registry },
    );
    expect(issues).toEqual([]);
  });
});
