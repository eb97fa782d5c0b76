import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Packing and installing takes 10–20 s and the npm cache: in CI, or when asked for. */
const enabled = process.env.CI === 'true' || process.env.PLAITA_CHECK_PACK === '1';

describe.skipIf(!enabled)('the packed tarball (scripts/check-pack.mjs)', () => {
  it('installs into an empty project with --omit=peer, compiles nothing, and runs runFlow', () => {
    const run = spawnSync(process.execPath, ['scripts/check-pack.mjs'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout).toMatch(/^ok: runFlow printed Ada/m);
  }, 150_000);
});
