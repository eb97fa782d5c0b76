/**
 * Issue 7 item 8 through the CLI: an endless flow is stopped — by the step limit, or by
 * PLAITA_RUN_TIMEOUT_MS, which cancels the execution instead of leaving it `running`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliAsync } from './run-cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'plaita-run-limits-'));
const cycle = join(cwd, 'cycle.json');
writeFileSync(
  cycle,
  JSON.stringify({
    flow_id: 'cycle',
    nodes: [
      { type: 'start', id: 'start', next: 'ping' },
      { type: 'assignment', id: 'ping', output: 1, next: 'pong' },
      { type: 'assignment', id: 'pong', output: 2, next: 'ping' },
    ],
  }),
);

function executionIdOf(text: string): string {
  const id = /execution ([0-9a-f-]{36})/.exec(text)?.[1];
  if (!id) throw new Error(`no execution id in: ${text}`);
  return id;
}

describe('plaita run of an endless flow', () => {
  it('ends with step_limit at the operator ceiling (PLAITA_MAX_STEPS)', async () => {
    const out = await cliAsync(['run', cycle, '--json'], { cwd, env: { PLAITA_MAX_STEPS: '40' } });
    expect(out.code).toBe(1);
    expect(out.stdout + out.stderr).toContain('40 node visits');
    expect(out.stdout + out.stderr).not.toContain('internal error');
  });

  it('PLAITA_RUN_TIMEOUT_MS cancels the execution; it is not left running', async () => {
    const env = { PLAITA_MAX_STEPS: '100000000', PLAITA_RUN_TIMEOUT_MS: '1500' };
    const started = Date.now();
    const out = await cliAsync(['run', cycle], { cwd, env });
    expect(out.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(out.stderr).toContain('PLAITA_RUN_TIMEOUT_MS');
    const id = executionIdOf(out.stderr);
    const status = await cliAsync(['status', id, '--json'], { cwd });
    expect(JSON.parse(status.stdout)).toMatchObject({ status: 'cancelled' });
  });

  it('an invalid limit variable is exit 2 naming it', async () => {
    const out = await cliAsync(['run', cycle], {
      cwd,
      env: { PLAITA_HTTP_PRIVATE_NETWORKS: 'maybe' },
    });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('PLAITA_HTTP_PRIVATE_NETWORKS');
  });
});
