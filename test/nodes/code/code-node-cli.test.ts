import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../cli/run-cli.js';

// Through the built CLI (`npm run build` first): the operator's PLAITA_CODE_* variables decide
// what loads, and JavaScript syntax errors are reported at validation with line and column.
const dir = mkdtempSync(join(tmpdir(), 'plaita-code-cli-'));
const write = (name: string, nodes: unknown[]): string => {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      flow_id: name,
      nodes: [
        { type: 'start', id: 's', next: 'c' },
        ...nodes,
        { type: 'end', id: 'e', output: '$NODE.c' },
      ],
    }),
  );
  return path;
};

const python = write('python.json', [
  {
    type: 'code',
    id: 'c',
    lang: 'python',
    code: "def run(input): return input['x'] * 2",
    input: { x: '$INPUT.x' },
    next: 'e',
  },
]);
const javascript = write('js.json', [
  {
    type: 'code',
    id: 'c',
    code: 'function run(i) { return { doubled: i.x * 2 } }',
    input: '$INPUT',
    next: 'e',
  },
]);
const broken = write('broken.json', [
  { type: 'code', id: 'c', code: 'function run(i) {\n  return i.x *;\n}', next: 'e' },
]);

const hasPython = (() => {
  try {
    execFileSync('python3', ['-c', 'pass']);
    return true;
  } catch {
    return false;
  }
})();
if (!hasPython && process.env.CI === 'true') throw new Error('python3 is required in CI');

describe('code nodes through the CLI', () => {
  it('validate: a JavaScript code node is valid; a syntax error names line and column', () => {
    expect(cli(['validate', javascript]).code).toBe(0);
    const run = cli(['validate', broken]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('nodes[1].code');
    expect(run.stderr).toContain('at line 2, column 15');
  });

  it('run: a JavaScript code node runs with the default backends', () => {
    const run = cli(['run', javascript, '--input', '{"x": 21}']);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ doubled: 42 });
  });

  it('a Python code node fails validation until PLAITA_CODE_BACKENDS enables it', () => {
    const off = cli(['validate', python]);
    expect(off.code).toBe(2);
    expect(off.stderr).toContain('nodes[1].lang');
    expect(off.stderr).toContain('PLAITA_CODE_BACKENDS=quickjs,python');
    expect(
      cli(['validate', python], { env: { PLAITA_CODE_BACKENDS: 'quickjs,python' } }).code,
    ).toBe(0);
    expect(cli(['validate', python], { env: { PLAITA_CODE_BACKENDS: 'lua' } }).code).toBe(2);
  });

  it.skipIf(!hasPython)('runs it once enabled', () => {
    const run = cli(['run', python, '--input', '{"x": 4}'], {
      env: { PLAITA_CODE_BACKENDS: 'quickjs,python' },
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toBe(8);
  });
});
