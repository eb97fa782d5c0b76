import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'plaita-cli-'));
const broken = join(dir, 'broken.json');
writeFileSync(
  broken,
  JSON.stringify({
    nodes: [
      { type: 'start', id: 's', next: 'x', errorHandler: { strategy: 'retry' } },
      { type: 'frob', id: 'x' },
    ],
  }),
);
const failing = join(dir, 'failing.yaml');
writeFileSync(
  failing,
  'nodes:\n  - {type: start, id: s, next: e}\n  - {type: end, id: e, resultType: error, error: {code: 4001, message: quota exceeded}}\n',
);

describe('plaita run / validate / step (from dist)', () => {
  it('runs the README example and prints Ada', () => {
    const run = cli([
      'run',
      'examples/echo.json',
      '--input',
      '{"name":"Ada"}',
      '--store',
      'memory',
    ]);
    expect(run.stdout.trim()).toBe('Ada');
    expect(run.code).toBe(0);
  });

  it('--json prints one JSON document', () => {
    const run = cli([
      'run',
      'examples/branching.json',
      '--json',
      '--store',
      'memory',
      '--input',
      '{"name":"cy","base":90,"extra":5,"tags":["vip"]}',
    ]);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      status: 'completed',
      result: { message: 'Hello Cy, your total is 95.', tier: 'standard', tags: 'vip' },
    });
  });

  it('a failing flow exits 1 with its code and type', () => {
    const run = cli(['run', failing, '--store', 'memory']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('quota exceeded');
    expect(run.stderr).toContain('4001');
    expect(run.stderr).toContain('error_result');
  });

  it('validate lists every problem with its path and exits 2, never a stack trace', () => {
    const run = cli(['validate', broken]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'nodes[0].errorHandler.strategy: expected abort | continue | continue-with',
    );
    expect(run.stderr).toContain('nodes[1].type: unknown node type "frob"');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const json = cli(['validate', broken, '--json']);
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout) as { valid: boolean; issues: { code: string }[] };
    expect(report.valid).toBe(false);
    expect(report.issues.filter((i) => i.code === 'definition_error')).toHaveLength(2);
    expect(cli(['validate', 'examples/approval.json']).code).toBe(0);
  });

  it('bad input and bad usage exit 2', () => {
    expect(cli(['run', 'examples/echo.json', '--input', '[1,2]', '--store', 'memory']).code).toBe(
      2,
    );
    expect(cli(['run', 'examples/echo.json', '--input', '{oops', '--store', 'memory']).code).toBe(
      2,
    );
    expect(cli(['run', join(dir, 'missing.json'), '--store', 'memory']).code).toBe(2);
    expect(cli(['frobnicate']).code).toBe(2);
    expect(
      cli(['run', 'examples/echo.json', '--nodes', './no-such-plugin.mjs', '--store', 'memory'])
        .stderr,
    ).toContain('no-such-plugin.mjs');
  });

  it('step and run read the input from PLAITA_INPUT when --input is not given', () => {
    for (const args of [['step'], ['run', '--store', 'memory']]) {
      const out = cli([...args, 'examples/echo.json'], {
        env: { PLAITA_INPUT: '{"name":"from-env"}' },
      });
      expect(out.code).toBe(0);
      expect(out.stdout).toContain('from-env');
    }
  });

  it('step prints each node in order', () => {
    const run = cli(['step', 'examples/echo.json', '--input', '{"name":"Ada"}']);
    expect(run.code).toBe(0);
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[0]),
    ).toEqual(['start', 'end']);
    const json = JSON.parse(
      cli(['step', 'examples/echo.json', '--json', '--input', '{"name":"Ada"}']).stdout,
    ) as { steps: Array<{ nodeId: string }> };
    expect(json.steps.map((s) => s.nodeId)).toEqual(['start', 'end']);
  });

  it('every command has --help', () => {
    for (const command of ['run', 'validate', 'step']) {
      const help = cli([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Usage: plaita ' + command);
    }
  });
});
