import {
  analyzeDocument,
  analyzeDocumentSync,
  type AnalyzeDocumentOptions,
} from '../../../src/flow/analysis/analyze-document.js';
import type { FlowIssue } from '../../../src/flow/analysis/flow-issue.js';
import { defaultRegistry } from '../../../src/nodes/default-registry.js';

export function analyze(
  document: unknown,
  options: Partial<AnalyzeDocumentOptions> = {},
): Promise<FlowIssue[]> {
  return analyzeDocument(document, { registry: defaultRegistry, ...options });
}

export function analyzeSync(document: unknown): FlowIssue[] {
  return analyzeDocumentSync(document, { registry: defaultRegistry });
}

/** `severity code path` per issue: compact enough to compare whole lists. */
export function summary(issues: readonly FlowIssue[]): string[] {
  return issues.map((i) => `${i.severity} ${i.code} ${i.path}`);
}

export function withCode(issues: readonly FlowIssue[], code: string): FlowIssue[] {
  return issues.filter((i) => i.code === code);
}

/** A start → … → end flow around the given middle nodes (`start` goes to the first of them). */
export function flowOf(
  middle: Array<Record<string, unknown>>,
  extra: Record<string, unknown> = {},
) {
  const first = middle[0]?.id ?? 'end';
  return {
    flow_id: 'test',
    ...extra,
    nodes: [
      { type: 'start', id: 'start', next: first },
      ...middle,
      { type: 'end', id: 'end', output: null },
    ],
  };
}
