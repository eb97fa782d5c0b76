import { type ErrorRecord, toErrorRecord } from '../errors/plaita-error.js';
import type { Delivery } from '../queue/task-queue.js';
import { getOwn } from '../util/own-record.js';
import type { Decision, ExecutionErrorCode, HandlingResult } from './decide.js';
import type { FencedWriter } from './fenced-writer.js';
import type { WorkerDeps } from './worker-deps.js';

/**
 * What becomes of a handled message once its outcome is durable, as the decision says:
 * acknowledged, dead-lettered (with why), requeued after a short delay, or left alone.
 */
export async function settleMessage(
  deps: Pick<WorkerDeps, 'queue' | 'metrics' | 'settings'>,
  delivery: Delivery,
  decision: Decision,
  result: HandlingResult,
): Promise<void> {
  const { queue, metrics } = deps;
  switch (decision.action) {
    case 'ack':
      await queue.ack(delivery);
      break;
    case 'dead_letter':
      await queue.deadLetter(delivery, decision.reason ?? 'unknown', describe(result));
      metrics?.deadLetters.inc({ reason: decision.reason ?? 'unknown' });
      break;
    case 'requeue':
      if (delivery.parsed.ok)
        await queue.enqueue(delivery.parsed.message, { delayMs: deps.settings.conflictDelayMs });
      await queue.ack(delivery);
      break;
    case 'leave':
    case 'abandon':
      break;
  }
}

/** The terminal error the decision table chose, named after what happened and where. */
export function errorRecord(
  code: ExecutionErrorCode,
  result: HandlingResult,
  writer: FencedWriter,
): ErrorRecord {
  const failure = result.kind === 'failure' ? toErrorRecord(result.error) : null;
  const details = failure?.details;
  const record: ErrorRecord = {
    code,
    name: failure?.name ?? code,
    message:
      failure?.message ??
      (result.kind === 'crash_loop'
        ? `node '${result.nodeId}' was started ${getOwn(writer.state.timings, result.nodeId)?.attempts ?? '?'} times without finishing`
        : code),
    retryable: false,
    ...(details ? { details } : {}),
  };
  const node = result.kind === 'crash_loop' ? result.nodeId : writer.failedNode;
  if (node) record.node = node;
  return record;
}

/** What a dead letter says about the handling that gave up on its message. */
function describe(result: HandlingResult): string | null {
  switch (result.kind) {
    case 'malformed':
      return result.reason;
    case 'failure':
      return result.error instanceof Error
        ? `${result.error.name}: ${result.error.message}`
        : String(result.error);
    default:
      return result.kind;
  }
}
