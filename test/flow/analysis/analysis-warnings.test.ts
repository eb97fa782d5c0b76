import { describe, expect, it } from 'vitest';
import { defaultFunctions } from '../../../src/expression/function-registry.js';
import { analyze, flowOf, summary } from './analyze-support.js';

describe('warnings: probable mistakes', () => {
  it('unknown_function: suggestions; a function of the caller’s registry is known', async () => {
    const doc = flowOf([
      { type: 'assignment', id: 'a', output: '$F.slugify($INPUT.t)', next: 'end' },
    ]);
    expect(summary(await analyze(doc))).toEqual(['warning unknown_function nodes[1].output']);
    const functions = defaultFunctions.copy().register('slugify', (s) => s);
    expect(await analyze(doc, { functions })).toEqual([]);
  });

  it('unknown_root: with the root most likely meant; loop roots only in loop conditions', async () => {
    const issues = await analyze(
      flowOf([
        { type: 'assignment', id: 'a', output: '$input.name', next: 'l' },
        {
          type: 'loop',
          id: 'l',
          collection: '$INPUT.xs',
          condition: { field: '$LOOP-RESULT', operator: 'ne', value: '$LOOP-ITEM' },
          childFlow: {
            nodes: [
              { type: 'start', id: 's', next: 'e' },
              { type: 'end', id: 'e', output: '$LOOP-ITEM' },
            ],
          },
          next: 'end',
        },
      ]),
    );
    expect(summary(issues)).toEqual([
      'warning unknown_root nodes[1].output',
      'warning unknown_root nodes[2].childFlow.nodes[1].output',
    ]);
    expect(issues[0]?.suggestion).toBe('$INPUT');
  });

  it('unknown_key: top level, node and handler keys, with the key most likely meant', async () => {
    const issues = await analyze(
      flowOf(
        [
          {
            type: 'if',
            id: 'i',
            condition: { field: 1, operator: 'eq', value: 1 },
            next: 'end',
            else_next: 'end',
            elseNext: 'end',
            errorHandler: { strategy: 'continue', retry_times: 2 },
          },
        ],
        { exposeENV: [] },
      ),
    );
    expect(summary(issues)).toEqual([
      'warning unknown_key exposeENV',
      'warning unknown_key nodes[1].elseNext',
      'warning unknown_key nodes[1].errorHandler.retry_times',
    ]);
    expect(issues.map((i) => i.suggestion)).toEqual(['exposeEnv', 'else_next', 'retryTimes']);
  });

  it('unreachable_node: per flow; a child flow’s nodes count from its own start', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'child',
          id: 'c',
          next: 'end',
          childFlow: {
            nodes: [
              { type: 'start', id: 's', next: 'e' },
              { type: 'end', id: 'e', output: 1 },
              { type: 'end', id: 'spare', output: 2 },
            ],
          },
        },
        { type: 'mock', id: 'lonely', value: 1, next: 'end' },
      ]),
    );
    expect(summary(issues)).toEqual([
      'warning unreachable_node nodes[1].childFlow.nodes[2]',
      'warning unreachable_node nodes[2]',
    ]);
  });

  it('duplicate_node_id: the earlier definition never runs', async () => {
    const issues = await analyze(
      flowOf([
        { type: 'assignment', id: 'a', output: '$bad(', next: 'end' },
        { type: 'assignment', id: 'a', output: 2, next: 'end' },
      ]),
    );
    expect(summary(issues)).toEqual(['warning duplicate_node_id nodes[1]']);
  });

  it('unknown_node_reference: $NODE.<id> of no node; a parent’s node is left to fallback', async () => {
    const issues = await analyze(
      flowOf([
        { type: 'assignment', id: 'fetch', output: 1, next: 'c' },
        {
          type: 'child',
          id: 'c',
          next: 'end',
          input: '$NODE.fetch',
          childFlow: {
            nodes: [
              { type: 'start', id: 's', next: 'e' },
              { type: 'end', id: 'e', output: ['$NODE.fetch', '$NODE.fecth'] },
            ],
          },
        },
      ]),
    );
    expect(summary(issues)).toEqual([
      'warning unknown_node_reference nodes[2].childFlow.nodes[1].output[1]',
    ]);
    expect(issues[0]?.suggestion).toBe('fetch');
  });

  it('node_not_upstream: a node that cannot have run yet; loops and self reads are fine', async () => {
    const issues = await analyze(
      flowOf([
        { type: 'assignment', id: 'early', output: '$NODE.late', next: 'late' },
        {
          type: 'if',
          id: 'late',
          condition: { field: '$NODE.late', operator: 'eq', value: null },
          next: 'again',
          else_next: 'end',
        },
        {
          type: 'assignment',
          id: 'again',
          output: '{% $NODE.early %} {% $NODE.again %}',
          next: 'late',
        },
      ]),
    );
    expect(summary(issues)).toEqual(['warning node_not_upstream nodes[1].output']);
    const looped = await analyze(
      flowOf([
        { type: 'assignment', id: 'a', output: '$NODE.b', next: 'b' },
        { type: 'assignment', id: 'b', output: 1, next: 'sw' },
        {
          type: 'switch',
          id: 'sw',
          branches: [
            { condition: { field: '$NODE.b', operator: 'eq', value: 1 }, next: 'a' },
            { isDefault: true, next: 'end' },
          ],
        },
      ]),
    );
    expect(looped).toEqual([]); // `a` runs again after `b` on the loop back
  });

  it('default_target_missing: an `if` without else_next goes to the literal id "false"', async () => {
    const issues = await analyze(
      flowOf([
        { type: 'if', id: 'i', condition: { field: 1, operator: 'eq', value: 2 }, next: 'end' },
      ]),
    );
    expect(summary(issues)).toEqual(['warning default_target_missing nodes[1]']);
    expect(issues[0]?.message).toContain("'false'");
  });

  it('template_slot_not_parsed: a {% that does not open a slot, with its column', async () => {
    const issues = await analyze(
      flowOf([{ type: 'assignment', id: 'a', output: 'Hi {% $INPUT.name[ %}!', next: 'end' }]),
    );
    expect(summary(issues)).toEqual(['warning template_slot_not_parsed nodes[1].output']);
    expect(issues[0]?.column).toBe(4);
  });

  it('foreign_template_syntax: a literal that looks like another template language', async () => {
    const issues = await analyze(
      flowOf([{ type: 'assignment', id: 'a', output: 'Hi {{ name }}', next: 'end' }]),
    );
    expect(summary(issues)).toEqual(['warning foreign_template_syntax nodes[1].output']);
  });

  it('env_not_exposed and secret_env_exposed', async () => {
    const issues = await analyze(
      flowOf(
        [{ type: 'assignment', id: 'a', output: ['$ENV.REGION', '$ENV.API_TOKEN'], next: 'end' }],
        {
          exposeEnv: ['API_TOKEN', 'REGON'],
        },
      ),
    );
    expect(summary(issues)).toEqual([
      'warning secret_env_exposed exposeEnv[0]',
      'warning env_not_exposed nodes[1].output[0]',
    ]);
    expect(issues[1]?.suggestion).toBe('REGON');
  });

  it('secret_env_exposed: a name with a sensitive prefix is left out of $ENV, and says so', async () => {
    const issues = await analyze(
      flowOf([{ type: 'assignment', id: 'a', output: '$ENV.AWS_SECRET_ACCESS_KEY', next: 'end' }], {
        exposeEnv: ['AWS_SECRET_ACCESS_KEY', 'APP_REGION'],
      }),
    );
    expect(summary(issues)).toEqual(['warning secret_env_exposed exposeEnv[0]']);
    expect(issues[0]?.message).toMatch(
      /\$ENV leaves it out, so \$ENV\.AWS_SECRET_ACCESS_KEY reads null, unless the operator allows the name \(PLAITA_EXPOSE_SECRET_ENV\)/,
    );
  });

  it('node_warning: a negative retryTimes means the node never runs', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'assignment',
          id: 'a',
          output: 1,
          errorHandler: { strategy: 'continue-with', defaultValue: 0, retryTimes: -1 },
          next: 'b',
        },
        { type: 'assignment', id: 'b', output: 1, errorHandler: { retryTimes: 0 }, next: 'end' },
      ]),
    );
    expect(summary(issues)).toEqual(['warning node_warning nodes[1].errorHandler.retryTimes']);
    expect(issues[0]?.message).toBe(
      "retryTimes is negative (-1): node 'a' is never run and its result is its defaultValue",
    );
  });

  it('condition_ignored: a condition the parser drops can never match', async () => {
    const issues = await analyze(
      flowOf([
        {
          type: 'switch',
          id: 'sw',
          branches: [
            { condition: { field: '$INPUT.a', operator: 'eq' }, next: 'end' },
            { isDefault: true, next: 'end' },
          ],
        },
      ]),
    );
    expect(summary(issues)).toEqual(['warning condition_ignored nodes[1].branches[0].condition']);
  });

  it('node_warning: what a node type’s load and validate say', async () => {
    const doc = flowOf([
      { type: 'http', id: 'h', url: 'https://example.com', body: { a: 1 }, next: 'e2' },
      { type: 'end', id: 'e2', resultType: 'partial', output: 1 },
    ]);
    expect(summary(await analyze(doc))).toEqual([
      'warning node_warning nodes[1]',
      'warning node_warning nodes[2]',
      'warning unreachable_node nodes[3]',
    ]);
  });
});
