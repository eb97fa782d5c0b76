import type { Flow } from '../flow/flow.js';
import { isLoadedFlow, loadFlowDocument } from '../flow/load-flow.js';
import { parseDocumentText, readDocumentFile } from '../flow/parse-document.js';
import { defaultRegistry } from '../nodes/default-registry.js';
import type { NodeRegistry } from '../nodes/node-registry.js';
import { getDefaultLogger, type Logger } from '../util/logger.js';

export interface ParseFlowOptions {
  /** The node types this flow may use; default the 23 built-ins. */
  registry?: NodeRegistry | undefined;
  /** Where load warnings go (unknown keys, duplicate ids...); default the package logger. */
  logger?: Logger | undefined;
}

/**
 * Loads a flow from JSON text, YAML text or an already-parsed object (docs/flow-format.md §1.1).
 * Throws FlowDefinitionError whose `issues` lists every problem with its path.
 */
export function parseFlow(source: string | object, options: ParseFlowOptions = {}): Flow {
  if (isLoadedFlow(source)) return source;
  const document = typeof source === 'string' ? parseDocumentText(source) : source;
  return withWarningsLogged(
    loadFlowDocument(document, { registry: options.registry ?? defaultRegistry }),
    options,
  );
}

export async function loadFlowFile(path: string, options: ParseFlowOptions = {}): Promise<Flow> {
  const document = await readDocumentFile(path);
  return withWarningsLogged(
    loadFlowDocument(document, { registry: options.registry ?? defaultRegistry }),
    options,
  );
}

function withWarningsLogged(flow: Flow, options: ParseFlowOptions): Flow {
  if (flow.warnings.length > 0) {
    const log = options.logger ?? getDefaultLogger();
    for (const warning of flow.warnings) log.warn({ flowId: flow.id }, warning);
  }
  return flow;
}
