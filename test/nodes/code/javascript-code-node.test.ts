import { beforeAll, describe, expect, it } from 'vitest';
import {
  FakeClock,
  FlowDefinitionError,
  parseFlow,
  runFlow,
  StateSerializationError,
} from '../../../src/index.js';
import { loadQuickJS } from '../../../src/nodes/code/code-runtime.js';
import { codeFlow, failure, runCode } from './code-flow-support.js';

// Loaded first so that load-time syntax checks run (hosts call loadQuickJS, the CLI does).
beforeAll(async () => {
  await loadQuickJS();
});

describe('the code node, JavaScript (the original cases)', () => {
  // tests/unit/test_code.py `test_set`: language, code and input all come from $INPUT.
  const dynamic = {
    language: '$INPUT.language',
    code: '$INPUT.code',
    input: '$INPUT.input',
  };

  it('runs run(input) with language, code and input given by expressions', async () => {
    const flow = codeFlow(dynamic);
    expect(
      await runFlow(flow, {
        language: 'js',
        code: 'function run(a) { return a - 1; }; ',
        input: '6',
      }),
    ).toBe(5);
    expect(
      await runFlow(flow, {
        language: 'js',
        code: 'function run(a) { return a + 2; }; ',
        input: 3,
      }),
    ).toBe(5);
  });

  it('takes `lang` as a spelling of `language`, and an object of expressions as input', async () => {
    const result = await runCode(
      {
        lang: 'javascript',
        code: 'function run(input) { return { sum: input.a + input.b, dry: input.dry_run } }',
        input: { a: '$INPUT.a', b: 2, dry_run: '$INPUT.dry' },
      },
      { a: 40, dry: false },
    );
    expect(result).toEqual({ sum: 42, dry: false });
  });

  it('is JavaScript when no language is given, and accepts export default', async () => {
    expect(await runCode({ code: 'export default function (x) { return x * 2 }', input: 21 })).toBe(
      42,
    );
    expect(await runCode({ code: 'export function run(x) { return [x] }', input: 1 })).toEqual([1]);
    expect(await runCode({ code: 'const run = (x) => x + "!"', input: 'hi' })).toBe('hi!');
  });

  it('without `input`, run receives null, as in the original (its unset input is None)', async () => {
    const flow = parseFlow({
      flow_id: 'upstream',
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        { type: 'assignment', id: 'a', output: { v: 1 }, next: 'c' },
        { type: 'code', id: 'c', code: 'function run(input) { return [input] }', next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.c' },
      ],
    });
    expect(await runFlow(flow, { ignored: true })).toEqual([null]);
  });

  it('awaits an async run, and an undefined result is null', async () => {
    expect(
      await runCode({ code: 'async function run(x) { await null; return x + 1 }', input: 1 }),
    ).toBe(2);
    expect(await runCode({ code: 'function run() {}' })).toBeNull();
  });

  it('Date, Map, Set, BigInt, bytes, undefined and NaN cross the sandbox both ways', async () => {
    const input = {
      when: new Date('2024-05-01T10:00:00.000Z'),
      map: new Map<unknown, unknown>([
        ['k', 1n],
        [2, new Set(['a'])],
      ]),
      bytes: new Uint8Array([1, 2, 255]),
      nothing: undefined,
      nan: NaN,
      '~t': 'a key that looks like a tag',
    };
    const code = `function run(i) {
      return {
        isDate: i.when instanceof Date, year: i.when.getUTCFullYear(), when: i.when,
        map: i.map, big: i.map.get('k') * 2n, bytes: i.bytes, sum: i.bytes.reduce((a, b) => a + b),
        hasNothing: 'nothing' in i, nan: i.nan, tagKey: i['~t'],
        later: new Date(i.when.getTime() + 1000),
      };
    }`;
    const result = (await runCode({ code, input: '$INPUT' }, input)) as Record<string, unknown>;
    expect(result).toEqual({
      isDate: true,
      year: 2024,
      when: new Date('2024-05-01T10:00:00.000Z'),
      map: new Map<unknown, unknown>([
        ['k', 1n],
        [2, new Set(['a'])],
      ]),
      big: 2n,
      bytes: new Uint8Array([1, 2, 255]),
      sum: 258,
      hasNothing: true,
      nan: NaN,
      tagKey: 'a key that looks like a tag',
      later: new Date('2024-05-01T10:00:01.000Z'),
    });
  });

  it('a function in the result is a StateSerializationError naming its path', async () => {
    const error = await failure(runCode({ code: 'function run() { return { a: { f() {} } } }' }));
    expect(error).toMatchObject({ type: 'node_error', node: 'c' });
    const cause = error.originalError;
    expect(cause).toBeInstanceOf(StateSerializationError);
    expect(cause).toMatchObject({ path: '$NODE.c.a.f', valueType: 'function f' });
    const symbol = await failure(runCode({ code: 'function run() { return [1, Symbol("s")] }' }));
    expect(symbol.originalError).toMatchObject({
      path: '$NODE.c[1]',
      valueType: 'symbol Symbol(s)',
    });
    const cycle = await failure(
      runCode({ code: 'function run() { const o = {}; o.o = o; return o }' }),
    );
    expect(cycle.originalError).toMatchObject({ path: '$NODE.c.o', valueType: 'cycle' });
  });

  it('a thrown error is code_error with its message, line and column', async () => {
    const error = await failure(
      runCode({ code: 'function run(x) {\n  throw new TypeError("bad " + x)\n}', input: 7 }),
    );
    expect(error).toMatchObject({ type: 'code_error', node: 'c', name: 'NodeExecutionError' });
    expect(error.originalError).toMatchObject({
      code: 'code_error',
      message: 'TypeError: bad 7 (line 2, column 22)',
      line: 2,
      column: 22,
    });
    const rejected = await failure(
      runCode({ code: 'async function run() { throw new Error("later") }' }),
    );
    expect(rejected).toMatchObject({ type: 'code_error' });
    const thrownValue = await failure(runCode({ code: 'function run() { throw {why: 1} }' }));
    expect((thrownValue.originalError as Error).message).toBe('the code threw {"why":1}');
  });

  it('Date.now() and new Date() read the execution clock, frozen for the run', async () => {
    const clock = new FakeClock(Date.UTC(2030, 0, 2));
    const code =
      'function run() { const a = Date.now(); for (let i = 0; i < 1e5; i++); return [a, Date.now(), new Date().toISOString(), typeof Date()] }';
    const result = await runFlow(codeFlow({ code }), {}, { clock });
    const t = Date.UTC(2030, 0, 2);
    expect(result).toEqual([t, t, '2030-01-02T00:00:00.000Z', 'string']);
  });
});

