/**
 * docs/limits.md "The environment flows see": a secret-looking `exposeEnv` name (`SECRET_KEY`,
 * `DB_PASSWORD`…) reaches `$ENV` only when the operator names it in PLAITA_EXPOSE_SECRET_ENV.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { limitsFromEnv } from '../../src/cli/operator-limits.js';
import { cliAsync } from './run-cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'plaita-secret-env-'));
const flowFile = join(cwd, 'flow.json');
writeFileSync(
  flowFile,
  JSON.stringify({
    flow_id: 'secret-env',
    exposeEnv: ['SECRET_KEY', 'APP_REGION'],
    nodes: [
      { type: 'start', id: 's', next: 'e' },
      { type: 'end', id: 'e', output: '$ENV' },
    ],
  }),
);
const hostEnv = { SECRET_KEY: 'k', APP_REGION: 'eu' };

describe('PLAITA_EXPOSE_SECRET_ENV', () => {
  it('parses to limits.exposeSecretEnv; a malformed list is a usage error naming it', () => {
    expect(limitsFromEnv({}, { PLAITA_EXPOSE_SECRET_ENV: ' SECRET_KEY, DB_PASSWORD,,' })).toEqual({
      exposeSecretEnv: ['SECRET_KEY', 'DB_PASSWORD'],
    });
    expect(limitsFromEnv({}, {})).toEqual({});
    expect(() => limitsFromEnv({}, { PLAITA_EXPOSE_SECRET_ENV: 'SECRET_*' })).toThrow(
      /PLAITA_EXPOSE_SECRET_ENV="SECRET_\*" is invalid/,
    );
  });

  it('plaita run: the flow alone cannot read the secret; the operator’s name lets it through', async () => {
    const [withheld, allowed] = await Promise.all([
      cliAsync(['run', flowFile, '--store', 'memory', '--json'], { cwd, env: hostEnv }),
      cliAsync(['run', flowFile, '--store', 'memory', '--json'], {
        cwd,
        env: { ...hostEnv, PLAITA_EXPOSE_SECRET_ENV: 'SECRET_KEY' },
      }),
    ]);
    expect(withheld.code, withheld.stderr).toBe(0);
    expect(JSON.parse(withheld.stdout)).toMatchObject({ result: { APP_REGION: 'eu' } });
    expect((JSON.parse(withheld.stdout) as { result: object }).result).not.toHaveProperty(
      'SECRET_KEY',
    );
    expect(withheld.stderr).toMatch(/exposeEnv lists "SECRET_KEY".*\$ENV leaves it out/);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({
      result: { SECRET_KEY: 'k', APP_REGION: 'eu' },
    });
    expect(allowed.stderr).toMatch(/"SECRET_KEY".*the operator allows it/);
  });

  it('plaita validate warns that the name is left out', async () => {
    const out = await cliAsync(['validate', flowFile], { cwd });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /warning secret_env_exposed exposeEnv\[0\]: .*"SECRET_KEY".*\$ENV\.SECRET_KEY reads null.*PLAITA_EXPOSE_SECRET_ENV/,
    );
  });
});
