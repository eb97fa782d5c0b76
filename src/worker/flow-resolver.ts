import {
  FlowDefinitionMissingError,
  FlowNotLoadableError,
} from '../errors/flow-definition-errors.js';
import { parseFlow } from '../engine/parse-flow.js';
import type { Flow } from '../flow/flow.js';
import type { NodeRegistry } from '../nodes/node-registry.js';
import type { FlowStore } from '../store/flow-store.js';
import { silentLogger } from '../util/logger.js';

const CACHE_LIMIT = 500;

/** Whose definitions a lookup reads: always the tenant of the execution it serves. */
export interface ResolveScope {
  tenantId: string;
}

/**
 * Loads the definition an execution pinned, (its tenant, a hash), parsed once and then cached:
 * a hash names immutable content. Resolves `reference` nodes by flowId + version within the
 * execution's tenant. The cache is keyed by tenant too, so a definition one tenant may read is
 * never served to another from memory.
 */
export class FlowResolver {
  readonly #byHash = new Map<string, Flow>();

  constructor(
    readonly flows: FlowStore,
    readonly registry: NodeRegistry | undefined,
  ) {}

  async byHash(flowHash: string | null, scope: ResolveScope): Promise<Flow> {
    if (!flowHash)
      throw new FlowDefinitionMissingError(
        'the execution pins no flow definition (flowHash is empty)',
      );
    const cached = this.#byHash.get(cacheKey(scope, flowHash));
    if (cached) return cached;
    const stored = await this.flows.getByHash(flowHash, scope);
    if (!stored)
      throw new FlowDefinitionMissingError(
        `flow definition ${flowHash} is not in the flow store of tenant ${scope.tenantId}`,
      );
    return this.#remember(scope, flowHash, stored.document);
  }

  async byVersion(
    flowId: string,
    version: string | null,
    scope: ResolveScope,
  ): Promise<Flow | null> {
    const stored = await this.flows.getByVersion(flowId, version, scope);
    return stored ? this.#remember(scope, stored.flowHash, stored.document) : null;
  }

  #remember(scope: ResolveScope, flowHash: string, document: Record<string, unknown>): Flow {
    const key = cacheKey(scope, flowHash);
    const existing = this.#byHash.get(key);
    if (existing) return existing;
    let flow: Flow;
    try {
      flow = parseFlow(document, { registry: this.registry, logger: silentLogger });
    } catch (error) {
      // It was valid where it was started: what this worker lacks (a plugin, a newer version)
      // is not the execution's fault, and another worker may have it.
      throw new FlowNotLoadableError(
        `this worker cannot load flow definition ${flowHash} of tenant ${scope.tenantId} ` +
          `(load the plugin modules it uses, PLAITA_NODE_MODULES): ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (this.#byHash.size >= CACHE_LIMIT) this.#byHash.delete(this.#byHash.keys().next().value!);
    this.#byHash.set(key, flow);
    return flow;
  }
}

/** U+0000 cannot occur in a stored tenant id, so no two (tenant, hash) pairs share a key. */
function cacheKey(scope: ResolveScope, flowHash: string): string {
  return `${scope.tenantId}\u0000${flowHash}`;
}