describe('the code node at load', () => {
  it('reports a syntax error with line and column, and a hint when it looks like Python', () => {
    const error = captureLoad({ code: 'function run(x) {\n  return x +;\n}' });
    expect(error.issues).toEqual([
      {
        path: 'nodes[1].code',
        message: "SyntaxError: unexpected token in expression: ';' at line 2, column 13",
      },
    ]);
    const python = captureLoad({ code: 'def run(input):\n  return 1' });
    expect(python.issues[0]!.message).toContain('set "language": "python"');
  });

  it("checks a module's syntax without running its top-level code, again and again", async () => {
    const error = captureLoad({ code: 'export default function () {\n  return 1 +;\n}' });
    expect(error.issues[0]!.message).toBe(
      "SyntaxError: unexpected token in expression: ';' at line 2, column 13",
    );
    // The check links the module and stops there: a throw at its top level is for the run.
    for (let i = 0; i < 20; i++) {
      const code = `export const n = ${i}; throw new Error('top level ran'); export function run() {}`;
      const flow = codeFlow({ code });
      const ran = await failure(runFlow(flow, {}));
      expect((ran.originalError as Error).message).toContain('top level ran');
    }
  });

  it('refuses an unknown language and a node without code', () => {
    expect(captureLoad({ language: 'ruby', code: 'x' }).issues).toEqual([
      { path: 'nodes[1].language', message: 'expected javascript | js | python | py' },
    ]);
    expect(captureLoad({}).issues).toEqual([
      { path: 'nodes[1].code', message: 'a code node needs `code` defining run(input)' },
    ]);
  });

  it('refuses JavaScript where the operator turned the quickjs backend off', () => {
    const error = captureLoad({ code: 'function run() {}' }, { codeBackends: [] });
    expect(error.issues).toEqual([
      expect.objectContaining({ path: 'nodes[1]', code: 'code_backend_disabled' }),
    ]);
  });

  it('a code that defines no run fails its first run, not retried', async () => {
    const error = await failure(
      runCode({ code: 'function walk() {}', errorHandler: { retryTimes: 3 } }),
    );
    expect(error).toMatchObject({ type: 'code_error' });
    expect((error.originalError as Error).message).toContain('defines no function `run`');
  });
});

function captureLoad(
  node: Record<string, unknown>,
  limits: Parameters<typeof codeFlow>[1] = {},
): FlowDefinitionError {
  try {
    codeFlow(node, limits);
  } catch (error) {
    if (error instanceof FlowDefinitionError) return error;
    throw error;
  }
  throw new Error('the flow loaded');
}
