import { describe, expect, it } from 'vitest';
import { defaultRegistry, parseFlow, runFlow } from '../../src/index.js';
import { silentLogger } from '../../src/util/logger.js';

/**
 * docs/flow-format.md §5.4: `$ENV` leaves out a listed name with one of the original's sensitive
 * prefixes (its `_SENSITIVE_ENV_PREFIXES`); only the operator (`limits.exposeSecretEnv`, from
 * `PLAITA_EXPOSE_SECRET_ENV`) can let a named one through, never a flow document.
 */
const env = { AWS_SECRET_ACCESS_KEY: 'aws', DB_PASSWORD: 'db', APP_REGION: 'eu' };
const document = {
  flow_id: 'secrets',
  exposeEnv: ['AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD', 'APP_REGION'],
  nodes: [
    { type: 'start', id: 'start', next: 'child' },
    {
      type: 'child',
      id: 'child',
      input: {},
      childFlow: {
        exposeEnv: ['DB_PASSWORD'],
        nodes: [
          { type: 'start', id: 's', next: 'e' },
          { type: 'end', id: 'e', output: '$ENV' },
        ],
      },
      next: 'end',
    },
    { type: 'end', id: 'end', output: { own: '$ENV', child: '$NODE.child' } },
  ],
};

describe('secret-looking exposeEnv names', () => {
  it('are left out of $ENV, in child flows too, even listed', async () => {
    expect(await runFlow(parseFlow(document), {}, { env })).toEqual({
      own: { APP_REGION: 'eu' },
      child: {},
    });
  });

  it('reach $ENV when the operator allows that exact name', async () => {
    const result = await runFlow(
      parseFlow(document),
      {},
      {
        env,
        limits: { exposeSecretEnv: ['DB_PASSWORD', 'AWS_SECRET'] },
      },
    );
    // `AWS_SECRET` is not a pattern: AWS_SECRET_ACCESS_KEY stays out.
    expect(result).toEqual({
      own: { DB_PASSWORD: 'db', APP_REGION: 'eu' },
      child: { DB_PASSWORD: 'db' },
    });
  });

  it('warn at load: left out, or exposed because the operator allows it', () => {
    const warnings = (limits: string[]): readonly string[] =>
      parseFlow(document, {
        registry: defaultRegistry.withLimits({ exposeSecretEnv: limits }),
        logger: silentLogger,
      }).warnings;
    expect(warnings([])).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /exposeEnv lists "DB_PASSWORD", which looks like a secret: \$ENV leaves it out .*PLAITA_EXPOSE_SECRET_ENV/,
        ),
      ]),
    );
    expect(warnings(['DB_PASSWORD'])).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /exposeEnv lists "DB_PASSWORD", which looks like a secret; the operator allows it, so it is visible/,
        ),
      ]),
    );
  });
});
