import { describe, expect, it } from 'vitest';
import { analyze } from './analyze-support.js';
import { conformanceCases, exampleDocuments } from './flow-corpus.js';

/**
 * Conformance cases whose flow the analysis calls broken, and why: each expects the run (or
 * the load) to fail exactly the way the error predicts. Every other case, and every example,
 * must produce no error (warnings are fine: several cases pin deliberately odd behaviour).
 */
const EXPECTED_ERRORS: Readonly<Record<string, { codes: string[]; why: string }>> = {
  flow_next_points_to_missing_node: {
    codes: ['unknown_target'],
    why: "start's next is 'ghost', which names no node: the run fails with node_not_found",
  },
  flow_missing_start_node: {
    codes: ['missing_start'],
    why: 'no node of type start: the run fails with node_not_found',
  },
  flow_dead_end_without_next: {
    codes: ['missing_next'],
    why: "assignment 'a' has no next and is not an end: the run fails with flow_error",
  },
  flow_unknown_node_type: {
    codes: ['definition_error'],
    why: 'type "frobnicate" is not registered: the flow does not load',
  },
};

describe('real flows produce no false errors', () => {
  it('found the corpus', () => {
    expect(conformanceCases.length).toBeGreaterThanOrEqual(68);
    expect(exampleDocuments.length).toBeGreaterThanOrEqual(3);
  });

  for (const { name, text } of exampleDocuments) {
    it(`example ${name}`, async () => {
      const errors = (await analyze(text)).filter((i) => i.severity === 'error');
      expect(errors).toEqual([]);
    });
  }

  for (const c of conformanceCases) {
    const expected = EXPECTED_ERRORS[c.name];
    it(`conformance ${c.name}${expected ? ` (expected: ${expected.codes.join(', ')})` : ''}`, async () => {
      const errors = (await analyze(c.flow)).filter((i) => i.severity === 'error');
      expect(errors.map((e) => e.code)).toEqual(expected?.codes ?? []);
      // An error is only allowed where the case itself expects the run to fail.
      if (expected) expect('error' in c.expect).toBe(true);
    });
  }
});
