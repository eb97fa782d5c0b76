import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

// Issue 14 through the CLI: the document a new user got "valid" for now fails with every
// problem, each with its path; an expression error shows a caret under its column.
const dir = mkdtempSync(join(tmpdir(), 'plaita-validate-'));
const write = (name: string, doc: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(doc));
  return path;
};

const b2 = write('b2.json', {
  flow_id: 'b2',
  nodes: [
    { type: 'start', id: 'start', next: 'a' },
    { type: 'assignment', id: 'a', output: '$INPUT.name[', next: 'sw' },
    {
      type: 'switch',
      id: 'sw',
      cases: [{ condition: { field: '$NODE.a', operator: 'eq', value: 1 }, next: 'nowhere' }],
      default: 'end',
    },
    { type: 'assignment', id: 'orphan', output: 'x', next: 'end' },
    { type: 'end', id: 'end', output: '$F.uper($NODE.a)' },
  ],
});

const warnOnly = write('warn.json', {
  nodes: [
    { type: 'start', id: 's', next: 'e' },
    { type: 'assignment', id: 'orphan', output: 1, next: 'e' },
    { type: 'end', id: 'e', output: 1 },
  ],
});

describe('plaita validate', () => {
  it('reports every problem of the issue-14 document with its path and a caret, exit 2', () => {
    const run = cli(['validate', b2]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error expression_parse_error nodes[1].output');
    expect(run.stderr).toContain('    $INPUT.name[\n                ^');
    expect(run.stderr).toContain('error no_branches nodes[2]');
    expect(run.stderr).toContain('unknown_key nodes[2].cases');
    expect(run.stderr).toContain("'nowhere'");
    expect(run.stderr).toContain('unreachable_node nodes[3]');
    expect(run.stderr).toContain('did you mean $F.upper?');
    expect(run.stderr).not.toContain('internal error');
  });

  it('--json prints the machine-readable issues', () => {
    const run = cli(['validate', b2, '--json']);
    expect(run.code).toBe(2);
    const report = JSON.parse(run.stdout) as {
      valid: boolean;
      issues: Array<{ severity: string; code: string; path: string; nodeId: string | null }>;
    };
    expect(report.valid).toBe(false);
    expect(report.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ severity: 'error', code: 'expression_parse_error', nodeId: 'a' }),
        expect.objectContaining({ severity: 'warning', code: 'unknown_function', nodeId: 'end' }),
      ]),
    );
  });

  it('--json gives a missing or unparsable file the same report shape as any invalid flow', () => {
    for (const file of ['/nonexistent/flow.json', import.meta.filename]) {
      const run = cli(['validate', file, '--json']);
      expect(run.code).toBe(2);
      const report = JSON.parse(run.stdout) as {
        valid: boolean;
        errors: number;
        warnings: number;
        issues: Array<{ severity: string; code: string; message: string }>;
      };
      expect(report).toMatchObject({ valid: false, warnings: 0 });
      expect(report.errors).toBe(report.issues.length);
      expect(report.issues[0]).toMatchObject({ severity: 'error', code: 'definition_error' });
    }
  });

  it('prints a file that does not parse in the same form as any invalid flow, with line and column', () => {
    const path = join(dir, 'syntax.json');
    writeFileSync(path, '{\n  "nodes": [\n    {"type": "start" "id": "s"}\n  ]\n}');
    const run = cli(['validate', path]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      `${path}: invalid (1 error, 0 warnings)`,
      expect.stringMatching(
        /^ {2}error definition_error \(document\): not valid JSON: .* \(line 3,? column 22\)$/,
      ),
    ]);
  });

  it('warnings alone exit 0, and 2 with --strict', () => {
    const plain = cli(['validate', warnOnly]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('unreachable_node');
    expect(cli(['validate', warnOnly, '--strict']).code).toBe(2);
    // Every option also reads a PLAITA_* variable; a switch only with `1`.
    expect(cli(['validate', warnOnly], { env: { PLAITA_STRICT: '1' } }).code).toBe(2);
    expect(cli(['validate', warnOnly], { env: { PLAITA_STRICT: '0' } }).code).toBe(0);
  });

  it('custom $F functions from a --nodes module count as known', () => {
    const plugin = join(dir, 'fns.mjs');
    writeFileSync(plugin, 'export const functions = { shout: (s) => String(s).toUpperCase() };\n');
    const flow = write('custom.json', {
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e', output: '$F.shout($INPUT.x)' },
      ],
    });
    expect(cli(['validate', flow, '--strict']).code).toBe(2);
    expect(cli(['validate', flow, '--strict', '--nodes', plugin]).code).toBe(0);
  });
});
