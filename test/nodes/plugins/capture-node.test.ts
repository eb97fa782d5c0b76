import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createDefaultRegistry,
  FlowDefinitionError,
  FlowError,
  runFlow,
} from '../../../src/index.js';
import type { RuntimeLimits } from '../../../src/flow/runtime-limits.js';
import { register } from '../../../src/nodes.js';
import { splitCommand } from '../../../src/nodes/plugins/split-command.js';

/** `capture` runs real child processes; subprocesses are opted in per test as an operator would. */
const ENABLED: Partial<RuntimeLimits> = { codeBackends: ['quickjs', 'python'] };
const NODE = process.execPath;
const dir = mkdtempSync(join(tmpdir(), 'plaita-capture-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function registry(limits: Partial<RuntimeLimits> = ENABLED) {
  const r = createDefaultRegistry({ limits });
  register(r);
  return r;
}

function capture(fields: Record<string, unknown>, limits: Partial<RuntimeLimits> = ENABLED) {
  return runFlow(
    {
      flow_id: 'cap',
      nodes: [
        { type: 'start', id: 'start', next: 'run' },
        { type: 'capture', id: 'run', next: 'end', ...fields },
        { type: 'end', id: 'end', output: '$NODE.run' },
      ],
    },
    {},
    { registry: registry(limits), limits },
  ) as Promise<Record<string, unknown>>;
}

describe('capture', () => {
  it('runs argv and captures stdout, stderr and the exit code', async () => {
    const out = await capture({
      command: [NODE, '-e', "console.log('hello'); console.error('warn')"],
    });
    expect(out).toEqual({
      ok: true,
      exit_code: 0,
      stdout: 'hello\n',
      stderr: 'warn\n',
      dry_run: false,
    });
  });

  it('a failing command is an output, not a node failure — unless strict', async () => {
    const failing = [NODE, '-e', "console.error('boom'); process.exit(3)"];
    expect(await capture({ command: failing })).toMatchObject({ ok: false, exit_code: 3 });
    const error = await capture({ command: failing, strict: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlowError);
    expect((error as FlowError).node).toBe('run');
    expect((error as FlowError).message).toMatch(/exited with 3: boom/);
  });

  it('a timeout kills the whole process group and answers 124', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    // The command starts a grandchild that would outlive it, then hangs.
    const script = `
      const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
      require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(g.pid));
      setTimeout(() => {}, 60000);`;
    const out = await capture({ command: [NODE, '-e', script], timeout_secs: 1 });
    expect(out).toMatchObject({ ok: false, exit_code: 124 });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    // Killed: gone, or a zombie waiting for a reaper (this machine's pid 1 may not reap).
    await expect
      .poll(() => {
        try {
          return readFileSync(`/proc/${grandchild}/stat`, 'utf8').split(') ')[1]![0] === 'Z'
            ? 'dead'
            : 'alive';
        } catch {
          return 'dead';
        }
      })
      .toBe('dead');
  });

  it('keeps at most codeOutputBytes of each stream and says it cut', async () => {
    const out = await capture(
      { command: [NODE, '-e', "process.stdout.write('x'.repeat(100000))"] },
      { ...ENABLED, codeOutputBytes: 1000 },
    );
    expect((out.stdout as string).length).toBe(1000);
    expect(out.truncated).toBe(true);
  });

  it('a command line is split like shlex, never given to a shell', async () => {
    const out = await capture({
      command: `${NODE} -e "console.log(process.argv.slice(1))" 'a b' c|d`,
    });
    expect(out.stdout).toContain("[ 'a b', 'c|d' ]");
    expect(splitCommand(`a "b \\"c\\"" 'd e' f\\ g`)).toEqual(['a', 'b "c"', 'd e', 'f g']);
    expect(() => splitCommand('"open')).toThrow(/unterminated/);
  });

  it('sees PATH and the node’s env, not the worker’s secrets', async () => {
    process.env.PLAITA_TEST_SECRET = 'hunter2';
    try {
      const out = await capture({
        command: [
          NODE,
          '-e',
          'console.log(JSON.stringify([process.env.PLAITA_TEST_SECRET ?? null, process.env.GREETING, !!process.env.PATH]))',
        ],
        env: { GREETING: "$F.upper('hi')" },
      });
      expect(JSON.parse(out.stdout as string)).toEqual([null, 'HI', true]);
    } finally {
      delete process.env.PLAITA_TEST_SECRET;
    }
  });

  it('dry_run (or $GLOBAL.dry_run) reports what it would run', async () => {
    expect(await capture({ command: ['echo', 'hi'], dry_run: true })).toMatchObject({
      ok: true,
      dry_run: true,
      stdout: '[dry-run] would exec: echo hi',
    });
  });

  it('is refused at load, naming the node and the switch, while subprocesses are off', async () => {
    const error = await capture({ command: ['echo', 'hi'] }, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlowDefinitionError);
    const issue = (error as FlowDefinitionError).issues[0]!;
    expect(issue).toMatchObject({ path: 'nodes[1]', code: 'code_backend_disabled' });
    expect(issue.message).toContain('PLAITA_CODE_BACKENDS=quickjs,python');
  });
});
