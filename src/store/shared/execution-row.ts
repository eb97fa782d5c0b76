import { decodeValue, encodeRecord } from '../../state/codec.js';
import {
  isTerminal,
  type ExecutionState,
  type ExecutionStatus,
} from '../../state/execution-state.js';
import { StateCorruptError } from '../../errors/state-errors.js';
import type { ExecutionSummary } from '../execution-store.js';
import { isStorableText } from './stored-text.js';

/**
 * The indexed columns of an execution, as every SQL store (and the memory store) keeps them.
 * Times are epoch milliseconds: integers sort and compare the same way on every backend, while
 * ISO strings with different fraction widths would not. The exact strings live in `summary`.
 */
export interface ExecutionRow {
  tenantId: string;
  executionId: string;
  flowId: string | null;
  flowVersion: string | null;
  flowHash: string | null;
  status: ExecutionStatus;
  version: number;
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
  /** Set when the status is terminal and the store has a TTL; null keeps the execution. */
  expiresAt: number | null;
  header: string;
  headerBytes: number;
  /** The {@link ExecutionSummary} through the codec: what `list` returns, without the context. */
  summary: string;
}

/** The row for `state`; `nowMs` starts the terminal TTL (0 = keep forever). */
export function executionRow(
  state: ExecutionState,
  header: string,
  headerBytes: number,
  nowMs: number,
  terminalTtlMs: number,
): ExecutionRow {
  return {
    tenantId: state.tenantId,
    executionId: state.executionId,
    flowId: state.flowId,
    flowVersion: state.flowVersion,
    flowHash: state.flowHash,
    status: state.status,
    version: state.version,
    createdAt: Date.parse(state.createdAt),
    updatedAt: Date.parse(state.updatedAt),
    endedAt: state.endedAt === null ? null : Date.parse(state.endedAt),
    expiresAt: isTerminal(state.status) && terminalTtlMs > 0 ? nowMs + terminalTtlMs : null,
    header,
    headerBytes,
    summary: encodeSummary(state),
  };
}

/**
 * The summary through the codec. Most states have no error and wait for nothing: then every
 * field is null, a count, or a string the codec writes as itself (no U+0000, no lone
 * surrogate), and one JSON.stringify gives the codec's exact text without a tagging walk.
 */
function encodeSummary(state: ExecutionState): string {
  const summary = summaryOf(state);
  return isPlainSummary(state) ? JSON.stringify(summary) : encodeRecord(summary, 'summary');
}

function isPlainSummary(state: ExecutionState): boolean {
  if (state.error !== null || state.waiting !== null) return false;
  if (!Number.isSafeInteger(state.version) || Object.is(state.version, -0)) return false;
  for (const field of SUMMARY_TEXTS) {
    const text: unknown = state[field];
    if (text !== null && (typeof text !== 'string' || !isStorableText(text))) return false;
  }
  return true;
}

const SUMMARY_TEXTS = [
  'executionId',
  'tenantId',
  'flowId',
  'flowVersion',
  'flowHash',
  'status',
  'createdAt',
  'updatedAt',
  'endedAt',
] as const;

function summaryOf(state: ExecutionState): ExecutionSummary {
  return {
    executionId: state.executionId,
    tenantId: state.tenantId,
    flowId: state.flowId,
    flowVersion: state.flowVersion,
    flowHash: state.flowHash,
    status: state.status,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    endedAt: state.endedAt,
    version: state.version,
    error: state.error,
    waiting: state.waiting,
  };
}

/** Decodes a stored summary; anything that is not one is StateCorruptError. */
export function decodeSummary(text: string): ExecutionSummary {
  const value = decodeValue(text);
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as { executionId?: unknown }).executionId !== 'string'
  ) {
    throw new StateCorruptError('invalid execution summary');
  }
  return value as ExecutionSummary;
}
