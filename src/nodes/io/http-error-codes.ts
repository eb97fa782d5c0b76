/** docs/flow-format.md §3.16: the http node's NodeError codes, surfaced as `cause.code` (§7.1). */
export const HttpErrorCode = {
  /** The request could not be built: an expression failed, the URL is invalid. */
  requestNotBuilt: 1001,
  /** The request could not be completed: policy, DNS, connect, TLS, timeout, redirects. */
  requestNotCompleted: 1002,
  /** The response could not be handled, or `failOnStatus` saw a 4xx/5xx. */
  responseNotHandled: 1003,
} as const;
