/**
 * Keys that are far from the right one by spelling but close in meaning: the fields of another
 * node type, or another engine's vocabulary. Edit distance finds `elseNext` → `else_next`; only
 * this table finds `cases` on a switch. A hint names a key to use, or explains when none fits.
 */
export interface KeyHint {
  readonly suggestion?: string;
  readonly note?: string;
}

const CHILD_FLOW_HINTS: Readonly<Record<string, KeyHint>> = {
  flow: { suggestion: 'childFlow' },
  subflow: { suggestion: 'childFlow' },
  subFlow: { suggestion: 'childFlow' },
  sub_flow: { suggestion: 'childFlow' },
  body: { suggestion: 'childFlow' },
};

const HINTS: Readonly<Record<string, Readonly<Record<string, KeyHint>>>> = {
  switch: {
    cases: { suggestion: 'branches' },
    conditions: { suggestion: 'branches' },
    condition: { note: 'a switch reads its conditions from `branches[].condition`' },
    default: { note: 'a switch has no `default`: mark one branch with `isDefault: true`' },
  },
  case: {
    branches: { suggestion: 'cases' },
    field: { suggestion: 'target' },
  },
  if: {
    else: { suggestion: 'else_next' },
    then: { suggestion: 'next' },
    conditions: { suggestion: 'condition' },
  },
  child: CHILD_FLOW_HINTS,
  loop: { ...CHILD_FLOW_HINTS, items: { suggestion: 'collection' } },
  while: CHILD_FLOW_HINTS,
  map: { ...CHILD_FLOW_HINTS, items: { suggestion: 'collection' } },
  filter: { ...CHILD_FLOW_HINTS, items: { suggestion: 'collection' } },
  find: { ...CHILD_FLOW_HINTS, items: { suggestion: 'collection' } },
  reduce: { ...CHILD_FLOW_HINTS, items: { suggestion: 'collection' } },
  reference: { flowId: { suggestion: 'flow_id' }, version: { suggestion: 'flow_version' } },
};

export function keyHint(type: string, key: string): KeyHint | undefined {
  const forType = Object.hasOwn(HINTS, type) ? HINTS[type] : undefined;
  return forType && Object.hasOwn(forType, key) ? forType[key] : undefined;
}
