import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/server/api-app.js';
import { silentLogger } from '../../src/util/logger.js';
import { API_TYPES_PATH, apiTypesSource } from '../../scripts/api-types.mjs';
import { memoryBackends } from '../server/support/api-harness.js';
import { ROOT } from './support/console-server.js';

/**
 * The console's API types are generated from the server's /openapi.json (scripts/api-types.mjs,
 * run by `npm run build`, which then type-checks the console against them): the committed file
 * must be what the server's schemas give today, so the console cannot drift from the API.
 */
describe('console API types', () => {
  const backends = memoryBackends();
  afterAll(() => backends.close?.());

  it(`${API_TYPES_PATH} is generated from the current /openapi.json`, async () => {
    const app = createApiApp({ ...backends, logger: silentLogger });
    const answer = await app.request('/openapi.json');
    expect(answer.status).toBe(200);
    const fresh = await apiTypesSource(await answer.json());
    const committed = readFileSync(join(ROOT, API_TYPES_PATH), 'utf8');
    expect(
      committed === fresh,
      `${API_TYPES_PATH} is stale: run \`npm run build\` (scripts/generate-api-types.mjs) and commit it`,
    ).toBe(true);
  });
});
