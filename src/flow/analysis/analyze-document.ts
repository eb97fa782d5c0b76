import { FlowDefinitionError } from '../../errors/flow-definition-errors.js';
import { isRecord } from '../../expression/value-kind.js';
import type { Flow } from '../flow.js';
import { isLoadedFlow, loadFlowDocument } from '../load-flow.js';
import type { NodeTypeLookup } from '../node-type-lookup.js';
import { parseDocumentText } from '../parse-document.js';
import { analyzeFlow, analyzeFlowSync, type AnalyzeOptions } from './analyze-flow.js';
import { type FlowIssue, ISSUE_CODES, type IssueCode } from './flow-issue.js';

export interface AnalyzeDocumentOptions extends AnalyzeOptions {
  /**
   * The node types the flow may use, as given to parseFlow (the CLI's, with plugins). Required
   * here because flow/ sits below nodes/: pass `defaultRegistry` for the built-ins.
   */
  registry: NodeTypeLookup;
}

export type AnalyzeDocumentSyncOptions = Omit<AnalyzeDocumentOptions, 'flowExists'>;

/**
 * One entry point for callers holding a document: JSON or YAML text, a parsed object, or a
 * loaded Flow. A document that does not load gives its definition errors as issues (the
 * analysis of the rest needs a loaded flow); one that loads is analysed. Never throws.
 */
export async function analyzeDocument(
  document: unknown,
  options: AnalyzeDocumentOptions,
): Promise<FlowIssue[]> {
  const loaded = load(document, options.registry);
  return 'flow' in loaded ? analyzeFlow(loaded.flow, options) : loaded.issues;
}

export function analyzeDocumentSync(
  document: unknown,
  options: AnalyzeDocumentSyncOptions,
): FlowIssue[] {
  const loaded = load(document, options.registry);
  return 'flow' in loaded ? analyzeFlowSync(loaded.flow, options) : loaded.issues;
}

function load(
  document: unknown,
  registry: NodeTypeLookup,
): { flow: Flow } | { issues: FlowIssue[] } {
  let parsed: unknown;
  try {
    if (isLoadedFlow(document)) return { flow: document };
    parsed = typeof document === 'string' ? parseDocumentText(document) : document;
    return { flow: loadFlowDocument(parsed, { registry }) };
  } catch (error) {
    if (error instanceof FlowDefinitionError) {
      return {
        issues: error.issues.map((issue) => ({
          severity: 'error',
          // The loader's more precise reason when it has one it may report (ISSUE_CODES).
          code: knownCode(issue.code) ?? 'definition_error',
          path: issue.path,
          nodeId: nodeIdAt(parsed, issue.path),
          message: issue.message,
        })),
      };
    }
    return {
      issues: [
        {
          severity: 'error',
          code: 'analysis_failed',
          path: '',
          nodeId: null,
          message: `the document could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
        },
      ],
    };
  }
}

/** The id of the innermost node a path like `nodes[3].childFlow.nodes[1].output` points into. */
export function nodeIdAt(document: unknown, path: string): string | null {
  let current: unknown = document;
  let previous: string | number | undefined;
  let id: string | null = null;
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    const key = match[2] === undefined ? (match[1] ?? '') : Number(match[2]);
    if (Array.isArray(current) && typeof key === 'number') current = current[key] as unknown;
    else if (isRecord(current) && typeof key === 'string') current = current[key];
    else return id; // e.g. a child flow written as JSON text: nothing more to walk
    if (previous === 'nodes' && typeof key === 'number' && isRecord(current)) {
      const nodeId = current.id;
      id = typeof nodeId === 'string' || typeof nodeId === 'number' ? String(nodeId) : null;
    }
    previous = key;
  }
  return id;
}

function knownCode(code: string | undefined): IssueCode | undefined {
  return code !== undefined && (ISSUE_CODES as readonly string[]).includes(code)
    ? (code as IssueCode)
    : undefined;
}
