// The benchmarks' workload: start, `steps` assignment nodes each adding to $INPUT.i, and an end
// returning $NODE — one flow document, so every tier and every peer runs the same chain.
export function chainFlowDocument(flowId, steps) {
  return {
    flow_id: flowId,
    nodes: [
      { type: 'start', id: 'start', next: 'n0' },
      ...Array.from({ length: steps }, (_, s) => ({
        type: 'assignment',
        id: `n${s}`,
        output: { out: `$F.add($INPUT.i, ${s})` },
        next: s === steps - 1 ? 'end' : `n${s + 1}`,
      })),
      { type: 'end', id: 'end', output: '$NODE' },
    ],
  };
}
