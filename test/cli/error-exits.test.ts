/**
 * Every expected failure is a typed error with docs/public-surface.md's exit code and a one-line message:
 * 2 bad usage, input or configuration; 3 a service that cannot be reached. Never a stack trace,
 * never "internal error".
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POSTGRES_URL, postgresGate } from '../support/services.js';
import { cli, cliAsync, type CliRun, ROOT } from './run-cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'plaita-error-exits-'));
const env = { PLAITA_CONNECT_TIMEOUT_MS: '2000' };
const run = (args: string[]): CliRun => cli(args, { cwd, env });

const flowFile = join(cwd, 'flow.json');
writeFileSync(
  flowFile,
  JSON.stringify({
    nodes: [
      { id: 's', type: 'start', next: 'e' },
      { id: 'e', type: 'end' },
    ],
  }),
);
const secretFlow = join(cwd, 'secret.json');
writeFileSync(
  secretFlow,
  JSON.stringify({
    flow_id: 'secret',
    exposeEnv: ['API_TOKEN'],
    nodes: [
      { id: 's', type: 'start', next: 'e' },
      { id: 'e', type: 'end' },
    ],
  }),
);
const missing = join(cwd, 'no-such-file.json');
const directory = join(cwd, 'a-directory');
mkdirSync(directory);
const junk = join(cwd, 'junk.db');
writeFileSync(junk, 'this is not a SQLite database, just text '.repeat(100));
const deep = (levels: number): string => '{"a":' + '['.repeat(levels) + ']'.repeat(levels) + '}';
const deepFile = join(cwd, 'deep.json');
writeFileSync(deepFile, deep(5_000));

const pg = await postgresGate();
const pgUrl = (change: (url: URL) => void): string => {
  const url = new URL(POSTGRES_URL);
  change(url);
  return url.toString();
};
const missingDatabase = pgUrl((u) => (u.pathname = '/no_such_db_xyz'));
const unknownRole = pgUrl((u) => {
  u.username = 'no_such_role';
  u.password = '';
});

/** Exit `code`, one line on stderr matching `message`: no stack, no "internal error". */
function expectTypedFailure(out: CliRun, code: number, message: RegExp): void {
  expect(out.stderr, out.stderr).toMatch(message);
  expect(out.stderr.trim().split('\n')).toHaveLength(1);
  expect(out.stderr + out.stdout).not.toContain('internal error');
  expect(out.code).toBe(code);
}

