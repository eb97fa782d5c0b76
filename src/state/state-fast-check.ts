/**
 * A hand-written check that an execution state satisfies `executionStateSchema`, for the hot
 * path (every save validates its state, every load the decoded record). It is conservative:
 * `true` only when zod would accept the value too; `false` means "not sure", and the caller
 * then asks zod, which reports the exact issue. So it never changes a verdict, only its cost.
 */
import { parseIsoTimestamp } from './iso-timestamp.js';

type Fields = Record<string, unknown>;

const STATUSES: ReadonlySet<unknown> = new Set([
  'queued',
  'running',
  'suspended',
  'completed',
  'error',
  'cancelled',
]);

export function isPlainValidState(value: unknown): boolean {
  if (!isObject(value)) return false;
  const s = value as Fields;
  const id = s.executionId;
  return (
    typeof id === 'string' &&
    id !== '' &&
    !id.includes(':') &&
    isNullableString(s.flowId) &&
    isNullableString(s.flowVersion) &&
    isNullableString(s.flowHash) &&
    typeof s.tenantId === 'string' &&
    s.tenantId !== '' &&
    STATUSES.has(s.status) &&
    isRecord(s.context) &&
    (s.waiting === null || isWaiting(s.waiting)) &&
    (s.error === null || isErrorRecord(s.error)) &&
    isRecordOf(s.attempts, isCount) &&
    isRecordOf(s.timings, isTiming) &&
    isArrayOf(s.inbox, isInboxEvent) &&
    isArrayOf(s.appliedEventIds, isString) &&
    isCount(s.manualRetries) &&
    isNullableString(s.dedupKey) &&
    isNullableString(s.parentExecutionId) &&
    isIsoTime(s.createdAt) &&
    isIsoTime(s.updatedAt) &&
    (s.endedAt === null || isIsoTime(s.endedAt)) &&
    isCount(s.version)
  );
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What `z.record` accepts, narrowed: an object with the plain or null prototype and no own
 * `constructor` (zod inspects that) and no symbol keys (zod validates those as keys).
 */
function isRecord(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (
    (proto === Object.prototype || proto === null) &&
    !Object.hasOwn(value, 'constructor') &&
    Object.getOwnPropertySymbols(value).length === 0
  );
}

function isRecordOf(value: unknown, item: (v: unknown) => boolean): boolean {
  if (!isRecord(value)) return false;
  const record = value as Fields;
  for (const key in record) if (Object.hasOwn(record, key) && !item(record[key])) return false;
  return true;
}

function isArrayOf(value: unknown, item: (v: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!item(value[i])) return false;
  return true;
}

const isString = (value: unknown): boolean => typeof value === 'string';

function isNullableString(value: unknown): boolean {
  return value === null || typeof value === 'string';
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

// The canonical `toISOString` form: a subset of what `z.iso.datetime()` accepts.
const ISO_FORM = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function isIsoTime(value: unknown): boolean {
  return (
    typeof value === 'string' && ISO_FORM.test(value) && parseIsoTimestamp(value) !== undefined
  );
}

function isWaiting(value: unknown): boolean {
  if (!isObject(value)) return false;
  const w = value as Fields;
  return (
    typeof w.nodeId === 'string' &&
    typeof w.eventType === 'string' &&
    isRecord(w.filter) &&
    (w.dueAt === null || isIsoTime(w.dueAt)) &&
    (w.subscriptionId === undefined || typeof w.subscriptionId === 'string')
  );
}

function isErrorRecord(value: unknown): boolean {
  if (!isObject(value)) return false;
  const e = value as Fields;
  const code = e.code;
  return (
    (code === null || typeof code === 'string' || Number.isFinite(code)) &&
    typeof e.name === 'string' &&
    typeof e.message === 'string' &&
    typeof e.retryable === 'boolean' &&
    (e.node === undefined || isNullableString(e.node)) &&
    (e.details === undefined || isRecord(e.details))
  );
}

function isTiming(value: unknown): boolean {
  if (!isObject(value)) return false;
  const t = value as Fields;
  const duration = t.durationMs;
  return (
    isIsoTime(t.startedAt) &&
    (t.endedAt === null || isIsoTime(t.endedAt)) &&
    isCount(t.attempts) &&
    (duration === null || (Number.isFinite(duration) && (duration as number) >= 0))
  );
}

function isInboxEvent(value: unknown): boolean {
  if (!isObject(value)) return false;
  const e = value as Fields;
  return (
    typeof e.eventId === 'string' &&
    typeof e.type === 'string' &&
    isIsoTime(e.receivedAt)
  );
}
