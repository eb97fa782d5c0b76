import type { z } from 'zod';
import type { commonNodeSchema, RawHandler } from './document-schema.js';
import type { CommonNodeDef, HandlerDef, HandlerStrategy } from './node-type.js';

type RawCommon = z.infer<typeof commonNodeSchema>;

export const DEFAULT_ABORT_CODE = -9527;

const HANDLER_KEYS = new Set([
  'strategy',
  'defaultValue',
  'code',
  'message',
  'retryTimes',
  'retryDelay',
  'retryBackoff',
]);

export interface NormalizeReport {
  duration(raw: unknown, field: string): number | null;
  warn(message: string): void;
}

/** docs/flow-format.md §2.1: the common fields, with handler defaults and spellings resolved. */
export function normalizeCommon(raw: RawCommon, report: NormalizeReport): CommonNodeDef {
  const errorField = raw.errorHandler ? 'errorHandler' : 'error_handler';
  const errorHandler = normalizeHandler(
    raw.errorHandler ?? raw.error_handler,
    errorField,
    DEFAULT_ABORT_CODE,
    report,
  );
  if (errorHandler.retryTimes < 0)
    report.warn(
      `${errorField}.retryTimes is negative (${errorHandler.retryTimes}): the node is never run and its result is ${errorHandler.strategy === 'continue-with' ? 'its defaultValue' : 'null'}`,
    );
  return {
    type: raw.type,
    id: String(raw.id),
    name: raw.name ?? null,
    desc: raw.desc ?? null,
    next: raw.next === undefined || raw.next === null || raw.next === '' ? null : String(raw.next),
    output: raw.output ?? null,
    timeoutMs: report.duration(raw.timeout, 'timeout'),
    errorHandler,
    timeoutHandler: normalizeHandler(
      raw.timeoutHandler ?? raw.timeout_handler,
      raw.timeoutHandler ? 'timeoutHandler' : 'timeout_handler',
      -1,
      report,
    ),
    idempotencyKey: raw.idempotencyKey ?? null,
  };
}

function normalizeHandler(
  raw: RawHandler | null | undefined,
  field: string,
  defaultCode: number,
  report: NormalizeReport,
): HandlerDef {
  const handler = raw ?? {};
  for (const key of Object.keys(handler)) {
    // Snake-case keys are ignored, as in the original (docs/flow-format.md §2.1).
    if (!HANDLER_KEYS.has(key)) report.warn(`${field}.${key} is not a handler key and is ignored`);
  }
  const strategy: HandlerStrategy =
    handler.strategy === 'continue_with' ? 'continue-with' : (handler.strategy ?? 'abort');
  return {
    strategy,
    defaultValue: handler.defaultValue ?? null,
    code: handler.code ?? defaultCode,
    message: handler.message ?? null,
    // Negative is kept: the node is then never attempted, as in the original (§7.4).
    retryTimes: handler.retryTimes ?? 0,
    retryDelayMs: report.duration(handler.retryDelay, `${field}.retryDelay`),
    retryBackoff: handler.retryBackoff ?? 1,
  };
}
