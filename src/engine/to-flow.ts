import type { Flow } from '../flow/flow.js';
import { isLoadedFlow } from '../flow/load-flow.js';
import type { EngineOptions } from './engine-options.js';
import { parseFlow } from './parse-flow.js';

/** What the run functions accept: a loaded Flow, or a document (text or object) to load first. */
export type FlowSource = Flow | string | object;

export function toFlow(source: FlowSource, options?: EngineOptions): Flow {
  return isLoadedFlow(source)
    ? source
    : parseFlow(source, { registry: options?.registry, logger: options?.logger });
}
