import { expect, it } from 'vitest';
import { takeUnhandledRejections } from './unhandled-tripwire.js';

// The tripwire itself: a rejection nobody handles must be seen by the process listener the
// setup file installs (if this ever stops being true, the setup file protects nothing).
it('an unhandled rejection reaches the suite-wide tripwire listener', async () => {
  const seen: unknown[] = [];
  const listener = (reason: unknown): void => void seen.push(reason);
  process.on('unhandledRejection', listener);
  try {
    const handledLater = Promise.reject(new Error('nobody listens'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toHaveLength(1);
    expect(takeUnhandledRejections().map(String)).toEqual(['Error: nobody listens']);
    handledLater.catch(() => undefined);
  } finally {
    process.off('unhandledRejection', listener);
  }
});
