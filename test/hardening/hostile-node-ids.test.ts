import { describe, expect, it } from 'vitest';
import {
  decodeState,
  encodeState,
  MemoryExecutionStore,
  newExecutionState,
  parseFlow,
  runFlow,
  runStep,
} from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { HOSTILE_IDS } from '../contracts/hostile-ids.cases.js';

// Issue 7 item 10: a node with id `__proto__` lost its result ($NODE, $VISITS and attempts
// were plain objects), and the stored attempts["__proto__"] became "[object Object]1".
// The store side of this is in the shared store suite (hostile-ids.cases.ts).

function chainOf(ids: readonly string[]) {
  const nodes: Record<string, unknown>[] = [{ type: 'start', id: 'start', next: ids[0] }];
  ids.forEach((id, i) =>
    nodes.push({ type: 'assignment', id, output: `${id}#${i}`, next: ids[i + 1] ?? 'end' }),
  );
  nodes.push({
    type: 'end',
    id: 'end',
    output: Object.fromEntries(ids.map((id) => [id, `$NODE.${id}`])),
  });
  return { flow_id: 'hostile', nodes };
}

const expected = Object.fromEntries(HOSTILE_IDS.map((id, i) => [id, `${id}#${i}`]));

describe('node ids that name Object.prototype members', () => {
  it('run mode: every result is recorded and read back', async () => {
    expect(await runFlow(parseFlow(chainOf(HOSTILE_IDS)), {})).toEqual(expected);
  });

  it('distributed steps: $VISITS counts each id, the checkpoint survives the codec', async () => {
    const flow = parseFlow(chainOf(HOSTILE_IDS));
    let outcome = await runStep(flow, { input: {} });
    while (outcome.status === 'advanced') {
      const state = newExecutionState({ executionId: 'x', context: outcome.context });
      const decoded = decodeState(encodeState(state));
      outcome = await runStep(flow, { checkpoint: decoded.context });
    }
    if (outcome.status !== 'completed') throw new Error(`ended ${outcome.status}`);
    expect(outcome.result).toEqual(expected);
    const visits = outcome.context.$VISITS as Record<string, number>;
    for (const id of HOSTILE_IDS as readonly string[])
      expect(Object.hasOwn(visits, id) && visits[id]).toBe(1);
  });

  it('worker: attempts and timings per id are numbers, never "[object Object]1"', async () => {
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
    const worker = new FlowWorker({ store, flows, queue, pollBlockMs: 20 });
    const client = new PlaitaClient({ store, flows, queue });
    worker.start();
    try {
      const id = await client.start(chainOf(HOSTILE_IDS), {});
      const state = await client.waitFor(id, { timeoutMs: 10_000 });
      expect(state.status).toBe('completed');
      expect(state.result).toEqual(expected);
      for (const nodeId of HOSTILE_IDS as readonly string[]) {
        expect(Object.hasOwn(state.attempts, nodeId)).toBe(true);
        expect(state.attempts[nodeId]).toBe(1);
        expect(Object.hasOwn(state.timings, nodeId)).toBe(true);
      }
    } finally {
      await worker.stop();
      await queue.close();
    }
  });
});
