import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FlowDefinitionError, runFlow, type RuntimeLimits } from '../../../src/index.js';
import { codeFlow, failure, runCode } from './code-flow-support.js';

const PYTHON_ON: Partial<RuntimeLimits> = { codeBackends: ['quickjs', 'python'] };

const hasPython = (() => {
  try {
    execFileSync('python3', ['-c', 'pass']);
    return true;
  } catch {
    return false;
  }
})();
if (!hasPython && process.env.CI === 'true') throw new Error('python3 is required in CI');

describe('a Python code node with the backend off (the default)', () => {
  it('fails at load with code_backend_disabled, naming the node and how to enable it', () => {
    let error: unknown;
    try {
      codeFlow({ lang: 'python', code: 'def run(input): return 1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FlowDefinitionError);
    const issues = (error as FlowDefinitionError).issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: 'nodes[1].lang', code: 'code_backend_disabled' });
    expect(issues[0]!.message).toContain("code node 'c' is Python");
    expect(issues[0]!.message).toContain('PLAITA_CODE_BACKENDS=quickjs,python');
  });

  it('a language given by an expression is checked when it runs, against the engine limits', async () => {
    const flow = codeFlow({ language: '$INPUT.language', code: 'def run(input): return 1' });
    const error = await failure(runFlow(flow, { language: 'python' }));
    expect(error).toMatchObject({ type: 'code_backend_disabled', node: 'c' });
  });
});

describe.skipIf(!hasPython)('a Python code node with the backend on', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'plaita-py-test-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("runs the original's example shape: lang, an object of expressions as input", async () => {
    const result = await runCode(
      {
        lang: 'python',
        code: "def run(input): return {'passed': int(input.get('exit_code') or 0) == 0, 'repo': input['repo']}",
        input: { exit_code: '$INPUT.code', repo: '$INPUT.repo' },
      },
      { code: 0, repo: '/src/x' },
      PYTHON_ON,
    );
    expect(result).toEqual({ passed: true, repo: '/src/x' });
  });

  it('runs multi-line code with imports, as tests/unit/test_code.py does', async () => {
    const code =
      'import math\n\nclass A:\n    def __init__(self, a):\n        self.a = a\n\ndef run(b):\n    print("ignored")\n    return math.ceil(A(1.7).a + b)\n';
    expect(await runCode({ language: 'python', code, input: 4 }, {}, PYTHON_ON)).toBe(6);
  });

  it('a raised exception is code_error with its type and message', async () => {
    const error = await failure(
      runCode(
        { lang: 'python', code: "def run(a):\n    raise ValueError('bad input')" },
        {},
        PYTHON_ON,
      ),
    );
    expect(error).toMatchObject({ type: 'code_error', node: 'c' });
    expect((error.originalError as Error).message).toBe('ValueError: bad input');
  });

  it('a syntax error is reported with its line, and a missing run at load', async () => {
    const error = await failure(
      runCode({ lang: 'python', code: 'def run(a):\n    return (' }, {}, PYTHON_ON),
    );
    expect(error.originalError).toMatchObject({ code: 'code_error', line: 2, retryable: false });
    expect(() => codeFlow({ lang: 'python', code: 'x = 1' }, PYTHON_ON)).toThrow(
      'the Python code defines no `def run(input)`',
    );
  });

  it('only JSON crosses: a Map input is refused with its path, a set result is a code_error', async () => {
    const map = await failure(
      runCode(
        { lang: 'python', code: 'def run(i): return i', input: '$INPUT' },
        { m: new Map() },
        PYTHON_ON,
      ),
    );
    expect((map.originalError as Error).message).toContain('input.m is a Map');
    const set = await failure(
      runCode({ lang: 'python', code: 'def run(i): return {1, 2}' }, {}, PYTHON_ON),
    );
    expect((set.originalError as Error).message).toContain('the result is not JSON');
  });

  it('times out, killing the process group with the children the code started', async () => {
    const pidFile = join(scratch, 'child.pid');
    const code = [
      'import subprocess, time',
      'def run(input):',
      "    child = subprocess.Popen(['sleep', '30'])",
      "    open(input['pid_file'], 'w').write(str(child.pid))",
      '    while True: time.sleep(0.05)',
    ].join('\n');
    const started = Date.now();
    const error = await failure(
      runCode(
        { lang: 'python', code, input: { pid_file: pidFile } },
        {},
        { ...PYTHON_ON, subprocessTimeoutMs: 1500 },
      ),
    );
    expect(error).toMatchObject({ type: 'code_timeout', node: 'c' });
    expect(Date.now() - started).toBeLessThan(5000);
    const childPid = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((r) => setTimeout(r, 100));
    expect(isAlive(childPid)).toBe(false);
  });

  it("the node's timeout aborts the run and kills the process", async () => {
    const pidFile = join(scratch, 'self.pid');
    const code = [
      'import os, time',
      'def run(input):',
      "    open(input['pid_file'], 'w').write(str(os.getpid()))",
      '    time.sleep(20)',
    ].join('\n');
    const started = Date.now();
    const error = await failure(
      runCode({ lang: 'python', code, input: { pid_file: pidFile }, timeout: 2500 }, {}, PYTHON_ON),
    );
    expect(error).toMatchObject({ name: 'NodeTimeout', node: 'c' });
    expect(Date.now() - started).toBeLessThan(8000);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => isAlive(pid), { timeout: 2000 }).toBe(false);
  });

  it('runs with a scrubbed environment in a fresh working directory', async () => {
    process.env.PLAITA_TEST_SECRET = 'do-not-leak';
    try {
      const result = (await runCode(
        {
          lang: 'python',
          code: "import os\ndef run(i): return [os.environ.get('PLAITA_TEST_SECRET'), os.getcwd(), sorted(os.listdir('.'))]",
        },
        {},
        PYTHON_ON,
      )) as [string | null, string, string[]];
      expect(result[0]).toBeNull();
      expect(result[1]).toContain('plaita-code-');
      expect(result[2]).toEqual([]);
    } finally {
      delete process.env.PLAITA_TEST_SECRET;
    }
  });

  it('a result over codeOutputBytes is code_output_too_large', async () => {
    const error = await failure(
      runCode(
        { lang: 'python', code: "def run(i): return 'x' * 100000" },
        {},
        { ...PYTHON_ON, codeOutputBytes: 1000 },
      ),
    );
    expect(error).toMatchObject({ type: 'code_output_too_large' });
  });
});

