import { describe, expect, it } from 'vitest';
import { flowEnvFromEnv, flowEnvNote } from '../../src/cli/flow-env.js';

const env = {
  PLAITA_STORE: 'postgres://app:secret@db/app',
  PLAITA_REDIS_URL: 'redis://:secret@cache',
  APP_TOKEN: 'a',
  PARTNER_KEY: 'p',
  PARTNER_URL: 'u',
  HOME: '/root',
};

describe('the environment flows of worker and serve see', () => {
  it('by default none of the host’s variables: any tenant’s operator can send a flow', () => {
    expect(flowEnvFromEnv(env)).toEqual({});
    expect(flowEnvNote(env)).toContain('flows read no host variable');
  });

  it('`*`: every variable but the runtime’s own PLAITA_* settings', () => {
    expect(flowEnvFromEnv({ ...env, PLAITA_FLOW_ENV: '*' })).toEqual({
      APP_TOKEN: 'a',
      PARTNER_KEY: 'p',
      PARTNER_URL: 'u',
      HOME: '/root',
    });
  });

  it('a PLAITA_* setting is never visible, even named', () => {
    expect(flowEnvFromEnv({ ...env, PLAITA_FLOW_ENV: 'PLAITA_STORE,PLAITA_*,APP_TOKEN' })).toEqual({
      APP_TOKEN: 'a',
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