describe('bad input and configuration exit 2, an unreachable service 3 (from dist)', () => {
  it('a usage error with --json exits 2 with one JSON document on stdout', () => {
    for (const args of [
      ['status', '--json'],
      ['--json', 'list', '--no-such-option'],
    ]) {
      const out = run(args);
      expect(out.code, args.join(' ')).toBe(2);
      const doc = JSON.parse(out.stdout) as {
        status: string;
        error: { code: string; message: string };
      };
      expect(doc.status).toBe('error');
      expect(doc.error.message).toMatch(
        /missing required argument 'executionId'|unknown option '--no-such-option'/,
      );
      expect(out.stderr).toContain('Usage: plaita');
    }
  });

  it('event --data @missing-file exits 2 naming the file', () => {
    const out = run(['event', 'some-id', 'approval', '--data', `@${missing}`, '--store', 'memory']);
    expectTypedFailure(out, 2, /--data: cannot read .*no-such-file\.json/);
  });

  it('--input @missing-file exits 2 naming the file on run, start and step', () => {
    const store = ['--store', 'memory'];
    for (const args of [
      ['run', flowFile, ...store],
      ['start', flowFile, ...store],
      ['step', flowFile],
    ]) {
      const out = run([...args, '--input', `@${missing}`]);
      expectTypedFailure(out, 2, /--input: cannot read .*no-such-file\.json/);
    }
  });

  pg.it('a Postgres URL with a missing database exits 2 with the server reason', () => {
    const out = run(['status', 'some-id', '--store', missingDatabase]);
    expectTypedFailure(out, 2, /3D000.*database "no_such_db_xyz" does not exist/);
  });

  pg.it('a Postgres URL with an unknown role exits 2 with the server reason', () => {
    const out = run(['list', '--store', unknownRole, '--json']);
    expectTypedFailure(out, 2, /28(000|P01).*"no_such_role"/);
    expect(JSON.parse(out.stdout)).toMatchObject({
      status: 'error',
      error: { code: 'store_misconfigured', retryable: false },
    });
  });

  it('an unreachable Postgres (closed port) still exits 3', () => {
    const out = run(['status', 'some-id', '--store', 'postgres://postgres@127.0.0.1:1/test']);
    expectTypedFailure(out, 3, /a required service is unreachable: PostgreSQL is unavailable/);
  });

  it('a store URL with a port or Redis database that is no number exits 2 naming the URL', () => {
    for (const [url, message] of [
      ['redis://127.0.0.1:notaport', /invalid Redis URL redis:\/\/127\.0\.0\.1:notaport/],
      ['redis://127.0.0.1:6379/abc', /invalid Redis URL .*the database "abc" is not a number/],
      ['postgres://postgres@127.0.0.1:notaport/x', /invalid PostgreSQL URL postgres:\/\/\*\*\*@/],
    ] as const)
      expectTypedFailure(run(['list', '--store', url]), 2, message);
  });

  it('a foreign list cursor exits 2, not an internal error', () => {
    expectTypedFailure(
      run(['list', '--cursor', 'bogus', '--store', 'memory']),
      2,
      /--cursor bogus: not a cursor this store's list printed/,
    );
  });

  it('an unknown PLAITA_LOG_LEVEL is named and logging stays at warn, never a crash', () => {
    const out = cli(['--help'], { cwd, env: { PLAITA_LOG_LEVEL: 'bogus' } });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('PLAITA_LOG_LEVEL="bogus" is not one of');
    expect(out.stderr).not.toContain('    at ');
  });

  it('serve with its store unreachable exits 3 instead of staying alive reconnecting', async () => {
    const out = await cliAsync(
      ['serve', '--port', String(19000 + (process.pid % 500)), '--store', 'redis://127.0.0.1:1'],
      {
        cwd,
        env,
      },
    );
    expect(out.stderr).toMatch(/a required service is unreachable: Redis not ready/);
    expect(out.code).toBe(3);
  });

  it(
    'a worker whose store is down waits for it, logging the outage once, not a stack per try',
    {
      timeout: 60_000,
    },
    async () => {
      const worker = spawn(
        process.execPath,
        [`${ROOT}dist/cli.js`, 'worker', '--store', 'redis://127.0.0.1:1'],
        {
          cwd,
          env: { ...process.env, PLAITA_CONNECT_TIMEOUT_MS: '200', PLAITA_LOG_LEVEL: 'warn' },
        },
      );
      let stderr = '';
      worker.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      // Its first try logged (however long a loaded machine takes to start it), then ten more tries.
      const deadline = Date.now() + 30_000;
      while (stderr === '' && worker.exitCode === null && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(worker.exitCode).toBeNull(); // still waiting for its store
      worker.kill('SIGKILL');
      const lines = stderr.trim().split('\n');
      expect(lines, stderr).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        msg: 'reaching the Redis store failed; retrying',
        errorCode: 'store_unavailable',
      });
      expect(stderr).not.toContain('"stack"');
    },
  );

  it('a numeric setting that is no number exits 2 naming the flag or the variable', () => {
    expectTypedFailure(
      run(['worker', '--concurrency', 'abc', '--store', 'memory']),
      2,
      /--concurrency must be a positive integer, got "abc"/,
    );
    // Counts: none, or a fraction, of messages at once is no setting (they were taken silently).
    for (const bad of ['0', '1.5'])
      expectTypedFailure(
        run(['worker', '--concurrency', bad, '--store', 'memory']),
        2,
        new RegExp(`--concurrency must be a positive integer, got "${bad.replace('.', '\\.')}"`),
      );
    expectTypedFailure(
      run(['worker', '--max-deliveries', '0', '--store', 'memory']),
      2,
      /--max-deliveries must be a positive integer, got "0"/,
    );
    const fromEnv = cli(['worker', '--store', 'memory'], {
      cwd,
      env: { ...env, PLAITA_CONCURRENCY: 'abc' },
    });
    expectTypedFailure(fromEnv, 2, /PLAITA_CONCURRENCY="abc": expected a number/);
  });

  it('start of a flow file that is not there says so, not "no published flow"', () => {
    const out = run([
      'start',
      join(cwd, 'nothere.yaml'),
      '--store',
      `sqlite:${join(cwd, 'started.db')}`,
    ]);
    expect(out.stderr).toMatch(/cannot read flow file .*nothere\.yaml: file not found/);
    expect(out.stderr + out.stdout).not.toContain('internal error');
    expect(out.code).toBe(2);
  });

  it('a sqlite: path that is a directory exits 2 naming the path', () => {
    const out = run(['status', 'some-id', '--store', `sqlite:${directory}`]);
    expectTypedFailure(out, 2, /a-directory is a directory, not a SQLite database file/);
  });

  it('a sqlite: path whose folder cannot be made exits 2 naming the path, and does not hang', () => {
    // Node's recursive mkdir spins for ever under /proc; made one level at a time, it fails.
    const out = run(['start', flowFile, '--store', 'sqlite:/proc/plaita-none/x.db']);
    expectTypedFailure(out, 2, /cannot use \/proc\/plaita-none\/x\.db as a SQLite database file/);
  });

  it('a sqlite: file this process may not write exits 2 naming the path and what to check', () => {
    // Made by this user, then opened by a process that may only read it. As root the modes do not
    // bind, so the process runs as root without the capabilities that bypass them (setpriv): still
    // the checkout's owner, so the test works wherever the checkout lives (a 0700 folder too).
    const folder = mkdtempSync(join(tmpdir(), 'plaita-readonly-'));
    const file = join(folder, 'ro.db');
    const flow = join(folder, 'flow.json');
    copyFileSync(flowFile, flow);
    chmodSync(flow, 0o444);
    expect(run(['run', flow, '--store', `sqlite:${file}`]).code).not.toBe(2);
    chmodSync(file, 0o444);
    chmodSync(folder, 0o777); // the folder stays writable: the -wal and -shm files can be made
    const args = [`${ROOT}dist/cli.js`, 'run', flow, '--json', '--store', `sqlite:${file}`];
    const [command, commandArgs]: [string, string[]] =
      process.getuid?.() === 0
        ? [
            'setpriv',
            ['--bounding-set=-dac_override,-dac_read_search', '--', process.execPath, ...args],
          ]
        : [process.execPath, args];
    const spawned = spawnSync(command, commandArgs, {
      cwd: folder,
      encoding: 'utf8',
      env: { ...process.env, ...env, PLAITA_LOG_LEVEL: 'silent' },
      timeout: 60_000,
    });
    const out = { code: spawned.status, stdout: spawned.stdout, stderr: spawned.stderr };
    expectTypedFailure(out, 2, /ro\.db cannot be written by this process \(SQLITE_READONLY/);
    expect(JSON.parse(out.stdout)).toMatchObject({ error: { code: 'store_misconfigured' } });
  });

  it('a sqlite: file of junk exits 2 naming the path', () => {
    const out = run(['list', '--store', `sqlite:${junk}`]);
    expectTypedFailure(out, 2, /junk\.db is not a SQLite database/);
  });

  it('--queue a{b} exits 2 explaining the allowed form, before any connection', () => {
    const out = run([
      'status',
      'some-id',
      '--store',
      'memory',
      '--redis-url',
      'redis://127.0.0.1:1',
      '--queue',
      'a{b}',
    ]);
    expectTypedFailure(out, 2, /--queue "a\{b\}" is not a valid stream name: .*no brace/);
    const empty = run(['list', '--store', 'memory', '--queue', '']);
    expectTypedFailure(empty, 2, /--queue "" is not a valid stream name/);
  });

  it(
    'commands that read what is stored refuse a SQLite path with no store, and make no file there',
    { timeout: 120_000 },
    () => {
      const empty = mkdtempSync(join(tmpdir(), 'plaita-no-store-'));
      const typo = join(empty, 'typo', 'pla1ta.db');
      for (const args of [
        ['list'],
        ['status', 'some-id'],
        ['cancel', 'some-id'],
        ['retry', 'some-id'],
        ['event', 'some-id', 'approval'],
        ['reap'],
        ['dlq', 'list'],
        ['dlq', 'replay', '1'],
        ['dlq', 'purge'],
      ]) {
        const out = run([...args, '--store', `sqlite:${typo}`]);
        expectTypedFailure(out, 2, /no store at .*typo\/pla1ta\.db: nothing has run with it yet/);
        const here = cli(args, { cwd: empty, env });
        expectTypedFailure(here, 2, /no store at \.\/\.plaita\/plaita\.db/);
      }
      expect(readdirSync(empty)).toEqual([]);
    },
  );

  it('start and keys on --store memory exit 2: what they leave stored would be lost at exit', () => {
    expectTypedFailure(
      run(['start', flowFile, '--store', 'memory']),
      2,
      /--store memory keeps nothing once this command exits: the execution it queues would be lost/,
    );
    expectTypedFailure(
      run(['keys', 'create', '--name', 'm', '--role', 'admin', '--store', 'memory']),
      2,
      /--store memory keeps nothing once this command exits: a key made there would open no server/,
    );
  });

  it('an unknown execution id exits 2 for status, cancel, retry and event alike', () => {
    for (const args of [
      ['status', 'no-such-execution'],
      ['cancel', 'no-such-execution'],
      ['retry', 'no-such-execution'],
      ['event', 'no-such-execution', 'approval'],
    ]) {
      const out = run([...args, '--store', 'memory']);
      expectTypedFailure(out, 2, /no execution no-such-execution/);
    }
  });

  it('a secret-looking exposeEnv name warns on stderr in run, step and start as in validate', () => {
    const warning = /warning: audit: exposeEnv lists "API_TOKEN", which looks like a secret/;
    expect(run(['validate', secretFlow]).stdout).toMatch(
      /warning secret_env_exposed exposeEnv\[0\]: .*API_TOKEN/,
    );
    for (const args of [
      ['run', secretFlow, '--store', 'memory'],
      ['step', secretFlow],
      ['start', secretFlow, '--store', `sqlite:${join(cwd, 'started.db')}`],
      ['run', secretFlow, '--store', 'memory', '--json'],
    ]) {
      const out = run(args);
      expect(out.stderr, args.join(' ')).toMatch(warning);
      expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(0);
    }
  });

  it('a 5,000-level-deep --input (or --data) exits 2 naming the option', () => {
    const input = run(['run', flowFile, '--store', 'memory', '--input', deep(5_000)]);
    expectTypedFailure(input, 2, /--input is nested more than 256 levels deep/);
    const step = run(['step', flowFile, '--input', `@${deepFile}`, '--json']);
    expectTypedFailure(step, 2, /--input is nested more than 256 levels deep/);
    expect(JSON.parse(step.stdout)).toMatchObject({ error: { code: 'input_too_deep' } });
    const data = run(['event', 'some-id', 'approval', '--data', `@${deepFile}`]);
    expectTypedFailure(data, 2, /--data is nested more than 256 levels deep/);
    // At the limit the input is accepted.
    expect(run(['step', flowFile, '--input', deep(255)]).code).toBe(0);
  });

  it(
    'no bad-input case prints "internal error" (the batch, grepped)',
    { timeout: 180_000 },
    async () => {
      const cases: string[][] = [
        ['event', 'x', 't', '--data', `@${missing}`, '--store', 'memory'],
        ['run', flowFile, '--input', `@${missing}`, '--store', 'memory'],
        ['start', flowFile, '--input', `@${missing}`, '--store', 'memory'],
        ['step', flowFile, '--input', `@${missing}`],
        ['run', flowFile, '--input', '{not json', '--store', 'memory'],
        ['event', 'x', 't', '--data', '{not json', '--store', 'memory'],
        ['status', 'x', '--store', `sqlite:${directory}`],
        ['run', flowFile, '--store', `sqlite:${directory}`],
        ['list', '--store', `sqlite:${junk}`],
        ['run', flowFile, '--store', `sqlite:${junk}`],
        ['status', 'x', '--store', `sqlite:${flowFile}/nested.db`],
        ['status', 'x', '--store', 'memory', '--queue', 'a{b}'],
        ['status', 'x', '--store', 'memory'],
        ['cancel', 'x', '--store', 'memory'],
        ['retry', 'x', '--store', 'memory'],
        ['event', 'x', 't', '--store', 'memory'],
        ['dlq', 'replay', '42', '--store', 'memory'],
        ['dlq', 'list', '--limit', 'many', '--store', 'memory'],
        ['list', '--limit', '0', '--store', 'memory'],
        ['run', flowFile, '--store', 'memory', '--input', deep(5_000)],
        ['event', 'x', 't', '--data', `@${deepFile}`, '--store', 'memory'],
        ['status', 'x', '--store', 'nosuch://x'],
        ...(pg.available
          ? [
              ['status', 'x', '--store', missingDatabase],
              ['status', 'x', '--store', unknownRole],
            ]
          : []),
      ];
      const results: Array<CliRun & { args: string }> = [];
      for (let i = 0; i < cases.length; i += 4) {
        const batch = cases.slice(i, i + 4);
        const runs = await Promise.all(batch.map((args) => cliAsync(args, { cwd, env })));
        runs.forEach((out, j) => results.push({ args: batch[j]!.join(' '), ...out }));
      }
      const leaked = results.filter((r) => /internal error/.test(r.stdout + r.stderr));
      expect(leaked.map((r) => `${r.args}\n${r.stderr}`)).toEqual([]);
      expect(results.filter((r) => r.code !== 2).map((r) => `${r.args} -> ${r.code}`)).toEqual([]);
    },
  );
});
