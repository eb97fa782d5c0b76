/**
 * The console's only door to the server: the public `/v1` API with the session cookie
 * (docs/http-api.md §5). The API key is sent once, to `POST /v1/sessions`, and never kept.
 */

export interface FieldError {
  path: string;
  message: string;
}

/** A problem answer (docs/http-api.md §3) as a thrown error: `code`, `detail` and per-field `errors`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: readonly FieldError[] = [],
    readonly requestId: string | null = null,
  ) {
    super(detail);
  }

  /** The message for one request field (`body.cron`, `query.cursor`), if the server named it. */
  field(name: string): string | undefined {
    const wanted = [name, `body.${name}`, `query.${name}`];
    return this.errors.find(
      (e) => wanted.includes(e.path) || wanted.some((w) => e.path.startsWith(`${w}.`)),
    )?.message;
  }
}

type Query = Record<string, string | number | null | undefined>;

const listeners = new Set<() => void>();

/** GETs started early (at boot, before the session answer), each taken once by `api.get`. */
const early = new Map<string, Promise<unknown>>();

/** Called when any request comes back 401: the session ended, show the sign-in form. */
export function onUnauthorized(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let payload: string | undefined;
  if (body !== undefined) {
    headers['content-type'] = contentType;
    payload = typeof body === 'string' ? body : JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(payload === undefined ? {} : { body: payload }),
    });
  } catch {
    throw new ApiError(0, 'network', 'the server cannot be reached');
  }
  if (response.status === 401 && path !== '/v1/sessions') {
    early.clear(); // answers asked for without a session are not kept for after the sign-in
    for (const l of listeners) l();
  }
  if (!response.ok) throw await problemOf(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

async function problemOf(response: Response): Promise<ApiError> {
  try {
    const problem = (await response.json()) as {
      code?: string;
      detail?: string;
      errors?: FieldError[];
      requestId?: string;
    };
    return new ApiError(
      response.status,
      problem.code ?? 'unknown',
      problem.detail ?? response.statusText,
      problem.errors ?? [],
      problem.requestId ?? null,
    );
  } catch {
    return new ApiError(response.status, 'unknown', `HTTP ${response.status}`);
  }
}

/**
 * Starts a GET now for a page about to ask for it, so its answer is not queued behind the
 * session check and the page's code: the first `api.get` of the same URL takes it. Unclaimed
 * answers are dropped after 10 s (never served stale).
 */
export function prefetch(path: string, query?: Query): void {
  const url = withQuery(path, query);
  if (early.has(url)) return;
  const answer = request('GET', url);
  answer.catch(() => undefined);
  early.set(url, answer);
  window.setTimeout(() => {
    if (early.get(url) === answer) early.delete(url);
  }, 10_000);
}

function get<T>(path: string, query?: Query): Promise<T> {
  const url = withQuery(path, query);
  const started = early.get(url);
  if (started) {
    early.delete(url);
    return started as Promise<T>;
  }
  return request<T>('GET', url);
}

/**
 * Every item of a list the page shows whole (API keys, workers: a handful, but never cut at one
 * page): follows `nextCursor`, at most `maxPages` pages, as one Page (its `nextCursor` set when
 * even those were not all).
 */
async function getAll<T>(
  path: string,
  query: Query = {},
  maxPages = 20,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const answer: { items: T[]; nextCursor: string | null } = await get(path, {
      ...query,
      limit: 500,
      cursor,
    });
    items.push(...answer.items);
    cursor = answer.nextCursor;
    if (cursor === null) break;
  }
  return { items, nextCursor: cursor };
}

export const api = {
  get,
  getAll,
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  put: <T>(path: string, body: unknown) => request<T>('PUT', path, body),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  delete: <T>(path: string) => request<T>('DELETE', path),
};

/** Path segments are user data: always encoded. */
export const seg = encodeURIComponent;

/** A readable line for any failure. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.detail;
  return error instanceof Error ? error.message : String(error);
}
