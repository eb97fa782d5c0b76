import { caseNode } from './control/case-node.js';
import { endNode } from './control/end-node.js';
import { ifNode } from './control/if-node.js';
import { startNode } from './control/start-node.js';
import { switchNode } from './control/switch-node.js';
import { childNode } from './compose/child-node.js';
import { parallelNode } from './compose/parallel-node.js';
import { referenceNode } from './compose/reference-node.js';
import { assignmentNode } from './data/assignment-node.js';
import { mockNode } from './data/mock-node.js';
import { codeNode } from './code/code-node.js';
import { httpNode } from './io/http-node.js';
import { filterNode, findNode } from './iterate/filter-node.js';
import { loopNode } from './iterate/loop-node.js';
import { mapNode } from './iterate/map-node.js';
import type { RuntimeLimits } from '../flow/runtime-limits.js';
import { reduceNode } from './iterate/reduce-node.js';
import { whileNode } from './iterate/while-node.js';
import { NodeRegistry } from './node-registry.js';
import { approvalNode } from './suspend/approval-node.js';
import { delayNode } from './suspend/delay-node.js';
import { eventNode } from './suspend/event-node.js';
import { httpCallbackNode } from './suspend/http-callback-node.js';
import { kafkaQueueNode } from './suspend/kafka-queue-node.js';
import { redisQueueNode } from './suspend/redis-queue-node.js';

/**
 * The built-in node types (docs/flow-format.md §3). `code` is among them: its JavaScript runs in
 * a WebAssembly sandbox, and what else it may run is the operator's `codeBackends` limit.
 */
export const BUILTIN_NODE_TYPES = [
  startNode,
  endNode,
  assignmentNode,
  switchNode,
  ifNode,
  caseNode,
  childNode,
  referenceNode,
  loopNode,
  whileNode,
  mapNode,
  filterNode,
  findNode,
  reduceNode,
  parallelNode,
  httpNode,
  mockNode,
  eventNode,
  delayNode,
  approvalNode,
  httpCallbackNode,
  redisQueueNode,
  kafkaQueueNode,
  codeNode,
] as const;

/** `limits`: the operator's, read by node types at load (e.g. which code backends are on). */
export function createDefaultRegistry(
  options: { limits?: Partial<RuntimeLimits> | undefined } = {},
): NodeRegistry {
  return new NodeRegistry(BUILTIN_NODE_TYPES, options);
}

/** Shared default; pass a `copy()` or your own registry to extend it for one flow. */
export const defaultRegistry: NodeRegistry = createDefaultRegistry();
