/**
 * A hand-written check that an execution state satisfies `executionStateSchema`, for the hot
 * path (every save validates its state, every load the decoded record). It is conservative:
 * `true` only when zod would accept the value too; `false` means "not sure", and the caller
 * then asks zod, which reports the exact issue. So it never changes a verdict, only its cost.
 */

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
    // zod wants `z.unknown()` fields present, even when undefined.
    'result' in s &&
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

/**
 * The canonical `toISOString` form of a real date, years 0000-9999
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`): a subset of what `z.iso.datetime()` accepts, read without a
 * regex or a Date (a save checks two or three of these).
 */
function isIsoTime(value: unknown): boolean {
  if (typeof value !== 'string' || value.length !== 24) return false;
  for (let i = 0; i < 24; i++) {
    const code = value.charCodeAt(i);
    const want = ISO_SHAPE.charCodeAt(i);
    if (want === DIGIT ? code < 48 || code > 57 : code !== want) return false;
  }
  const year = number(value, 0, 4);
  const month = number(value, 5, 2);
  const day = number(value, 8, 2);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return (
    day >= 1 &&
    day <= days &&
    number(value, 11, 2) < 24 &&
    number(value, 14, 2) < 60 &&
    number(value, 17, 2) < 60
  );
}

const ISO_SHAPE = 'dddd-dd-ddTdd:dd:dd.dddZ';
const DIGIT = 'd'.charCodeAt(0);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number spelled by `count` ASCII digits (already checked) from `from`. */
function number(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

function isWaiting(value: unknown): boolean {
  if (!isObject(value)) return false;
  const w = value as Fields;
  return (
    typeof w.nodeId === 'string' &&
    typeof w.eventType === 'string' &&
    isRecord(w.filter) &&
    (w.dueAt === null || isIsoTime(w.dueAt)) &&
    (w.subscriptionId === undefined || typeof w.subscriptionId === 'string') &&
    (w.resumes === undefined || isCount(w.resumes)) &&
    (w.visit === undefined || isCount(w.visit)) &&
    (w.timer === undefined || w.timer === null || w.timer === 'delay' || w.timer === 'timeout') &&
    (w.timerData === undefined || w.timerData === null || isRecord(w.timerData))
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
    'data' in e &&
    isIsoTime(e.receivedAt)
  );
}
