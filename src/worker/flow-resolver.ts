import { FlowDefinitionMissingError } from '../errors.js';
import { parseFlow } from '../engine/parse-flow.js';
import type { Flow } from '../flow/flow.js';
import type { NodeRegistry } from '../nodes/node-registry.js';
import type { FlowStore } from '../store/flow-store.js';
import { silentLogger } from '../util/logger.js';

const CACHE_LIMIT = 500;

/**
 * Loads the definition an execution pinned by hash (parsed once, then cached: a hash names
 * immutable content), and resolves `reference` nodes by flowId + version.
 */
export class FlowResolver {
  readonly #byHash = new Map<string, Flow>();

  constructor(
    readonly flows: FlowStore,
    readonly registry: NodeRegistry | undefined,
  ) {}

  async byHash(flowHash: string | null): Promise<Flow> {
    if (!flowHash)
      throw new FlowDefinitionMissingError(
        'the execution pins no flow definition (flowHash is empty)',
      );
    const cached = this.#byHash.get(flowHash);
    if (cached) return cached;
    const stored = await this.flows.getByHash(flowHash);
    if (!stored)
      throw new FlowDefinitionMissingError(`flow definition ${flowHash} is not in the flow store`);
    return this.#remember(flowHash, stored.document);
  }

  async byVersion(flowId: string, version: string | null): Promise<Flow | null> {
    const stored = await this.flows.getByVersion(flowId, version);
    return stored ? this.#remember(stored.flowHash, stored.document) : null;
  }

  #remember(flowHash: string, document: Record<string, unknown>): Flow {
    const existing = this.#byHash.get(flowHash);
    if (existing) return existing;
    const flow = parseFlow(document, { registry: this.registry, logger: silentLogger });
    if (this.#byHash.size >= CACHE_LIMIT) this.#byHash.delete(this.#byHash.keys().next().value!);
    this.#byHash.set(flowHash, flow);
    return flow;
  }
}
