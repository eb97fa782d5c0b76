import { describe, expect, it } from 'vitest';
import { FlowError, parseFlow, runFlow } from '../../src/index.js';

// Issue 7 item 2: a `$…` string in input data is evaluated when a flow walks into it
// (docs/flow-format.md §5.5). Short hostile strings must not hold the event loop past the node's time:
// each evaluation runs on a budget derived from the node's remaining time, and running out
// is a node error of type `expression_budget`.

const hostile = {
  sortOfRepeats: "$F.sort($F.mul($F.split($F.mul('b,a,', 1000000), ','), 2))",
  nestedSorts: "$F.sort($F.sort($F.sort($F.sort($F.split($F.mul('e,d,c,b,a,', 1000000), ',')))))",
  amplifyingReplace: "$F.replace($F.mul('a', 5000000), 'a', $F.mul('b', 1000))",
  jsonOfRepeats: "$F.json_dumps($F.mul($F.split($F.mul('xxxxxxxxxx,', 900000), ','), 10))",
  jsonRoundTrip: "$F.keys($F.json_loads($F.json_dumps($F.split($F.mul('a,', 3000000), ','))))",
  // Shared references: `count`^4 copies of one small array in a few hundred characters. Each
  // walk meets every copy, so each is charged, however few distinct objects there are.
  dumpOfShared: `$F.len($F.json_dumps(${shared(100)}))`,
  templateOfShared: `n={% ${shared(100)} %}`,
  equalityOfShared: `$F.eq(${shared(180)}, ${shared(180)})`,
};

/** An array holding `count` references to the level below, four levels deep. */
function shared(count: number): string {
  let level = "$F.split('a', 'a')";
  for (let i = 0; i < 4; i++)
    level = `$F.mul($F.append($F.slice($F.split('a', 'a'), 0, 0), ${level}), ${count})`;
  return level;
}

function flowWithTimeout(timeoutMs: number | null) {
  return parseFlow({
    flow_id: 'budget',
    ...(timeoutMs === null ? {} : { timeout: timeoutMs }),
    nodes: [
      { type: 'start', id: 's', next: 'a' },
      {
        type: 'assignment',
        id: 'a',
        ...(timeoutMs === null ? {} : { timeout: timeoutMs }),
        output: '$INPUT.data',
        next: 'e',
      },
      { type: 'end', id: 'e', output: '$NODE.a' },
    ],
  });
}

async function blockedFor(work: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now();
  try {
    await work();
    return { ms: performance.now() - started, error: null };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describe('expressions from data run on a budget', () => {
  for (const [name, data] of Object.entries(hostile)) {
    it(`${name}: ends as expression_budget within the node's 300 ms, not seconds later`, async () => {
      const { ms, error } = await blockedFor(() => runFlow(flowWithTimeout(300), { data }));
      expect(error).toBeInstanceOf(FlowError);
      expect((error as FlowError).type).toBe('expression_budget');
      expect((error as FlowError).node).toBe('a');
      // Generous margin for a loaded CI machine; before the budget these took 1–10 s.
      expect(ms).toBeLessThan(300 + 400);
    });
  }

  it('without any timeout the operator bound applies (maxEvaluationMs)', async () => {
    const { ms, error } = await blockedFor(() =>
      runFlow(
        flowWithTimeout(null),
        { data: hostile.sortOfRepeats },
        { limits: { maxEvaluationMs: 200 } },
      ),
    );
    expect((error as FlowError).type).toBe('expression_budget');
    expect(ms).toBeLessThan(200 + 400);
  });

  it('the budget error goes through the node error policy (continue-with)', async () => {
    const flow = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        {
          type: 'assignment',
          id: 'a',
          timeout: 300,
          output: '$INPUT.data',
          errorHandler: { strategy: 'continue-with', defaultValue: 'refused', retryTimes: 3 },
          next: 'e',
        },
        { type: 'end', id: 'e', output: '$NODE.a' },
      ],
    });
    const { ms, error } = await blockedFor(() => runFlow(flow, { data: hostile.nestedSorts }));
    expect(error).toBeNull();
    // Not retried: the same expression would only burn the budget again.
    expect(ms).toBeLessThan(300 + 400);
    expect(await runFlow(flow, { data: hostile.nestedSorts })).toBe('refused');
  });

  it('ordinary work on real-sized data stays well inside the budget', async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ id: 20_000 - i, name: `n${i}` }));
    const flow = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        { type: 'assignment', id: 'a', output: "$F.len($F.sort($INPUT.items, 'id'))", next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.a' },
      ],
    });
    expect(await runFlow(flow, { items })).toBe(20_000);
  });

  it('nested evaluation of data can be switched off; strings under $GLOBAL still evaluate', async () => {
    const flow = parseFlow({
      globalContext: { greeting: 'hi {% $name %}', $name: 'Ada' },
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e', output: { data: '$INPUT.x', global: '$GLOBAL.greeting' } },
      ],
    });
    const input = { x: '$F.upper("not code")' };
    expect(await runFlow(flow, input)).toEqual({ data: 'NOT CODE', global: 'hi Ada' });
    expect(await runFlow(flow, input, { limits: { nestedDataExpressions: false } })).toEqual({
      data: '$F.upper("not code")',
      global: 'hi Ada',
    });
  });
});
