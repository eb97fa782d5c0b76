import { describe, expect, it } from 'vitest';
import { flowEnvFromEnv } from '../../src/cli/flow-env.js';

const env = {
  PLAITA_STORE: 'postgres://app:secret@db/app',
  PLAITA_REDIS_URL: 'redis://:secret@cache',
  APP_TOKEN: 'a',
  PARTNER_KEY: 'p',
  PARTNER_URL: 'u',
  HOME: '/root',
};

describe('the environment flows of worker and serve see', () => {
  it('by default: everything but the runtime’s own PLAITA_* settings', () => {
    expect(flowEnvFromEnv(env)).toEqual({
      APP_TOKEN: 'a',
      PARTNER_KEY: 'p',
      PARTNER_URL: 'u',
      HOME: '/root',
    });
  });

  it('PLAITA_FLOW_ENV: only the names and NAME* prefixes listed, or none', () => {
    expect(flowEnvFromEnv({ ...env, PLAITA_FLOW_ENV: 'APP_TOKEN, PARTNER_*' })).toEqual({
      APP_TOKEN: 'a',
      PARTNER_KEY: 'p',
      PARTNER_URL: 'u',
    });
    expect(flowEnvFromEnv({ ...env, PLAITA_FLOW_ENV: 'none' })).toEqual({});
  });

  it('a malformed list is a usage error naming the variable', () => {
    expect(() => flowEnvFromEnv({ ...env, PLAITA_FLOW_ENV: 'APP-TOKEN' })).toThrow(
      /PLAITA_FLOW_ENV=.*"APP-TOKEN" is not a variable name/,
    );
  });
});
