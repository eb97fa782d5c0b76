import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    setupFiles: ['test/support/unhandled-tripwire.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration files start real servers and processes; keep parallelism modest on 2-core CI.
    maxWorkers: 2,
    env: { PLAITA_LOG_LEVEL: process.env.PLAITA_LOG_LEVEL ?? 'silent' },
  },
});
