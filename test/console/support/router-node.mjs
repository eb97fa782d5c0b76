// A plugin node type for the console tests (`plaita serve --nodes <this file>`): a branching
// `router` whose targets sit in a field of its own, `routes` (label → node id), and which goes
// to the route its `pick` names. The console cannot know where it leads but from the server.
export const nodes = [
  {
    type: 'router',
    branching: true,
    targets: (def) => Object.entries(def.routes ?? {}).map(([label, to]) => ({ to, label })),
    run: (ctx) => ctx.def.routes?.[ctx.def.pick] ?? null,
  },
];
