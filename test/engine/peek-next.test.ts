import { describe, expect, it } from 'vitest';
import { peekNextNode } from '../../src/engine/peek-next.js';
import { parseFlow } from '../../src/index.js';

/**
 * The worker's look-ahead (which node the next step runs, counted by the crash-loop guard)
 * follows the same rule as the engine's walk (successor.ts): they once disagreed on an empty
 * branch name, which the engine treats as "no branch".
 */
const flow = parseFlow({
  flow_id: 'peek',
  nodes: [
    { type: 'start', id: 'start', next: 'sw' },
    {
      type: 'switch',
      id: 'sw',
      branches: [
        { condition: { field: '$INPUT.x', operator: 'eq', value: 1 }, next: 'one' },
        { isDefault: true, next: 'other' },
      ],
    },
    { type: 'end', id: 'one' },
    { type: 'end', id: 'other' },
  ],
});

describe('peekNextNode', () => {
  it('before the first step: the start node’s successor', () => {
    expect(peekNextNode(flow, null)).toBe('sw');
  });

  it('after a branching node: its branch when it names a target, else none', () => {
    expect(peekNextNode(flow, { $LAST_NODE: 'sw', $BRANCH: 'one' })).toBe('one');
    expect(peekNextNode(flow, { $LAST_NODE: 'sw', $BRANCH: 'nowhere' })).toBeNull();
    expect(peekNextNode(flow, { $LAST_NODE: 'sw', $BRANCH: '' })).toBeNull();
  });

  it('after an end node or an unknown node: none', () => {
    expect(peekNextNode(flow, { $LAST_NODE: 'one' })).toBeNull();
    expect(peekNextNode(flow, { $LAST_NODE: 'gone' })).toBeNull();
  });
});
