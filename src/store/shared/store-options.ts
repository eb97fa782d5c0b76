import { DEFAULT_MAX_STATE_BYTES } from '../../state/codec.js';
import { type Clock, systemClock } from '../../util/clock.js';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_TERMINAL_TTL_MS,
  type ExecutionStoreOptions,
} from '../execution-store.js';

/** {@link ExecutionStoreOptions} with every default filled in. */
export interface ResolvedStoreOptions {
  terminalTtlMs: number;
  maxStateBytes: number;
  connectTimeoutMs: number;
  clock: Clock;
}

/** Fills in the defaults; a negative or fractional value is a programming error (RangeError). */
export function resolveStoreOptions(options: ExecutionStoreOptions = {}): ResolvedStoreOptions {
  return {
    terminalTtlMs: checked('terminalTtlMs', options.terminalTtlMs ?? DEFAULT_TERMINAL_TTL_MS, 0),
    maxStateBytes: checked('maxStateBytes', options.maxStateBytes ?? DEFAULT_MAX_STATE_BYTES, 1),
    connectTimeoutMs: checked(
      'connectTimeoutMs',
      options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      1,
    ),
    clock: options.clock ?? systemClock,
  };
}

function checked(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}, got ${String(value)}`);
  }
  return value;
}
