import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  defaultRegistry,
  FlowDefinitionError,
  loadNodeModules,
  NodeRegistry,
  parseFlow,
  runFlow,
} from '../../src/index.js';
import { silentLogger } from '../../src/util/logger.js';

const dir = mkdtempSync(join(tmpdir(), 'plaita-plugins-'));
writeFileSync(
  join(dir, 'greet.mjs'),
  `export function register(registry) {
  registry.register({ type: 'greet', run: (ctx) => 'hello ' + ctx.input.name });
}\n`,
);
writeFileSync(
  join(dir, 'list.mjs'),
  `export const nodes = [{ type: 'shout', run: (ctx) => String(ctx.input.name).toUpperCase() }];\n`,
);
writeFileSync(
  join(dir, 'counted.mjs'),
  `export let instances = 0;
export default { nodes: [class Counted { static type = 'counted'; constructor(def) { instances++; this.def = def; } run() { return instances; } }] };\n`,
);
writeFileSync(join(dir, 'broken.mjs'), `throw new Error('plugin exploded');\n`);
writeFileSync(join(dir, 'empty.mjs'), `export const nothing = 1;\n`);

const flowUsing = (type: string) => ({
  nodes: [
    { type: 'start', id: 's', next: 'n' },
    { type, id: 'n', next: 'e' },
    { type: 'end', id: 'e', output: '$NODE.n' },
  ],
});

describe('plugin modules', () => {
  it('loads register(), nodes arrays and default exports; reports bad modules by name', async () => {
    const registry = defaultRegistry.copy();
    const report = await loadNodeModules(
      registry,
      [
        './greet.mjs',
        join(dir, 'list.mjs'),
        './counted.mjs',
        './broken.mjs',
        './empty.mjs',
        'no-such-package-xyz',
      ],
      { cwd: dir, logger: silentLogger },
    );
    expect(report.loaded).toEqual(['./greet.mjs', join(dir, 'list.mjs'), './counted.mjs']);
    expect(report.failed.map((f) => f.module)).toEqual([
      './broken.mjs',
      './empty.mjs',
      'no-such-package-xyz',
    ]);
    expect(report.failed[0]!.error).toContain('plugin exploded');
    expect(await runFlow(parseFlow(flowUsing('greet'), { registry }), { name: 'Ada' })).toBe(
      'hello Ada',
    );
    expect(await runFlow(parseFlow(flowUsing('shout'), { registry }), { name: 'Ada' })).toBe('ADA');
  });

  it('instantiates a class node once per flow node and reuses it', async () => {
    const registry = defaultRegistry.copy();
    await loadNodeModules(registry, [join(dir, 'counted.mjs')], { logger: silentLogger });
    const flow = parseFlow(flowUsing('counted'), { registry });
    const first = await runFlow(flow, {});
    expect(await runFlow(flow, {})).toBe(first);
  });

  it('a flow using a type whose plugin failed is a definition error listing the registered types', () => {
    const registry = new NodeRegistry([], { logger: silentLogger });
    expect(() => parseFlow(flowUsing('greet'), { registry })).toThrow(FlowDefinitionError);
  });
});
