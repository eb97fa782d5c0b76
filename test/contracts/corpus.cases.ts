import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CORPUS_MAX_STATE_BYTES, STATE_CORPUS, corpusOutcome } from './state-corpus.js';
import { type ExecutionStoreFactory, useHarness } from './store-harness.js';

export function corpusCases(factory: ExecutionStoreFactory): void {
  describe('no backend divergence', () => {
    const h = useHarness(factory);

    it('the same corpus of states gives the same outcome on every store', async () => {
      const store = await h.open({ maxStateBytes: CORPUS_MAX_STATE_BYTES });
      const outcomes: Record<string, string> = {};
      for (const testCase of STATE_CORPUS)
        outcomes[testCase.name] = await corpusOutcome(store, testCase, h.tenant, randomUUID());
      expect(outcomes).toEqual(Object.fromEntries(STATE_CORPUS.map((c) => [c.name, c.expected])));
    });
  });
}
