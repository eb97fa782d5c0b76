import type { ExecutionState } from '../state/execution-state.js';
import { isTerminal, isWaitingQuietly } from '../state/execution-state.js';
import { ParseCache } from '../expression/parse-cache.js';
import type { ControlStore } from '../store/control-store.js';
import type { ApiServices } from './api-services.js';
import {
  executionView,
  type ExecutionLineage,
  type ExecutionView,
  type LeaseView,
} from './execution-view.js';
import { ApiProblem } from './problem.js';

/** The execution of this tenant, or 404 (another tenant's execution is 404 too, never 403). */
export async function loadExecution(
  services: ApiServices,
  tenantId: string,
  id: string,
): Promise<ExecutionState> {
  const state = await services.store.load(id, { tenantId });
  if (!state) throw new ApiProblem('not_found', `no execution ${id}`);
  return state;
}

/** What a view of an execution reads: its lease, its pinned flow, what it replays or reruns. */
type ViewReads = Pick<ApiServices, 'store' | 'resolver' | 'control'>;

/** The whole view, with node types from the pinned definition (absent: types are null). */
export async function viewOf(
  services: ViewReads,
  read: ExecutionState,
  { readAgainIfReleased = true }: { readAgainIfReleased?: boolean } = {},
): Promise<ExecutionView> {
  const { state, lease } = await withLease(services, read, readAgainIfReleased);
  const flow = await services.resolver
    .byHash(state.flowHash, { tenantId: state.tenantId })
    .catch(() => null);
  return executionView(state, flow, await lineageOf(services.control, state), lease);
}

/**
 * A running execution's lease: who runs it now, or null when no worker does (a crash, a
 * shutdown cut off, a store outage: it waits for its message to come back). Read after the
 * state, so a lease released meanwhile by a worker that moved the execution on would read as
 * none: then the state is read again and the newer one shown.
 */
async function withLease(
  services: ViewReads,
  state: ExecutionState,
  readAgainIfReleased: boolean,
): Promise<{ state: ExecutionState; lease?: LeaseView | null }> {
  if (state.status !== 'running') return { state };
  const lease = await leaseOf(services, state);
  if (lease !== null || !readAgainIfReleased) return { state, lease };
  const again = await services.store.load(state.executionId, { tenantId: state.tenantId });
  if (again === null || again.version === state.version) return { state, lease };
  return again.status === 'running'
    ? { state: again, lease: await leaseOf(services, again) }
    : { state: again };
}

async function leaseOf(services: ViewReads, state: ExecutionState): Promise<LeaseView | null> {
  const lease = await services.store.getLease(state.executionId, { tenantId: state.tenantId });
  return lease && { owner: lease.owner, expiresAt: iso(lease.expiresAt) };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * What an execution replays or reruns, remembered per control store: the record is written
 * BEFORE its execution exists (replay-execution.ts, rerun-execution.ts), so once the execution
 * is read its answer never changes; `createdAt` in the key tells a re-created execution of the
 * same id apart. It saves every GET of an execution a read of the control store.
 */
const lineages = new WeakMap<ControlStore, ParseCache<ExecutionLineage | null>>();

async function lineageOf(
  control: ControlStore,
  state: ExecutionState,
): Promise<ExecutionLineage | null> {
  let cache = lineages.get(control);
  if (!cache) lineages.set(control, (cache = new ParseCache(10_000, Infinity, 512)));
  const key = `${state.tenantId}\u0000${state.executionId}\u0000${state.createdAt}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const meta = await control.get<ExecutionLineage>({
    collection: 'execution_meta',
    tenant: state.tenantId,
    id: state.executionId,
  });
  const answer = meta?.doc ?? null;
  cache.set(key, answer);
  return answer;
}

/**
 * Holds until the execution settles — terminal, or waiting for an event that came after
 * `sinceVersion` — the wait ends, or one of `until` is aborted (the client left, the server
 * drains); returns the state as it is then.
 */
export async function waitToSettle(
  services: ApiServices,
  state: ExecutionState,
  waitMs: number,
  sinceVersion = 0,
  until: readonly AbortSignal[] = [],
): Promise<ExecutionState> {
  const deadline = Date.now() + waitMs;
  let current = state;
  for (let pause = 10; ; pause = Math.min(pause * 2, 100)) {
    if (isTerminal(current.status) || (isWaitingQuietly(current) && current.version > sinceVersion))
      return current;
    if (Date.now() >= deadline || until.some((signal) => signal.aborted)) return current;
    await pauseFor(Math.min(pause, Math.max(1, deadline - Date.now())), until);
    if (until.some((signal) => signal.aborted)) return current;
    current =
      (await services.store.load(current.executionId, { tenantId: current.tenantId })) ?? current;
  }
}

function pauseFor(ms: number, until: readonly AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      for (const signal of until) signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const signal of until) signal.addEventListener('abort', done, { once: true });
  });
}
