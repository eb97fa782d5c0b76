/**
 * How long the first operation of a store or queue waits for an unreachable server before it
 * rejects with StoreUnavailableError, when the caller sets nothing (docs/public-surface.md: 5000 ms).
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
