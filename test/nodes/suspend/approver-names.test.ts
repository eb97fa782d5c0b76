import { describe, expect, it } from 'vitest';
import { FlowDefinitionError } from '../../../src/errors/flow-definition-errors.js';
import { analyzeSync } from '../../flow/analysis/analyze-support.js';
import { parseFlow, runFlow } from '../../../src/index.js';

/**
 * An approver name the approvals API refuses (a control character, a line separator, over 320
 * characters) would be listed and never decided: the approval node refuses it instead, when the
 * flow loads (a literal) and when it runs (one an expression gives).
 */
function approvalFlow(approvers: unknown[]) {
  return {
    flow_id: 'names',
    nodes: [
      { type: 'start', id: 's', next: 'ask' },
      {
        type: 'approval',
        id: 'ask',
        approval_title: 't',
        approval_content: 'c',
        approvers,
        next: 'e',
      },
      { type: 'end', id: 'e', output: '$NODE.ask.service_config.approver_config.approvers' },
    ],
  };
}

const UNDECIDABLE: Array<[string, string]> = [
  ['NUL', 'bob\u0000'],
  ['BEL', 'bo\u0007b'],
  ['a newline', 'bob\nx'],
  ['US', '\u001fbob'],
  ['DEL', 'bob\u007f'],
  ['NEL (C1)', 'bob\u0085'],
  ['the last C1', 'bob\u009f'],
  ['a line separator', 'bob\u2028'],
  ['a paragraph separator', 'bob\u2029'],
  ['321 characters', 'b'.repeat(321)],
];

function definitionError(approvers: unknown[]): FlowDefinitionError {
  try {
    parseFlow(approvalFlow(approvers));
  } catch (error) {
    if (error instanceof FlowDefinitionError) return error;
    throw error;
  }
  throw new Error('the flow loaded');
}

describe('approver names an approval node refuses', () => {
  it.each(UNDECIDABLE)(
    'a literal with %s: a definition error naming the node and its path',
    (_, name) => {
      const error = definitionError(['alice@example.com', name]);
      expect(error.code).toBe('flow_definition_invalid');
      expect(error.issues).toEqual([
        {
          path: 'nodes[1].approvers[1]',
          message: expect.stringContaining('approval node "ask"') as unknown,
          code: 'approver_invalid',
        },
      ]);
    },
  );

  it('says which character and where, and finds one in a literal list the node flattens', () => {
    const error = definitionError([['ann', 'eve\u0085x']]);
    expect(error.issues[0]).toMatchObject({ path: 'nodes[1].approvers[0][1]' });
    expect(error.message).toContain('U+0085 at index 3');
  });

  it('validation reports it as approver_invalid on the node', () => {
    const issues = analyzeSync(approvalFlow(['bo\u0007b']));
    expect(issues).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'approver_invalid',
        path: 'nodes[1].approvers[0]',
        nodeId: 'ask',
      }),
    ]);
  });

  it('accepts names one can decide as: 320 characters, any script, a reference, nobody', async () => {
    const names = ['a'.repeat(320), 'Zoë Müller', '李雷', 'ops+fin@example.com', '$INPUT.who', ''];
    const flow = parseFlow(approvalFlow(names));
    expect(await runFlow(flow, { who: 'dan' })).toEqual([...names.slice(0, 4), 'dan', '']);
  });

  it.each(UNDECIDABLE)(
    'one an expression gives with %s: the node fails, named, with approver_invalid',
    async (_, name) => {
      const flow = parseFlow(approvalFlow(['$INPUT.who']));
      const failure = await runFlow(flow, { who: ['alice@example.com', name] }).then(
        () => null,
        (error: unknown) => error as { type: string; node: string; cause: { code?: string } },
      );
      expect(failure).toMatchObject({
        type: 'node_error',
        node: 'ask',
        cause: { code: 'approver_invalid' },
      });
      expect(String((failure as unknown as Error).message)).toContain(
        'approval node "ask": its resolved approvers[1]',
      );
    },
  );
});
