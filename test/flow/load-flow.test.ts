import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlowDefinitionError, loadFlowFile, parseFlow, runFlow } from '../../src/index.js';
import { flowDocumentJsonSchema } from '../../src/nodes/flow-json-schema.js';
import { defaultRegistry } from '../../src/nodes/default-registry.js';

function issuesOf(source: string | object): Array<{ path: string; message: string }> {
  try {
    parseFlow(source);
  } catch (error) {
    expect(error).toBeInstanceOf(FlowDefinitionError);
    return [...(error as FlowDefinitionError).issues];
  }
  throw new Error('expected a FlowDefinitionError');
}

describe('flow loading', () => {
  it('lists every problem of a document with its path', () => {
    const issues = issuesOf({
      runtime: 'ruby',
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        {
          type: 'assignment',
          id: 'a',
          errorHandler: { strategy: 'retry' },
          timeout: 'P1M',
          next: 'b',
        },
        { type: 'frobnicate', id: 'b' },
        {
          type: 'switch',
          id: 'c',
          branches: [{ name: 'x', condition: { field: 1, operator: 'approx', value: 2 } }],
        },
        { type: 'http', id: 'd', url: 'http://x', method: 'FETCH' },
        { type: 'loop', id: 'l', collection: [] },
        { id: 'no-type' },
      ],
    });
    const byPath = Object.fromEntries(issues.map((i) => [i.path, i.message]));
    expect(byPath.runtime).toContain('python | javascript | typescript');
    expect(byPath['nodes[1].errorHandler.strategy']).toBe(
      'expected abort | continue | continue-with',
    );
    expect(byPath['nodes[1].timeout']).toContain('ISO 8601');
    expect(byPath['nodes[2].type']).toContain('unknown node type "frobnicate"');
    expect(byPath['nodes[2].type']).toContain('assignment');
    expect(byPath['nodes[3].branches[0].condition.operator']).toContain('approx');
    expect(Object.keys(byPath).some((p) => p.startsWith('nodes[4].method'))).toBe(true);
    expect(byPath['nodes[5].childFlow']).toContain('required');
    expect(byPath['nodes[6].type']).toBeDefined();
  });

  it('reports problems inside embedded child flows with their full path', () => {
    const issues = issuesOf({
      nodes: [
        { type: 'start', id: 's', next: 'c' },
        {
          type: 'child',
          id: 'c',
          childFlow: {
            nodes: [{ type: 'start', id: 's', next: 'e', errorHandler: { strategy: 'nope' } }],
          },
        },
      ],
    });
    expect(issues.map((i) => i.path)).toContain(
      'nodes[1].childFlow.nodes[0].errorHandler.strategy',
    );
  });

  it('reads YAML with the 1.1 scalar rules, anchors and merge keys; dates stay strings', async () => {
    const yaml = `
flow_id: yaml-flow
globalContext:
  enabled: yes
  disabled: Off
  day: 2024-01-02
defaults: &defaults
  type: assignment
nodes:
  - {type: start, id: s, next: a}
  - <<: *defaults
    id: a
    output: {flag: "$GLOBAL.enabled", day: "$GLOBAL.day", nope: "$GLOBAL.disabled", on: 1}
    next: e
  - {type: end, id: e, output: $NODE.a}
`;
    const flow = parseFlow(yaml);
    expect(flow.warnings.some((w) => w.includes('defaults'))).toBe(true);
    expect(await runFlow(flow, {})).toEqual({
      flag: true,
      day: '2024-01-02',
      nope: false,
      true: 1,
    });
  });

  it("reads floats as PyYAML does: ids such as e1 and E5 stay strings, '1e2' too", async () => {
    const yaml = `
nodes:
  - {type: start, id: s1, next: e1}
  - type: mock
    id: e1
    value: {a: e2, b: E5, c: ., d: 1e2, e: 1.0e+3, f: .5, g: -1.5, h: 1_000.5, i: .inf}
    next: E5
  - {type: end, id: E5, output: $NODE.e1}
`;
    expect(await runFlow(parseFlow(yaml), {})).toEqual({
      a: 'e2',
      b: 'E5',
      c: '.',
      d: '1e2',
      e: 1000,
      f: 0.5,
      g: -1.5,
      h: 1000.5,
      i: Infinity,
    });
  });

  it('a node id longer than a store can index is refused at load, naming the node', () => {
    const long = 'n'.repeat(600);
    const issues = issuesOf({
      flow_id: 'long',
      nodes: [
        { type: 'start', id: 's', next: long },
        { type: 'end', id: long },
      ],
    });
    expect(issues).toContainEqual({
      path: 'nodes[1].id',
      message: expect.stringContaining('at most 512 UTF-8 bytes'),
    });
    // 512 bytes fit: such a node is checkpointed, its result and its timing.
    expect(() =>
      parseFlow({
        nodes: [
          { type: 'start', id: 's', next: 'é'.repeat(256) },
          { type: 'end', id: 'é'.repeat(256) },
        ],
      }),
    ).not.toThrow();
  });

  it('a refused value is named in the message (not "got nothing")', () => {
    const messages = issuesOf(
      JSON.stringify({
        flow_id: 123,
        nodes: [
          { type: 'start', id: 's', next: 'h' },
          { type: 'http', id: 'h', url: 'http://x', maxRedirects: 'a', next: 'e' },
          { type: 'end', id: 'e' },
        ],
      }),
    ).map((issue) => `${issue.path}: ${issue.message}`);
    expect(messages.join('\n')).not.toContain('got nothing');
    expect(messages).toContainEqual(expect.stringMatching(/^flow_id: expected string, got .*123/));
    expect(messages).toContainEqual(
      expect.stringMatching(/^nodes\[1\]\.maxRedirects: expected number, got .*"a"/),
    );
  });

  it('loads .json/.yaml files by extension and rejects empty or broken text precisely', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaita-load-'));
    const yamlPath = join(dir, 'f.yml');
    writeFileSync(
      yamlPath,
      'nodes:\n  - {type: start, id: s, next: e}\n  - {type: end, id: e, output: 7}\n',
    );
    expect(await runFlow(await loadFlowFile(yamlPath), {})).toBe(7);
    expect(issuesOf('   ')[0]!.message).toContain('empty');
    expect(issuesOf('{"nodes": [}')[0]!.message).toContain('not valid JSON');
    // Where JSON.parse stopped, as a person editing the file counts it.
    const missingComma = '{\n  "nodes": [\n    {"type": "start", "id": "s" "next": "e"}\n]}';
    expect(issuesOf(missingComma)[0]!.message).toMatch(/at position 47 \(line 3,? column 33\)$/);
    const missing = await loadFlowFile(join(dir, 'missing.json')).catch((e: unknown) => e);
    expect((missing as FlowDefinitionError).issues[0]!.message).toContain('not found');
    const folder = await loadFlowFile(dir).catch((e: unknown) => e);
    expect((folder as FlowDefinitionError).issues[0]!.message).toBe(
      `cannot read flow file ${dir}: it is a directory, not a file`,
    );
    expect(issuesOf('{"nodes": {}}')[0]).toEqual({
      path: 'nodes',
      message: 'expected array, got an object',
    });
  });

  it('warns (never fails) about unknown keys, duplicate ids, env references and a missing start', () => {
    const flow = parseFlow({
      mystery: 1,
      nodes: [
        { type: 'assignment', id: 'a', output: '$ENV.HOME', colour: 'red' },
        { type: 'assignment', id: 'a', output: 2, errorHandler: { retry_times: 3 } },
      ],
    });
    const text = flow.warnings.join('\n');
    expect(text).toContain('"mystery"');
    expect(text).toContain('"colour"');
    expect(text).toContain('duplicate node id "a"');
    expect(text).toContain('$ENV.HOME');
    expect(text).toContain('no start node');
    expect(text).toContain('retry_times');
    expect(flow.nodesById.get('a')!.def.output).toBe(2); // the last definition wins
  });

  it('keeps a negative retryTimes (the node is never run, §7.4) and warns about it', () => {
    const flow = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        { type: 'assignment', id: 'a', output: 1, errorHandler: { retryTimes: -2 }, next: 'e' },
        { type: 'end', id: 'e' },
      ],
    });
    expect(flow.nodesById.get('a')!.def.errorHandler.retryTimes).toBe(-2);
    expect(flow.warnings).toEqual([
      'nodes[1]: errorHandler.retryTimes is negative (-2): the node is never run and its result is null',
    ]);
  });

  it('accepts every spelling, first wins', async () => {
    const flow = parseFlow({
      flowId: 'camel',
      global_context: { g: 1 },
      expose_env: ['X'],
      nodes: [
        { type: 'start', id: 's', next: 'w' },
        {
          type: 'while',
          id: 'w',
          max_iterations: 2,
          condition: { field: 1, operator: 'eq', value: 1 },
          child_flow: {
            nodes: [
              { type: 'start', id: 's', next: 'e' },
              { type: 'end', id: 'e', output: '$INPUT.index' },
            ],
          },
          next: 'e',
        },
        {
          type: 'end',
          id: 'e',
          result_type: 'success',
          output: { w: '$NODE.w', g: '$GLOBAL.g', x: '$ENV.X', id: '$FLOW_ID', alias: '$FLOW' },
        },
      ],
    });
    expect(await runFlow(flow, {}, { env: { X: 'y' } })).toEqual({
      w: 1,
      g: 1,
      x: 'y',
      id: 'camel',
      alias: 'camel',
    });
  });
});

describe('flow JSON Schema', () => {
  it('the published schema/flow.schema.json is the one generated from the zod schemas', () => {
    const published = JSON.parse(
      readFileSync(new URL('../../schema/flow.schema.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect(published).toEqual(JSON.parse(JSON.stringify(flowDocumentJsonSchema(defaultRegistry))));
  });
});

describe('YAML scalars follow PyYAML', () => {
  it('a lone y/Y/n/N is a string (a `y:` key stays "y"), yes/no/on/off are booleans', async () => {
    const { parseDocumentText } = await import('../../src/flow/parse-document.js');
    expect(parseDocumentText('x: 1\ny: 2\nn: N\nc: yes\nd: Off\ne: ON\nf: y\n')).toEqual({
      x: 1,
      y: 2,
      n: 'N',
      c: true,
      d: false,
      e: true,
      f: 'y',
    });
  });
});