/** Running, as opposed to gone or a zombie (killed; a container's init may never reap it). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

describe.skipIf(!hasPython)('a Python code node and what it leaves behind', () => {
  it('answers when the runner exits, though a process it started in its own session holds the pipes', async () => {
    const started = performance.now();
    const result = (await runCode(
      {
        lang: 'python',
        code:
          'import subprocess\n' +
          'def run(input):\n' +
          "    p = subprocess.Popen(['sleep', '30'], start_new_session=True)\n" +
          "    return {'pid': p.pid}\n",
      },
      {},
      { ...PYTHON_ON, subprocessTimeoutMs: 20_000 },
    )) as { pid: number };
    try {
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(result.pid).toBeGreaterThan(1);
    } finally {
      process.kill(result.pid, 'SIGKILL');
    }
  });

  it("what the code writes to the runner's pipe itself is its code_error, not a crash", async () => {
    const error = await failure(
      runCode(
        {
          lang: 'python',
          code: "import os\ndef run(input):\n    os.write(3, b'garbage')\n    os._exit(0)\n",
        },
        {},
        PYTHON_ON,
      ),
    );
    expect(error).toMatchObject({ type: 'code_error', node: 'c' });
  });

  it('an abort that comes while the run is being set up stops it at once', async () => {
    const { runPython } = await import('../../../src/nodes/code/python-backend.js');
    const controller = new AbortController();
    const started = performance.now();
    const running = runPython({
      source: 'import time\ndef run(input):\n    time.sleep(100)\n',
      input: null,
      timeoutMs: 20_000,
      memoryBytes: 256 * 1024 * 1024,
      outputBytes: 1024 * 1024,
      signal: controller.signal,
    });
    controller.abort(new Error('cancelled meanwhile'));
    await expect(running).rejects.toThrow('cancelled meanwhile');
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
