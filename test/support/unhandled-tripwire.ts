import { afterEach, expect } from 'vitest';

/**
 * Runs in every test file (vitest `setupFiles`): any promise rejected without a handler during
 * a test fails that test, so a node that starts work and forgets to handle it cannot hide.
 */
const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => {
  unhandled.push(reason);
});

/** Takes what the tripwire saw so far (for the tripwire's own test). */
export function takeUnhandledRejections(): unknown[] {
  return unhandled.splice(0);
}

afterEach(async () => {
  // A rejection is reported after the microtask queue drains: give it a turn to arrive.
  await new Promise((resolve) => setImmediate(resolve));
  const seen = unhandled.splice(0);
  expect(seen.map(String), 'unhandled promise rejections during this test').toEqual([]);
});
