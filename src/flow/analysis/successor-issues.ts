import { isRecord } from '../../expression/value-kind.js';
import { isTruthy } from '../../expression/values.js';
import type { LoadedNode } from '../flow.js';
import { closestName } from './closest-name.js';
import type { FlowIssue } from './flow-issue.js';
import { type FlowScope, pathTo } from './flow-scope.js';

/** What the checks of one node share. */
interface NodeSite {
  readonly node: LoadedNode;
  readonly raw: Record<string, unknown>;
  readonly path: string;
  readonly ids: ReadonlyMap<string, unknown>;
  /** The errorHandler strategy when it is the escape hatch of §2.2, else null. */
  readonly escape: string | null;
}

type Finding = Omit<FlowIssue, 'nodeId'>;

/**
 * docs/flow-format.md §2.2 checked ahead of time: a node with nowhere to go, or a target naming no node,
 * fails the run (`flow_error` / `node_not_found`) when it is reached. The escape hatch — an
 * errorHandler `continue`/`continue-with` on a node without successor — ends the run
 * successfully instead, so there it is only a warning.
 */
export function successorIssues(
  scope: FlowScope,
  node: LoadedNode,
  raw: Record<string, unknown>,
  path: string,
): FlowIssue[] {
  const { def } = node;
  if (def.type === 'end') return [];
  const strategy = def.errorHandler.strategy;
  const site: NodeSite = {
    node,
    raw,
    path,
    ids: scope.flow.nodesById,
    escape: strategy === 'continue' || strategy === 'continue-with' ? strategy : null,
  };
  const findings = [
    ...(node.targets === null ? nextFindings(site) : targetFindings(site, node.targets)),
    ...emptyChoiceFindings(def.type, def.id, raw, path),
  ];
  return findings.map((finding) => ({ ...finding, nodeId: def.id }));
}

/** A non-branching node: its `next` must exist and name a node. */
function nextFindings({ node, path, ids, escape }: NodeSite): Finding[] {
  const { id, next } = node.def;
  if (next !== null) return ids.has(next) ? [] : [unknownTarget(next, pathTo(path, 'next'), ids)];
  return [
    {
      severity: escape ? 'warning' : 'error',
      code: 'missing_next',
      path,
      message: escape
        ? `node '${id}' has no "next": its errorHandler '${escape}' ends the flow there with the $NODE map`
        : `node '${id}' has no "next" and is not an end node: the run fails when it gets here`,
    },
  ];
}

/** A branching node: it needs a target at all, and each one it can return must exist. */
function targetFindings(site: NodeSite, targets: ReadonlySet<string>): Finding[] {
  const { node, raw, path, ids, escape } = site;
  const { id, type } = node.def;
  const findings: Finding[] = [];
  if (targets.size === 0) {
    findings.push({
      severity: escape ? 'warning' : 'error',
      code: 'no_branches',
      path,
      message:
        `${type} node '${id}' has ` +
        (hasList(raw, 'branches') ? 'no branch with a target' : 'no "branches"') +
        ', so it can never choose a successor' +
        (escape
          ? `: its errorHandler '${escape}' ends the flow there`
          : ': the run fails when it gets here'),
    });
  }
  const live = liveTargets(type, raw);
  for (const target of targets) {
    if (ids.has(target)) continue;
    const at = locateTarget(raw, target);
    if (at === undefined) findings.push(defaultTargetMissing(id, target, path));
    else if (live === null || live.has(target))
      findings.push(unknownTarget(target, pathTo(path, ...at), ids));
    else
      findings.push({
        ...unknownTarget(target, pathTo(path, ...at), ids),
        severity: 'warning',
        message:
          `target '${target}' names no node, but no run can choose it: ` +
          (type === 'if'
            ? 'without a condition the if always takes else_next'
            : 'its branch has no condition and is not the default'),
      });
  }
  return findings;
}

function defaultTargetMissing(id: string, target: string, path: string): Finding {
  return {
    severity: 'warning',
    code: 'default_target_missing',
    path,
    message:
      `node '${id}' may choose its default target '${target}', which names no node: the run ` +
      `fails when it does (write the target explicitly or add a node '${target}')`,
  };
}

function unknownTarget(id: string, path: string, ids: ReadonlyMap<string, unknown>): Finding {
  const suggestion = closestName(id, ids.keys());
  return {
    severity: 'error',
    code: 'unknown_target',
    path,
    message:
      `target '${id}' names no node: the run fails with node_not_found when it goes there` +
      (suggestion === undefined ? '' : `; did you mean '${suggestion}'?`),
    ...(suggestion === undefined ? {} : { suggestion }),
  };
}

/**
 * The targets a built-in can actually return, or null when all of them can: a switch branch
 * with no condition that is not the first default never wins (§3.4); an `if` without a
 * condition always takes `else_next` (§3.5). A missing id only there cannot fail a run.
 */
function liveTargets(type: string, raw: Record<string, unknown>): ReadonlySet<string> | null {
  if (type === 'if') {
    const elseNext = typeof raw.else_next === 'string' ? raw.else_next : 'false';
    return isTruthy(raw.condition) ? null : new Set([elseNext]);
  }
  if (type !== 'switch' || !Array.isArray(raw.branches)) return null;
  const branches = raw.branches.filter(isRecord);
  const isDefault = (b: Record<string, unknown>): boolean =>
    (b.isDefault !== undefined ? b.isDefault : b.is_default) === true;
  const firstDefault = branches.findIndex(isDefault);
  const live = new Set<string>();
  branches.forEach((b, i) => {
    const target = b.next ?? b.name; // as the switch loads it
    if (typeof target === 'string' && (isTruthy(b.condition) || i === firstDefault))
      live.add(target);
  });
  return live;
}

/** Where a target is written: `next`, `else_next`, `default`, or a branch's / case's field. */
function locateTarget(
  raw: Record<string, unknown>,
  id: string,
): Array<string | number> | undefined {
  const names = (value: unknown): boolean =>
    (typeof value === 'string' || typeof value === 'number') && String(value) === id;
  for (const key of ['next', 'else_next', 'default']) if (names(raw[key])) return [key];
  for (const list of ['branches', 'cases']) {
    const items = raw[list];
    if (!Array.isArray(items)) continue;
    for (let i = 0; i < items.length; i++) {
      const item: unknown = items[i];
      if (!isRecord(item)) continue;
      // A branch targets its `next`, else its `name`; a case its `id`.
      const key = ['next', 'id', 'name'].find((k) => names(item[k]));
      if (key !== undefined) return [list, i, key];
    }
  }
  return undefined;
}

/** Choices that cannot fail but are probably not what the author meant. */
function emptyChoiceFindings(
  type: string,
  id: string,
  raw: Record<string, unknown>,
  path: string,
): Finding[] {
  const listKey = type === 'case' ? 'cases' : type === 'parallel' ? 'branches' : null;
  if (listKey === null) return [];
  if (hasList(raw, listKey)) return [];
  return [
    {
      severity: 'warning',
      code: 'no_branches',
      path,
      message:
        type === 'case'
          ? `case node '${id}' has no "cases": it always goes to its default`
          : `parallel node '${id}' has no "branches": it runs nothing and its result is {}`,
    },
  ];
}

function hasList(raw: Record<string, unknown>, key: string): boolean {
  const list = raw[key];
  return Array.isArray(list) && list.length > 0;
}
