import { describe, expect, it } from 'vitest';
import { FlowDefinitionError, InputRejectedError, parseFlow } from '../../src/index.js';
import { checkDepth, parseJsonWithDepth } from '../../src/util/value-depth.js';

// Issue 7 item 9: a document, an input or event data nested thousands of levels deep was an
// "internal error: RangeError: Maximum call stack size exceeded". It is now refused with a
// typed error naming where it went too deep, before anything runs or is stored.

function nestedJson(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

function nestedObject(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

function definitionError(work: () => unknown): FlowDefinitionError {
  try {
    work();
  } catch (error) {
    if (error instanceof FlowDefinitionError) return error;
    throw error;
  }
  throw new Error('expected a FlowDefinitionError');
}

const flowAround = (deep: string) =>
  `{"nodes":[{"type":"start","id":"s","next":"e"},{"type":"end","id":"e","output":${deep}}]}`;

describe('depth limits', () => {
  it('a JSON flow document 5,000 levels deep is a definition error, not a stack overflow', () => {
    const error = definitionError(() => parseFlow(flowAround(nestedJson(5_000))));
    expect(error.issues[0]!.message).toMatch(/nested more than 256 levels/);
  });

  it('a flow-style YAML document 5,000 levels deep is refused the same way', () => {
    const yaml = 'nodes:\n  - ' + '['.repeat(5_000) + ']'.repeat(5_000) + '\n';
    expect(definitionError(() => parseFlow(yaml)).issues[0]!.message).toMatch(/nested more than/);
  });

  it('an object handed over directly is checked too, naming the path', () => {
    const doc = {
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e', output: nestedObject(300) },
      ],
    };
    const error = definitionError(() => parseFlow(doc));
    expect(error.issues[0]!.path).toMatch(/^nodes\[1\]\.output\.a\.a/);
  });

  it('a flow of ordinary depth still loads', () => {
    expect(parseFlow(flowAround(nestedJson(100))).nodes).toHaveLength(2);
  });

  it('input JSON deeper than the limit is InputRejectedError input_too_deep, before parsing', () => {
    try {
      parseJsonWithDepth(nestedJson(5_000), 256, '--input');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InputRejectedError);
      expect((error as InputRejectedError).code).toBe('input_too_deep');
      expect((error as InputRejectedError).path).toBe('--input');
    }
  });

  it('checkDepth walks iteratively: a value 100,000 levels deep is refused, not a crash', () => {
    expect(() => checkDepth(nestedObject(100_000), 256, '$INPUT')).toThrow(
      /\$INPUT(\.a)+ is nested more than 256 levels/,
    );
  });
});

describe('depth limits at run time', () => {
  it('runFlow refuses an input deeper than the limit with input_too_deep naming $INPUT', async () => {
    const { runFlow } = await import('../../src/index.js');
    const flow = parseFlow(flowAround('"$INPUT"'));
    await expect(runFlow(flow, nestedObject(5_000) as object)).rejects.toMatchObject({
      code: 'input_too_deep',
      path: expect.stringMatching(/^\$INPUT\.a/),
    });
  });
});

describe('events are checked before they are enqueued', () => {
  it('a 20 MiB event is refused (payload_too_large) and the waiting execution is untouched', async () => {
    const { MemoryExecutionStore } = await import('../../src/index.js');
    const { PlaitaClient } = await import('../../src/client/plaita-client.js');
    const { LocalQueue } = await import('../../src/backends/sqlite/queue/local-queue.js');
    const { MemoryFlowStore } = await import('../../src/backends/memory/memory-flow-store.js');
    const { FlowWorker } = await import('../../src/worker/flow-worker.js');
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
    const worker = new FlowWorker({ store, flows, queue, pollBlockMs: 20 });
    const client = new PlaitaClient({ store, flows, queue });
    worker.start();
    try {
      const id = await client.start(
        {
          nodes: [
            { type: 'start', id: 's', next: 'w' },
            { type: 'event', id: 'w', event_type: 'go', next: 'e' },
            { type: 'end', id: 'e', output: '$NODE.w.event_data.event_data.ok' },
          ],
        },
        {},
      );
      expect((await client.waitFor(id, { timeoutMs: 10_000 })).status).toBe('suspended');
      const huge = { blob: 'x'.repeat(20 * 1024 * 1024) };
      await expect(client.sendEvent(id, { type: 'go', data: huge })).rejects.toMatchObject({
        code: 'payload_too_large',
        path: 'data',
      });
      await expect(
        client.sendEvent(id, { type: 'go', data: nestedObject(5_000) }),
      ).rejects.toMatchObject({
        code: 'input_too_deep',
      });
      await expect(client.start({ nodes: [] }, nestedObject(5_000) as never)).rejects.toMatchObject(
        {
          code: 'input_too_deep',
        },
      );
      // An event no worker could read would be dead-lettered after the caller was told it went.
      for (const [event, path] of [
        [{ type: '' }, 'type'],
        [{ type: 'go', eventId: '' }, 'eventId'],
      ] as const)
        await expect(client.sendEvent(id, event)).rejects.toMatchObject({
          code: 'invalid_event',
          path,
          retryable: false,
        });
      expect(await queue.listDeadLetters({ limit: 10 })).toMatchObject({ items: [] });
      expect((await client.get(id))!.status).toBe('suspended');
      await client.sendEvent(id, { type: 'go', data: { ok: 'yes' } });
      const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
      expect(done.status).toBe('completed');
      expect(done.result).toBe('yes');
    } finally {
      await worker.stop();
      await queue.close();
    }
  });
});
