import { beforeAll, describe, expect, it } from 'vitest';
import {
  analyzeDocument,
  createDefaultRegistry,
  defaultRegistry,
  parseFlow,
  runFlow,
} from '../../../src/index.js';
import { limitsFromEnv } from '../../../src/cli/operator-limits.js';
import { loadQuickJS } from '../../../src/nodes/code/code-runtime.js';
import { failure, runCode } from './code-flow-support.js';

beforeAll(async () => {
  await loadQuickJS();
});

describe('code nodes follow the error policy like every node', () => {
  it('a code node that times out three times follows its errorHandler', async () => {
    const started = performance.now();
    const flow = parseFlow({
      flow_id: 'retry',
      nodes: [
        { type: 'start', id: 's', next: 'c' },
        {
          type: 'code',
          id: 'c',
          code: 'function run() { for (;;) {} }',
          errorHandler: { retryTimes: 2, strategy: 'continue-with', defaultValue: 'gave up' },
          next: 'e',
        },
        { type: 'end', id: 'e', output: '$NODE.c' },
      ],
    });
    const result = await runFlow(flow, {}, { limits: { codeTimeoutMs: 80 } });
    expect(result).toBe('gave up');
    // Three attempts of 80 ms CPU each.
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * 80 - 10);
  });

  it('a thrown error is retried by retryTimes', async () => {
    // The sandbox of this code stays warm between attempts, so it can count them.
    const code =
      'let attempt = 0; function run() { if (++attempt < 3) throw new Error("flaky " + attempt); return attempt }';
    expect(await runCode({ code, errorHandler: { retryTimes: 2 } })).toBe(3);
    const once = await failure(
      runCode({ code: code.replace('3', '9'), errorHandler: { retryTimes: 1 } }),
    );
    expect(once).toMatchObject({ type: 'code_error', node: 'c' });
    expect((once.originalError as Error).message).toContain('flaky 2');
  });

  it('abort strategy: the flow fails with the typed FlowError', async () => {
    const error = await failure(runCode({ code: 'function run() { null.x }' }));
    expect(error).toMatchObject({ type: 'code_error', node: 'c', name: 'NodeExecutionError' });
  });
});

describe('a flow of code and assignment nodes, end to end', () => {
  const document = {
    flow_id: 'pricing',
    nodes: [
      { type: 'start', id: 'start', next: 'subtotal' },
      {
        type: 'code',
        id: 'subtotal',
        code: 'function run(items) { return items.reduce((s, i) => s + i.price * i.qty, 0) }',
        input: '$INPUT.items',
        next: 'discount',
      },
      {
        type: 'code',
        id: 'discount',
        language: 'js',
        code: 'export default function ({ subtotal, vip }) { return vip ? Math.round(subtotal * 0.9) : subtotal }',
        input: { subtotal: '$NODE.subtotal', vip: '$INPUT.vip' },
        next: 'label',
      },
      {
        type: 'assignment',
        id: 'label',
        output: '{% $NODE.discount %} EUR',
        next: 'receipt',
      },
      {
        type: 'code',
        id: 'receipt',
        code: 'async function run(i) { return { total: i.total, label: i.label, at: new Date(0) } }',
        input: { total: '$NODE.discount', label: '$NODE.label' },
        next: 'end',
      },
      { type: 'end', id: 'end', output: '$NODE.receipt' },
    ],
  };

  it('runs to the expected result', async () => {
    const result = await runFlow(parseFlow(document), {
      items: [
        { price: 10, qty: 3 },
        { price: 5, qty: 2 },
      ],
      vip: true,
    });
    expect(result).toEqual({ total: 36, label: '36 EUR', at: new Date(0) });
  });

  it('validates clean: code is a known node type', async () => {
    const issues = await analyzeDocument(document, { registry: defaultRegistry });
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(issues.filter((i) => i.code === 'unknown_key')).toEqual([]);
  });

  it('validation reports a Python node the operator has not enabled', async () => {
    const python = {
      flow_id: 'py',
      nodes: [
        { type: 'start', id: 's', next: 'c' },
        { type: 'code', id: 'c', lang: 'python', code: 'def run(i): return 1', next: 'e' },
        { type: 'end', id: 'e' },
      ],
    };
    const off = await analyzeDocument(python, { registry: defaultRegistry });
    expect(off).toEqual([
      expect.objectContaining({ severity: 'error', path: 'nodes[1].lang', nodeId: 'c' }),
    ]);
    const on = await analyzeDocument(python, {
      registry: createDefaultRegistry({ limits: { codeBackends: ['quickjs', 'python'] } }),
    });
    expect(on.filter((i) => i.severity === 'error')).toEqual([]);
  });
});

describe('operator settings from the environment', () => {
  it('reads the code backends and limits', () => {
    expect(
      limitsFromEnv(
        {},
        {
          PLAITA_CODE_BACKENDS: 'quickjs, Python',
          PLAITA_CODE_TIMEOUT_MS: '250',
          PLAITA_CODE_MEMORY_MB: '16',
          PLAITA_CODE_OUTPUT_BYTES: '4096',
          PLAITA_SUBPROCESS_TIMEOUT_MS: '5000',
          PLAITA_SUBPROCESS_MEMORY_MB: '512',
        },
      ),
    ).toEqual({
      codeBackends: ['quickjs', 'python'],
      codeTimeoutMs: 250,
      codeMemoryBytes: 16 * 1024 * 1024,
      codeOutputBytes: 4096,
      subprocessTimeoutMs: 5000,
      subprocessMemoryBytes: 512 * 1024 * 1024,
    });
    expect(limitsFromEnv({}, { PLAITA_CODE_BACKENDS: 'none' })).toEqual({ codeBackends: [] });
  });

  it('refuses what does not parse, naming the variable', () => {
    expect(() => limitsFromEnv({}, { PLAITA_CODE_BACKENDS: 'quickjs,docker' })).toThrow(
      'PLAITA_CODE_BACKENDS="quickjs,docker" is invalid',
    );
    expect(() => limitsFromEnv({}, { PLAITA_CODE_MEMORY_MB: '-1' })).toThrow(
      'PLAITA_CODE_MEMORY_MB="-1" is invalid: expected a positive integer',
    );
  });
});
