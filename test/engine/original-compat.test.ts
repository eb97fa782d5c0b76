import { describe, expect, it } from 'vitest';
import { parseFlow, runFlow } from '../../src/index.js';

/**
 * Where docs/flow-format.md leaves room and the original engine (jeffkit/plaita) decides, a
 * plaita flow file must behave here as it did there: cases a reviewer found in its source.
 */
const start = (next: string) => ({ type: 'start', id: 's', next });
const end = (id: string, output: unknown = id) => ({ type: 'end', id, output });
const echo = { nodes: [start('e'), end('e', '$INPUT')] };

function run(nodes: unknown[], input: Record<string, unknown> = {}): Promise<unknown> {
  return runFlow(parseFlow({ flow_id: 'compat', nodes }), input);
}

describe('behaviour of the original engine where the spec is silent', () => {
  it("`'\\n'` in a quoted literal is a newline (pyparsing's QuotedString), so join and split work by lines", async () => {
    const nodes = [
      start('a'),
      {
        type: 'assignment',
        id: 'a',
        output: { joined: "$F.join($INPUT.xs, '\\n')", split: "$F.split($INPUT.s, '\\n')" },
        next: 'e',
      },
      end('e', '$NODE.a'),
    ];
    await expect(run(nodes, { xs: ['x', 'y'], s: 'x\ny' })).resolves.toEqual({
      joined: 'x\ny',
      split: ['x', 'y'],
    });
  });

  it('a map with max_concurrent 0 runs without a limit (`max_concurrent or len(items)`)', async () => {
    const map = {
      type: 'map',
      id: 'm',
      collection: '$INPUT.xs',
      concurrent: true,
      max_concurrent: 0,
      childFlow: echo,
      next: 'e',
    };
    await expect(run([start('m'), map, end('e', '$NODE.m')], { xs: [1, 2, 3] })).resolves.toEqual([
      { item: 1, index: 0 },
      { item: 2, index: 1 },
      { item: 3, index: 2 },
    ]);
  });

  it('an empty `next` is no next (editors write it for an unset link)', async () => {
    await expect(run([start('e'), { ...end('e', 1), next: '' }])).resolves.toBe(1);
    await expect(
      run([start('a'), { type: 'assignment', id: 'a', output: 1, next: '' }]),
    ).rejects.toMatchObject({ type: 'flow_error', code: -500, node: 'a' });
  });

  it('a switch branch with an empty `next` targets its name; an empty case default is `default`', async () => {
    const always = { field: 1, operator: 'eq', value: 1 };
    await expect(
      run([
        start('w'),
        { type: 'switch', id: 'w', branches: [{ name: 'x', next: '', condition: always }] },
        end('x'),
      ]),
    ).resolves.toBe('x');
    await expect(
      run(
        [
          start('c'),
          {
            type: 'case',
            id: 'c',
            target: '$INPUT.v',
            cases: [{ id: 'x', value: 1 }],
            default: '',
          },
          end('x'),
          end('default'),
        ],
        { v: 5 },
      ),
    ).resolves.toBe('default');
  });

  it("a switch's default is the first default in document order, whatever the priorities", async () => {
    await expect(
      run([
        start('w'),
        {
          type: 'switch',
          id: 'w',
          branches: [
            { name: 'x', isDefault: true },
            { name: 'y', isDefault: true, priority: 5 },
          ],
        },
        end('x'),
        end('y'),
      ]),
    ).resolves.toBe('x');
  });

  it('a while loop at its cap stops without evaluating its condition', async () => {
    const round = { nodes: [start('e'), end('e', '$INPUT.index')] };
    const walk = (maxIterations: number) =>
      run(
        [
          start('w'),
          {
            type: 'while',
            id: 'w',
            maxIterations,
            // Indexes past the list's end at the cap: evaluated there, it is a node error.
            condition: {
              field: '$F.getListItem($INPUT.list, $LOOP-INDEX)',
              operator: 'ne',
              value: 'stop',
            },
            childFlow: round,
            next: 'e',
          },
          end('e', '$NODE.w'),
        ],
        { list: ['a', 'b', 'c'] },
      );
    await expect(walk(3)).resolves.toBe(2);
    await expect(walk(0)).resolves.toBeNull();
  });

  it('a parallel branch whose input fails fails that branch alone', async () => {
    const result = await run(
      [
        start('p'),
        {
          type: 'parallel',
          id: 'p',
          branches: [
            { name: 'a', flow: echo, input: '$F.getListItem($INPUT.list, 5)' },
            { name: 'b', flow: echo, input: 1 },
            { name: 'background', flow: echo, input: '$F.getListItem($INPUT.list, 5)' },
          ],
          joinBranches: ['a', 'b'],
          next: 'e',
        },
        end('e', '$NODE.p'),
      ],
      { list: [] },
    );
    expect(result).toMatchObject({ a: { __branch__: 'a' }, b: 1 });
    expect((result as { a: { __parallel_error__: unknown } }).a.__parallel_error__).toEqual(
      expect.any(String),
    );
  });

  it('an upstreamOutput entry that matches with a null value gives null, not []', async () => {
    const pickFrom = (upstream: string) =>
      run([
        start('a'),
        { type: 'assignment', id: 'a', output: 1, next: 'b' },
        {
          type: 'assignment',
          id: 'b',
          upstreamOutput: [
            { upstream, value: null },
            { upstream: 'z', value: 2 },
          ],
          next: 'e',
        },
        end('e', { b: '$NODE.b' }),
      ]);
    await expect(pickFrom('a')).resolves.toEqual({ b: null });
    await expect(pickFrom('nobody')).resolves.toEqual({ b: [] });
  });
});
