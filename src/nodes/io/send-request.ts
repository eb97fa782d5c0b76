import { NodeError } from '../../errors/flow-errors.js';
import { MAX_TIMER_MS } from '../../util/clock.js';
import type { HttpRequest } from './build-request.js';
import { type HostPolicy } from './host-policy.js';
import { HostPolicyError, HostResolutionError } from '../../errors/node-errors.js';
import { HttpErrorCode } from './http-error-codes.js';
import { PinnedAgent } from './pinned-agent.js';
import { readBody } from './read-body.js';
import { ResponseTooLargeError } from './read-limited-body.js';
import { nextHop } from './redirect-hop.js';
import { resolveHost } from './resolve-host.js';
import { urlForMessages, urlTextForMessages } from './url-for-messages.js';

export interface SendOptions {
  policy: HostPolicy;
  maxRedirects: number;
  /** Per hop, body included; null = no limit of its own. */
  hopTimeoutMs: number | null;
  /** Cap of the final response body in bytes, decoded (ResponseTooLargeError beyond). */
  maxResponseBytes: number;
  /** The node's signal: its abort reason is rethrown as is (timeout, cancellation). */
  signal: AbortSignal;
  /** Extra trusted certificate authority, PEM (tests). */
  ca?: string;
}

/** The final response of an exchange, body read (docs/flow-format.md §3.16 `$NODE.<id>` during `output`). */
export interface HttpResponseData {
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  data: unknown;
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Sends the request and follows redirects itself (never fetch's own following), so the host
 * policy is checked on every hop and each hop connects only to the addresses it passed.
 * Throws NodeError 1002 when the exchange cannot be completed, a final body over
 * `maxResponseBytes` included (cause: ResponseTooLargeError).
 */
export async function sendRequest(
  request: HttpRequest,
  options: SendOptions,
): Promise<HttpResponseData> {
  const agent = new PinnedAgent(options.ca === undefined ? {} : { ca: options.ca });
  try {
    let hop = request; // nextHop copies: the caller's request is never changed
    for (let redirects = 0; ; redirects++) {
      const hopTimer = new HopTimer(options.signal, options.hopTimeoutMs);
      const hopSignal = hopTimer.signal;
      const current = hop;
      try {
        const response = await failuresAsNodeErrors(current.url, options, hopSignal, () =>
          sendHop(agent, current, options.policy, hopSignal),
        );
        const next = redirectTarget(response, current.url);
        if (next === null)
          return await failuresAsNodeErrors(current.url, options, hopSignal, () =>
            toResponseData(response, current, options.maxResponseBytes),
          );
        await response.body?.cancel().catch(() => undefined);
        if (redirects >= options.maxRedirects)
          notCompleted(
            `too many redirects: more than ${options.maxRedirects} (last to ${urlForMessages(next)})`,
          );
        hop = nextHop(current, response.status, next);
      } finally {
        hopTimer.clear();
      }
    }
  } finally {
    await agent.destroy();
  }
}

/**
 * The hop's signal: aborted by the node's signal or by the hop's own timer. A plain timer and
 * listener rather than AbortSignal.any + AbortSignal.timeout, whose timeout source Node 20 may
 * garbage-collect before it fires (nodejs/node#57736): the hop would then never time out.
 */
class HopTimer {
  readonly #controller = new AbortController();
  readonly #parent: AbortSignal;
  readonly #timer: NodeJS.Timeout | undefined;
  readonly #onNodeAbort = (): void => this.#controller.abort(this.#parent.reason);

  constructor(parent: AbortSignal, timeoutMs: number | null) {
    this.#parent = parent;
    // Past 2^31 - 1 ms (≈ 24.8 days) a timer fires at once: a bound that long is no bound.
    if (timeoutMs === null || timeoutMs > MAX_TIMER_MS) {
      this.#timer = undefined;
      return;
    }
    if (this.#parent.aborted) this.#onNodeAbort();
    else this.#parent.addEventListener('abort', this.#onNodeAbort, { once: true });
    this.#timer = setTimeout(() => {
      this.#controller.abort(new DOMException('the hop timed out', 'TimeoutError'));
    }, timeoutMs);
  }

  get signal(): AbortSignal {
    return this.#timer === undefined ? this.#parent : this.#controller.signal;
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#parent.removeEventListener('abort', this.#onNodeAbort);
  }
}

async function sendHop(
  agent: PinnedAgent,
  hop: HttpRequest,
  policy: HostPolicy,
  signal: AbortSignal,
): Promise<Response> {
  policy.checkScheme(hop.url);
  const addresses = await untilAborted(resolveHost(hop.url.hostname), signal);
  agent.pin(hop.url.hostname, policy.check(hop.url, addresses));
  return fetch(hop.url, {
    method: hop.method,
    headers: hop.headers,
    body: hop.body,
    redirect: 'manual',
    signal,
    // Node 20's global fetch accepts an undici@7 Agent; the cast bridges the two type packages.
    dispatcher: agent.dispatcher as unknown as NonNullable<RequestInit['dispatcher']>,
  });
}

/** The next URL when the response is a redirect with a Location, else null (a final response). */
function redirectTarget(response: Response, current: URL): URL | null {
  if (!REDIRECT_STATUSES.has(response.status)) return null;
  const location = response.headers.get('location');
  if (location === null || location === '') return null;
  try {
    return new URL(location, current);
  } catch {
    return notCompleted(
      `redirect from ${urlForMessages(current)} to an invalid URL "${urlTextForMessages(location)}"`,
    );
  }
}

async function toResponseData(
  response: Response,
  request: HttpRequest,
  maxResponseBytes: number,
): Promise<HttpResponseData> {
  const headers: Record<string, string> = {};
  for (const name of new Set(response.headers.keys()))
    headers[name] = response.headers.get(name) ?? '';
  const data = await readBody(response, request, maxResponseBytes);
  return { status: response.status, statusText: response.statusText, headers, data };
}

/**
 * Maps failures of one step to 1002, except the node's own abort (timeout, cancellation),
 * whose reason propagates untouched so the engine applies the node's timeout handling.
 */
async function failuresAsNodeErrors<T>(
  url: URL,
  options: SendOptions,
  hopSignal: AbortSignal,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    if (error instanceof NodeError) throw error;
    if (error instanceof HostPolicyError || error instanceof HostResolutionError)
      notCompleted(`request to ${urlForMessages(url)} refused: ${error.message}`, error);
    if (error instanceof ResponseTooLargeError) notCompleted(error.message, error);
    if (hopSignal.aborted) {
      // Only the per-hop timer can have fired: the node's own signal was checked above.
      notCompleted(
        `request to ${urlForMessages(url)} timed out after ${(options.hopTimeoutMs ?? 0) / 1000}s (requestTimeout)`,
        error,
      );
    }
    return notCompleted(
      `request to ${urlForMessages(url)} failed: ${describeNetworkError(error)}`,
      error,
    );
  }
}

/** DNS lookups cannot be cancelled; stop waiting for one when the hop is aborted. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** fetch reports network failures as `TypeError: fetch failed` with the real error as cause. */
function describeNetworkError(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' && !cause.message.includes(code)
    ? `${code}: ${cause.message}`
    : cause.message;
}

function notCompleted(message: string, cause?: unknown): never {
  throw new NodeError(
    HttpErrorCode.requestNotCompleted,
    message,
    cause === undefined ? undefined : { cause },
  );
}
