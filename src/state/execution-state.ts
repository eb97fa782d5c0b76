/**
 * The one record kept per execution (docs/durable-contract.md §1), its defaults, and the schema a loaded
 * record must satisfy. Every store keeps the same fields under the same names.
 */
import { z } from 'zod';
import { StateCorruptError } from '../errors/state-errors.js';
import type { ErrorRecord } from '../errors/plaita-error.js';
import { isPlainValidState } from './state-fast-check.js';

export const EXECUTION_STATUSES = [
  'queued',
  'running',
  'suspended',
  'completed',
  'error',
  'cancelled',
] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** A terminal record is never changed again, except by an operator `retry` of an `error`. */
export const TERMINAL_STATUSES: readonly ExecutionStatus[] = ['completed', 'error', 'cancelled'];

export function isTerminal(status: ExecutionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/**
 * Suspended, with no delivery to the waiting node under way: what a caller waiting for an
 * execution to settle stops at. A delivery counted (`waiting.resumes`) and not finished reads
 * `suspended` until the node's resume is stored.
 */
export function isWaitingQuietly(state: {
  status: ExecutionStatus;
  waiting: { resumes?: number } | null;
}): boolean {
  return state.status === 'suspended' && (state.waiting?.resumes ?? 0) === 0;
}

/** What a suspended execution waits for: an event, a timer (`dueAt`), or both. */
export interface WaitingOn {
  nodeId: string;
  eventType: string;
  filter: Record<string, unknown>;
  /** UTC ISO-8601 time the timer fires; null when only an event can wake the node. */
  dueAt: string | null;
  subscriptionId?: string;
  /**
   * Deliveries to the waiting node begun (counted in a checkpoint before the node resumes) and
   * not finished: the crash-loop guard of a resume, as `timings[node].attempts` is of a start.
   */
  resumes?: number;
  /** The visit of `nodeId` that waits: its timers and subscription are this visit's. */
  visit?: number;
  /**
   * What fires at `dueAt`: a `delay` (delivered as the node's event) or a `timeout`. Records
   * written before the wait kept it have neither field: the engine derives them from the flow.
   */
  timer?: 'delay' | 'timeout' | null;
  /** A `delay` timer's event fields beyond the common ones (the node type's declaration). */
  timerData?: Record<string, unknown> | null;
}

export interface NodeTiming {
  startedAt: string;
  endedAt: string | null;
  attempts: number;
  durationMs: number | null;
}

/** An event received before the node that waits for it suspended (docs/durable-contract.md §5 step 4). */
export interface InboxEvent {
  eventId: string;
  type: string;
  data: unknown;
  receivedAt: string;
}

export interface ExecutionState {
  /** Never contains `:` (store keys are built from it). */
  executionId: string;
  flowId: string | null;
  flowVersion: string | null;
  /** SHA-256 of the canonical JSON of the definition actually started. */
  flowHash: string | null;
  tenantId: string;
  status: ExecutionStatus;
  /** The checkpoint: `$INPUT`, `$NODE`, `$GLOBAL`, `$LAST_NODE`, ... (docs/flow-format.md §6.6). */
  context: Record<string, unknown>;
  waiting: WaitingOn | null;
  /** The end node's output, when completed. */
  result: unknown;
  error: ErrorRecord | null;
  /** Per node id: how many times it was started in this execution (crash-loop guard). */
  attempts: Record<string, number>;
  timings: Record<string, NodeTiming>;
  inbox: InboxEvent[];
  /** The most recent applied event ids, oldest first, at most {@link MAX_APPLIED_EVENT_IDS}. */
  appliedEventIds: string[];
  /** Operator retries used so far (bounded by `maxManualRetries`). */
  manualRetries: number;
  dedupKey: string | null;
  parentExecutionId: string | null;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
  /** Write counter: incremented by every save. */
  version: number;
}

/** Every field, in the order the codec writes them (`context` last: it is the bulky one). */
export const EXECUTION_STATE_FIELDS = [
  'executionId',
  'tenantId',
  'flowId',
  'flowVersion',
  'flowHash',
  'status',
  'version',
  'createdAt',
  'updatedAt',
  'endedAt',
  'parentExecutionId',
  'dedupKey',
  'waiting',
  'result',
  'error',
  'attempts',
  'timings',
  'manualRetries',
  'appliedEventIds',
  'inbox',
  'context',
] as const satisfies readonly (keyof ExecutionState)[];

// Compile-time check that the list above names every field.
type UnlistedField = Exclude<keyof ExecutionState, (typeof EXECUTION_STATE_FIELDS)[number]>;
const _allFieldsListed: [UnlistedField] extends [never] ? true : never = true;

export const MAX_APPLIED_EVENT_IDS = 1000;

/** Appends `eventId` to the bounded list of applied ids, dropping the oldest beyond the bound. */
export function rememberAppliedEventId(
  ids: readonly string[],
  eventId: string,
  limit = MAX_APPLIED_EVENT_IDS,
): string[] {
  const next = [...ids, eventId];
  return next.length > limit ? next.slice(next.length - limit) : next;
}

export function isValidExecutionId(id: unknown): id is string {
  return typeof id === 'string' && id !== '' && !id.includes(':');
}

const isoTime = z.iso.datetime();
const count = z.number().int().nonnegative();

const errorRecordSchema = z.object({
  code: z.union([z.string(), z.number(), z.null()]),
  name: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  node: z.string().nullable().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

/** What a stored record must satisfy. Used for validation only: see {@link parseExecutionState}. */
export const executionStateSchema = z.object({
  executionId: z.string().refine(isValidExecutionId, 'must be a non-empty string without ":"'),
  flowId: z.string().nullable(),
  flowVersion: z.string().nullable(),
  flowHash: z.string().nullable(),
  tenantId: z.string().min(1),
  status: z.enum(EXECUTION_STATUSES),
  context: z.record(z.string(), z.unknown()),
  waiting: z
    .object({
      nodeId: z.string(),
      eventType: z.string(),
      filter: z.record(z.string(), z.unknown()),
      dueAt: isoTime.nullable(),
      subscriptionId: z.string().optional(),
      resumes: count.optional(),
      visit: count.optional(),
      timer: z.enum(['delay', 'timeout']).nullable().optional(),
      timerData: z.record(z.string(), z.unknown()).nullable().optional(),
    })
    .nullable(),
  result: z.unknown(),
  error: errorRecordSchema.nullable(),
  attempts: z.record(z.string(), count),
  timings: z.record(
    z.string(),
    z.object({
      startedAt: isoTime,
      endedAt: isoTime.nullable(),
      attempts: count,
      durationMs: z.number().nonnegative().nullable(),
    }),
  ),
  inbox: z.array(
    z.object({ eventId: z.string(), type: z.string(), data: z.unknown(), receivedAt: isoTime }),
  ),
  appliedEventIds: z.array(z.string()),
  manualRetries: count,
  dedupKey: z.string().nullable(),
  parentExecutionId: z.string().nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
  endedAt: isoTime.nullable(),
  version: count,
});

/** One problem found by {@link findStateIssue}: where (`status`, `inbox[0].eventId`) and what. */
export interface StateIssue {
  path: string;
  message: string;
}

/** The first schema violation of `value` as an execution state, or undefined when it is valid. */
export function findStateIssue(value: unknown): StateIssue | undefined {
  // Every save and load validates a state: the hand-written check clears a valid one at a
  // fraction of zod's cost. It only ever says "valid" when zod would too; anything it is
  // unsure of goes to zod, which finds (and names) the issue exactly as before.
  if (isPlainValidState(value)) return undefined;
  const parsed = executionStateSchema.safeParse(value);
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  return issue && { path: formatIssuePath(issue.path), message: issue.message };
}

function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, step) =>
      typeof step === 'number' ? `${out}[${step}]` : out ? `${out}.${String(step)}` : String(step),
    '',
  );
}

