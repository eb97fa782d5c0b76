import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { cli, ROOT } from './run-cli.js';

/** The embedded tier end to end: every command is a NEW process on the same SQLite file. */
const cwd = mkdtempSync(join(tmpdir(), 'plaita-durable-cli-'));
const approvalInput = JSON.stringify({
  id: 'EXP-7',
  requester: 'Bob',
  amount: 120.5,
  reason: 'conference travel',
  approvers: ['alice@example.com'],
});
const run = (args: string[]) => cli(args, { cwd });

describe(
  'plaita run / event / status / list / cancel / retry / rerun / dlq (embedded SQLite tier)',
  { timeout: 90_000 },
  () => {
    it('run keeps its state in ./.plaita/plaita.db and list shows it', () => {
      const out = run(['run', `${ROOT}examples/echo.json`, '--input', '{"name":"Ada"}']);
      expect(out.stdout.trim()).toBe('Ada');
      expect(out.code).toBe(0);
      const list = JSON.parse(run(['list', '--json']).stdout) as {
        items: Array<{ status: string; flowId: string }>;
      };
      expect(list.items[0]).toMatchObject({ status: 'completed', flowId: 'echo' });
      run(['run', `${ROOT}examples/echo.json`, '--input', '{"name":"Bo"}']);
      // An option without a variable of its own reads PLAITA_<FLAG>; the command line wins.
      const page = (env: Record<string, string>, args: string[] = []) =>
        JSON.parse(cli(['list', '--json', ...args], { cwd, env }).stdout) as { items: unknown[] };
      expect(page({ PLAITA_LIMIT: '1' }).items).toHaveLength(1);
      expect(page({ PLAITA_LIMIT: '1' }, ['--limit', '2']).items).toHaveLength(2);
    });

    it('approval: run suspends and prints the exact event command; that command, in a new process, completes it', () => {
      const out = run(['run', `${ROOT}examples/approval.json`, '--input', approvalInput]);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain("waiting at node 'approve' for event 'approval_decision'");
      const command = /plaita (event .*)$/m.exec(out.stdout)?.[1];
      expect(command).toBeDefined();
      // A mistyped type is kept for later, as the runtime keeps any early event: the CLI says so.
      const waitingId = /execution (\S+) is waiting/.exec(out.stdout)![1]!;
      const typo = run(['event', waitingId, 'approval_decisoin', '--data', '{}']);
      expect(typo.code).toBe(0);
      expect(typo.stderr).toContain(
        "note: event 'approval_decisoin' was kept in the execution's inbox: it waits for 'approval_decision', not 'approval_decisoin'",
      );
      // Run the printed command as a user would paste it (a shell parses its quoting).
      const resumed = spawnSync('sh', ['-c', `node ${ROOT}dist/cli.js ${command!}`], {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, PLAITA_LOG_LEVEL: 'silent' },
      });
      expect(resumed.stderr).toBe('');
      expect(resumed.status).toBe(0);
      expect(JSON.parse(resumed.stdout)).toEqual({
        status: 'approved',
        expense: 'EXP-7',
        decidedBy: 'alice@example.com',
      });
      const id = /plaita event (\S+)/.exec(out.stdout)![1]!;
      const status = JSON.parse(run(['status', id, '--json']).stdout) as {
        status: string;
        attempts: Record<string, number>;
      };
      expect(status).toMatchObject({
        status: 'completed',
        attempts: { prepare: 1, approve: 1, decide: 1, approved: 1 },
      });
      // Events to a terminal execution are refused with a typed error (exit 2), never lost silently.
      expect(run(['event', id, 'approval_decision', '--data', '{}']).code).toBe(2);
    });

    it('a run on --store memory that suspends says it cannot be resumed, offering no command', () => {
      const out = run([
        'run',
        `${ROOT}examples/approval.json`,
        '--input',
        approvalInput,
        '--store',
        'memory',
      ]);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain("waiting at node 'approve'");
      expect(out.stdout).toContain('it cannot be resumed: --store memory keeps nothing');
      expect(out.stdout).not.toContain('plaita event');
    });

    it('cancel of a suspended execution and retry of a failed one', () => {
      const suspended = run([
        'run',
        `${ROOT}examples/approval.json`,
        '--input',
        approvalInput,
        '--json',
      ]);
      const id = (JSON.parse(suspended.stdout) as { executionId: string }).executionId;
      const cancelled = run(['cancel', id, '--json']);
      expect(cancelled.code).toBe(0);
      expect(JSON.parse(cancelled.stdout)).toMatchObject({ status: 'cancelled' });

      const failing = join(cwd, 'failing.json');
      writeFileSync(
        failing,
        JSON.stringify({
          flow_id: 'failing',
          nodes: [
            { type: 'start', id: 's', next: 'a' },
            { type: 'assignment', id: 'a', output: '$F.div(1, $INPUT.d)', next: 'e' },
            { type: 'end', id: 'e', output: '$NODE.a' },
          ],
        }),
      );
      const failed = run(['run', failing, '--input', '{"d":0}', '--json']);
      expect(failed.code).toBe(1);
      const failedId = (JSON.parse(failed.stdout) as { executionId: string }).executionId;
      const retried = run(['retry', failedId, '--json']);
      expect(retried.code).toBe(1); // fails again: still a division by zero
      expect(JSON.parse(run(['status', failedId, '--json']).stdout)).toMatchObject({
        status: 'error',
        manualRetries: 1,
      });
      expect(run(['list', '--status', 'error', '--json']).stdout).toContain(failedId);
      // status shows the stored error as run showed it: message, code, type, node.
      const shown = /(node 'a' failed: .*\[code .*\])$/m;
      const again = run(['run', failing, '--input', '{"d":0}']); // the same failure, as text
      const byRun = shown.exec(again.stderr)?.[1];
      expect(byRun).toMatch(/\[code -9527, node_error, node 'a'\]$/);
      expect(shown.exec(run(['status', failedId]).stdout)?.[1]).toBe(byRun);
    });

    it('rerun from a node keeps the results before it; --dry-run lists what would run again', () => {
      const flowFile = join(cwd, 'rerun.json');
      writeFileSync(
        flowFile,
        JSON.stringify({
          flow_id: 'rerun',
          nodes: [
            { type: 'start', id: 's', next: 'a' },
            { type: 'assignment', id: 'a', output: '$F.add($INPUT.n, 1)', next: 'b' },
            { type: 'assignment', id: 'b', output: '$F.div($NODE.a, $INPUT.d)', next: 'e' },
            { type: 'end', id: 'e', output: { a: '$NODE.a', b: '$NODE.b' } },
          ],
        }),
      );
      const failed = run(['run', flowFile, '--input', '{"n":1,"d":0}', '--json']);
      expect(failed.code).toBe(1);
      const id = (JSON.parse(failed.stdout) as { executionId: string }).executionId;
      const dry = run(['rerun', id, '--from', 'b', '--dry-run', '--json']);
      expect(dry.code).toBe(0);
      expect(JSON.parse(dry.stdout)).toEqual({
        willRun: [{ nodeId: 'b', type: 'assignment', effectful: false }],
      });
      // `a` keeps its result (from n: 1); `b` runs with the new input.
      const again = run(['rerun', id, '--from', 'b', '--input', '{"n":100,"d":2}', '--json']);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        status: 'completed',
        result: { a: 2, b: 1 },
      });
      const refused = run(['rerun', id, '--from', 'e']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`node 'e' never ran in execution ${id}`);
    });

    it('dlq and reap answer on an empty queue; a store that is unreachable exits 3', () => {
      expect(run(['dlq', 'list']).stdout.trim()).toBe('no dead letters');
      expect(run(['dlq', 'purge', '--json']).stdout).toContain('"purged":0');
      expect(run(['reap', '--idle', '10m']).stdout.trim()).toBe('nothing to reap');
      const down = cli(['list', '--store', 'redis://127.0.0.1:1'], {
        cwd,
        env: { PLAITA_CONNECT_TIMEOUT_MS: '500' },
      });
      expect(down.code).toBe(3);
    });

    it('dlq replay refuses a letter whose execution is not stored, and replays one whose execution is', async () => {
      const queue = new LocalQueue({ path: join(cwd, '.plaita', 'plaita.db') });
      const deadLetterOf = async (executionId: string): Promise<string> => {
        await queue.enqueue({ v: 1, kind: 'run', executionId, tenantId: 'default' });
        const [delivery] = await queue.receive('test', { max: 1, blockMs: 0 });
        await queue.deadLetter(delivery!, 'unknown_execution');
        return (await queue.listDeadLetters({ limit: 1 })).items[0]!.id;
      };
      try {
        const ghost = await deadLetterOf('ghost-cli');
        const refused = run(['dlq', 'replay', ghost]);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain('execution ghost-cli, which is not stored');
        expect(await queue.findDeadLetter(ghost)).not.toBeNull(); // nothing changed

        const echo = run([
          'run',
          `${ROOT}examples/echo.json`,
          '--input',
          '{"name":"Cy"}',
          '--json',
        ]);
        const { executionId } = JSON.parse(echo.stdout) as { executionId: string };
        const letter = await deadLetterOf(executionId);
        const replayed = run(['dlq', 'replay', letter]);
        expect(replayed.code).toBe(0);
        expect(replayed.stdout.trim()).toBe(`replayed ${letter}`);
        expect(await queue.findDeadLetter(letter)).toBeNull();
        const [again] = await queue.receive('test', { max: 1, blockMs: 0 });
        expect(again?.parsed).toMatchObject({ ok: true, message: { kind: 'run', executionId } });
        await queue.ack(again!);
      } finally {
        await queue.close();
      }
    });

    it('Ctrl-C during run stops at once and says where the execution is and how it goes on', async () => {
      // An upstream that never answers: the run is in the middle of its http node.
      let upstreamCalled = false;
      const upstream = createServer(() => (upstreamCalled = true));
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      const { port } = upstream.address() as AddressInfo;
      const slow = join(cwd, 'slow.json');
      writeFileSync(
        slow,
        JSON.stringify({
          flow_id: 'slow',
          nodes: [
            { type: 'start', id: 's', next: 'call' },
            { type: 'http', id: 'call', url: `http://127.0.0.1:${port}/`, next: 'e' },
            { type: 'end', id: 'e' },
          ],
        }),
      );
      try {
        const child = spawn(process.execPath, [`${ROOT}dist/cli.js`, 'run', slow], {
          cwd,
          env: { ...process.env, PLAITA_LOG_LEVEL: 'silent' },
        });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
        await expect.poll(() => upstreamCalled, { timeout: 10_000 }).toBe(true);
        child.kill('SIGINT');
        expect(await exited).toBe(130);
        const id = /interrupted: execution (\S+) stays at its last checkpoint/.exec(stderr)?.[1];
        expect(id, stderr).toBeDefined();
        expect(stderr).toContain(`\`plaita cancel ${id!}\` ends it`);
        expect(JSON.parse(run(['status', id!, '--json']).stdout)).toMatchObject({
          status: 'running',
        });
      } finally {
        upstream.closeAllConnections();
        await new Promise((resolve) => upstream.close(resolve));
      }
    });
  },
);
