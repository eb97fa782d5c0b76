// `plaita/nodes`: the opt-in plugin nodes real plaita flows use (the original's plaita-nodes):
// `capture` (a local command; needs subprocesses enabled) and `llm` (one chat completion).
// Load with `--nodes plaita/nodes` or PLAITA_NODE_MODULES=plaita/nodes, or register them.
import type { NodeRegistry } from './nodes/node-registry.js';
import { captureNode } from './nodes/plugins/capture-node.js';
import { llmNode } from './nodes/plugins/llm-node.js';

export { captureNode, llmNode };
export const nodes = [captureNode, llmNode] as const;

export function register(registry: NodeRegistry): void {
  for (const node of nodes) registry.register(node);
}
