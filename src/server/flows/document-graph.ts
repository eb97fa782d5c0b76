import { FlowDefinitionError } from '../../errors/flow-definition-errors.js';
import { flowShape, type FlowShape } from '../../flow/flow-shape.js';
import { loadFlowPartly } from '../../flow/load-flow.js';
import type { NodeTypeLookup } from '../../flow/node-type-lookup.js';
import type { FlowDocument } from './flow-document.js';

/**
 * A stored document's `graph` (the version and pinned-flow views), drawn with the server's
 * node types, plugins included: what loads of it.
 */
export function documentGraph(document: FlowDocument, registry: NodeTypeLookup): FlowShape {
  const loaded = loadForDrawing(document, registry);
  return loaded ? flowShape(loaded.flow) : { nodes: [], edges: [] };
}

/** What loads of a document, to draw it; null when it is nested too deep to load at all. */
export function loadForDrawing(document: FlowDocument, registry: NodeTypeLookup) {
  try {
    return loadFlowPartly(document, { registry });
  } catch (error) {
    if (error instanceof FlowDefinitionError) return null;
    throw error;
  }
}