/**
 * Checks a decoded record and returns it as an `ExecutionState` (the known fields only;
 * values are not copied). A record that fails the schema is corrupt: `StateCorruptError`
 * naming the first offending field.
 */
export function parseExecutionState(value: unknown): ExecutionState {
  const issue = findStateIssue(value);
  if (issue !== undefined) {
    throw new StateCorruptError(
      `invalid execution state: ${issue.path || '(record)'}: ${issue.message}`,
    );
  }
  // Picked from the input rather than taken from zod's output, which silently drops record
  // keys named `__proto__` (a valid node id).
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    EXECUTION_STATE_FIELDS.map((field) => [field, record[field]]),
  ) as unknown as ExecutionState;
}

export type NewExecutionStateInit = Pick<ExecutionState, 'executionId'> & {
  [K in Exclude<keyof ExecutionState, 'executionId'>]?: ExecutionState[K] | undefined;
};

/** A valid state with defaults: tenant `default`, status `queued`, empty context, version 0. */
export function newExecutionState(init: NewExecutionStateInit): ExecutionState {
  if (!isValidExecutionId(init.executionId)) {
    throw new RangeError(
      `executionId must be a non-empty string without ":", got ${JSON.stringify(init.executionId)}`,
    );
  }
  const now = new Date().toISOString();
  const state: ExecutionState = {
    executionId: init.executionId,
    tenantId: 'default',
    flowId: null,
    flowVersion: null,
    flowHash: null,
    status: 'queued',
    version: 0,
    createdAt: now,
    updatedAt: init.createdAt ?? now,
    endedAt: null,
    parentExecutionId: null,
    dedupKey: null,
    waiting: null,
    result: null,
    error: null,
    attempts: {},
    timings: {},
    manualRetries: 0,
    appliedEventIds: [],
    inbox: [],
    context: {},
  };
  return { ...state, ...definedFields(init) };
}

function definedFields(init: NewExecutionStateInit): Partial<ExecutionState> {
  return Object.fromEntries(Object.entries(init).filter(([, value]) => value !== undefined));
}
