import { describe, expect, it } from 'vitest';
import {
  type ApprovalOutcome,
  type ApprovalStrategy,
  decideApproval,
  type Vote,
} from '../../src/control/approvals/approval-strategy.js';

const pending: ApprovalOutcome = { decided: false };
const approve: ApprovalOutcome = { decided: true, finalDecision: 'approve' };
const reject: ApprovalOutcome = { decided: true, finalDecision: 'reject' };

const A = 'a@x';
const B = 'b@x';
const C = 'c@x';
const D = 'd@x';
const yes = (approver: string): Vote => ({ approver, decision: 'approve' });
const no = (approver: string): Vote => ({ approver, decision: 'reject' });

/** docs/http-api.md §4 strategies, one row per line: strategy, approvers, votes (oldest first) → outcome. */
const TABLE: Array<[string, ApprovalStrategy, string[], Vote[], ApprovalOutcome]> = [
  ['any: nothing before the first vote', 'any', [A, B], [], pending],
  ['any: the first vote approves', 'any', [A, B], [yes(B)], approve],
  ['any: the first vote rejects', 'any', [A, B], [no(A)], reject],
  ['any: the first vote wins over later ones', 'any', [A, B], [no(A), yes(B)], reject],
  ['any: a vote by someone off the list is ignored', 'any', [A], [yes('z@x')], pending],
  ['all: one approval of three waits', 'all', [A, B, C], [yes(A)], pending],
  ['all: two approvals of three wait', 'all', [A, B, C], [yes(A), yes(C)], pending],
  ['all: every approver approves', 'all', [A, B, C], [yes(A), yes(B), yes(C)], approve],
  ['all: one rejection rejects at once', 'all', [A, B, C], [no(B)], reject],
  ['all: two approve, one rejects', 'all', [A, B, C], [yes(A), yes(B), no(C)], reject],
  ['all: a repeated approval counts once', 'all', [A, B], [yes(A), yes(A)], pending],
  ['all: a single approver decides alone', 'all', [A], [yes(A)], approve],
  ['majority of 3: one approval waits', 'majority', [A, B, C], [yes(A)], pending],
  ['majority of 3: two approvals approve', 'majority', [A, B, C], [yes(A), yes(C)], approve],
  ['majority of 3: two rejections reject', 'majority', [A, B, C], [no(A), no(B)], reject],
  ['majority of 3: split one-one waits', 'majority', [A, B, C], [yes(A), no(B)], pending],
  [
    'majority of 4: two approvals are not more than half',
    'majority',
    [A, B, C, D],
    [yes(A), yes(B)],
    pending,
  ],
  [
    'majority of 4: three approvals approve',
    'majority',
    [A, B, C, D],
    [yes(A), yes(B), yes(C)],
    approve,
  ],
  [
    'majority of 4: two rejections make approval impossible',
    'majority',
    [A, B, C, D],
    [no(A), no(B)],
    reject,
  ],
  ['majority of 2: a tie rejects', 'majority', [A, B], [yes(A), no(B)], reject],
  ['majority of 1: the one vote decides', 'majority', [A], [no(A)], reject],
  [
    'majority: duplicate approvers on the list count once',
    'majority',
    [A, A, B],
    [yes(A)],
    pending,
  ],
];

describe('decideApproval', () => {
  for (const [name, strategy, approvers, votes, expected] of TABLE)
    it(name, () => {
      expect(decideApproval(strategy, approvers, votes)).toEqual(expected);
    });
});
