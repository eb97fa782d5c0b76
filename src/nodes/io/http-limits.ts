import { DEFAULT_LIMITS, type RuntimeLimits } from '../../flow/runtime-limits.js';

/** What one http node run may do: the node's own asks bounded by the operator's limits. */
export interface HttpLimits {
  maxResponseBytes: number;
  blockPrivateNetworks: boolean;
  /** Who decided the block, named in refusals. */
  blockedBy: string;
}

/**
 * A node may ask for a smaller body cap, never a larger one. `privateNetworks`: `flow` lets
 * the node's `blockPrivateNetworks` decide, `deny` and `allow` override it both ways.
 */
export function httpLimits(
  node: { maxResponseBytes: number | null; blockPrivateNetworks: boolean },
  limits: Pick<RuntimeLimits, 'maxResponseBytes' | 'privateNetworks'>,
): HttpLimits {
  // A NaN or non-positive ceiling would silently disable the cap (every comparison false).
  const ceiling =
    limits.maxResponseBytes > 0 ? limits.maxResponseBytes : DEFAULT_LIMITS.maxResponseBytes;
  const maxResponseBytes = Math.min(node.maxResponseBytes ?? ceiling, ceiling);
  switch (limits.privateNetworks) {
    case 'flow':
      return {
        maxResponseBytes,
        blockPrivateNetworks: node.blockPrivateNetworks,
        blockedBy: 'blockPrivateNetworks',
      };
    case 'deny':
      return { maxResponseBytes, blockPrivateNetworks: true, blockedBy: 'privateNetworks=deny' };
    case 'allow':
      return { maxResponseBytes, blockPrivateNetworks: false, blockedBy: 'privateNetworks=allow' };
  }
}
