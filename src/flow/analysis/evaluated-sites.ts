import { isRecord } from '../../expression/value-kind.js';
import { isTruthy } from '../../expression/values.js';
import { pathTo, pickKey } from './flow-scope.js';

/**
 * How a node evaluates a field. `value`: docs/flow-format.md §5.1, every string leaf of arrays and objects
 * (conditions' `field`/`value` too, §4). `service`: §3.17, only a top-level string starting with
 * `$`, and a failure keeps the raw text instead of failing the node.
 */
export type SiteMode = 'value' | 'service';

/** A part of a node that the engine evaluates when the node runs. */
export interface EvaluatedSite {
  readonly path: string;
  readonly value: unknown;
  readonly mode: SiteMode;
  /** Roots visible only here: `$LOOP-ITEM`… in loop and while conditions (§3.9, §3.10). */
  readonly extraRoots: readonly string[];
}

const LOOP_ROOTS = ['$LOOP-ITEM', '$LOOP-INDEX', '$LOOP-RESULT'];
const WHILE_ROOTS = ['$LOOP-ITEM', '$LOOP-INDEX'];

/** Collects the sites of one node, reading the raw fields under the spellings the loader accepts. */
class SiteList {
  readonly sites: EvaluatedSite[] = [];
  constructor(
    readonly raw: Record<string, unknown>,
    readonly path: string,
  ) {}

  /** The first present spelling of a field, evaluated as a value. */
  field(...spellings: string[]): void {
    const key = pickKey(this.raw, ...spellings);
    if (key !== undefined) this.value(this.raw[key], pathTo(this.path, key));
  }

  value(value: unknown, path: string, extraRoots: readonly string[] = []): void {
    if (value !== undefined && value !== null)
      this.sites.push({ path, value, mode: 'value', extraRoots });
  }

  /** A service field, or each item of a service list (`approvers`). */
  service(key: string, list = false): void {
    const value = this.raw[key];
    if (list && Array.isArray(value)) {
      value.forEach((item, i) => this.serviceAt(item, pathTo(this.path, key, i)));
    } else this.serviceAt(value, pathTo(this.path, key));
  }

  private serviceAt(value: unknown, path: string): void {
    if (typeof value === 'string' && value.startsWith('$'))
      this.sites.push({ path, value, mode: 'service', extraRoots: [] });
  }

  /** The record items of an array field, with their paths. */
  items(key: string): Array<{ item: Record<string, unknown>; path: string }> {
    const list = this.raw[key];
    if (!Array.isArray(list)) return [];
    return list
      .map((item: unknown, i) => ({ item, path: pathTo(this.path, key, i) }))
      .filter((entry): entry is { item: Record<string, unknown>; path: string } =>
        isRecord(entry.item),
      );
  }

  /** §4: the `field` and `value` of every leaf the condition parser keeps. */
  condition(raw: unknown, path: string, extraRoots: readonly string[] = []): void {
    if (!isTruthy(raw)) return;
    if (typeof raw === 'string') {
      // A condition written as a JSON string: positions inside it are the string's own path.
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        return; // the loader reports it
      }
      this.conditionContent(parsed, path, extraRoots, true);
    } else this.conditionContent(raw, path, extraRoots, false);
  }

  private conditionContent(
    content: unknown,
    path: string,
    extraRoots: readonly string[],
    inString: boolean,
  ): void {
    if (!isTruthy(content) || !isRecord(content)) return;
    const at = (...keys: Array<string | number>): string =>
      inString ? path : pathTo(path, ...keys);
    if (Object.hasOwn(content, 'relation') && Object.hasOwn(content, 'conditions')) {
      const members = content.conditions;
      if (Array.isArray(members))
        members.forEach((member: unknown, i) => {
          if (typeof member === 'string') this.condition(member, at('conditions', i), extraRoots);
          else this.conditionContent(member, at('conditions', i), extraRoots, inString);
        });
      return;
    }
    if (['field', 'operator', 'value'].every((key) => Object.hasOwn(content, key))) {
      this.value(content.field, at('field'), extraRoots);
      this.value(content.value, at('value'), extraRoots);
    }
  }
}

type SiteReader = (list: SiteList) => void;

const collectionOnly: SiteReader = (s) => s.field('collection');
const inputOnly: SiteReader = (s) => s.field('input');

/**
 * The fields each built-in type evaluates (docs/flow-format.md §3, checked against src/nodes/**). Fields
 * absent here are not evaluated: `type`, `id`, `name`, `desc`, `next`, `else_next`, branch
 * names and targets, handlers, a `mock`'s `value`, `event_filter`, type schemas…
 */
const SITE_READERS: Readonly<Record<string, SiteReader>> = {
  start: () => {},
  mock: () => {},
  end(s) {
    const written = s.raw[pickKey(s.raw, 'resultType', 'result_type') ?? ''];
    // `nop` and `error` ends never evaluate their output.
    if (written !== 'nop' && written !== 'error') s.field('output');
  },
  assignment(s) {
    const key = pickKey(s.raw, 'upstreamOutput', 'upstream_output');
    const entries = key === undefined ? [] : s.items(key);
    // With entries, one of their values is the result and `output` is never read.
    if (entries.length === 0) s.field('output');
    else for (const { item, path } of entries) s.value(item.value, pathTo(path, 'value'));
  },
  switch(s) {
    for (const { item, path } of s.items('branches'))
      s.condition(item.condition, pathTo(path, 'condition'));
  },
  if: (s) => s.condition(s.raw.condition, pathTo(s.path, 'condition')),
  case(s) {
    // Each case is the condition `target eq value`; cases without `id` or `value` fail to load.
    const cases = s.items('cases').filter(({ item }) => item.id !== undefined && 'value' in item);
    if (cases.length > 0) s.field('target');
    for (const { item, path } of cases) s.value(item.value, pathTo(path, 'value'));
  },
  child: inputOnly,
  reference: inputOnly,
  loop(s) {
    s.field('collection');
    s.condition(s.raw.condition, pathTo(s.path, 'condition'), LOOP_ROOTS);
  },
  while: (s) => s.condition(s.raw.condition, pathTo(s.path, 'condition'), WHILE_ROOTS),
  map: collectionOnly,
  filter: collectionOnly,
  find: collectionOnly,
  reduce(s) {
    s.field('collection');
    s.field('initial');
  },
  parallel(s) {
    // Branch conditions are only evaluated when the node is conditional.
    const conditional = s.raw[pickKey(s.raw, 'isConditional', 'is_conditional') ?? ''] === true;
    for (const { item, path } of s.items('branches')) {
      s.value(item.input, pathTo(path, 'input'));
      if (conditional) s.condition(item.condition, pathTo(path, 'condition'));
    }
  },
  http(s) {
    for (const key of ['url', 'headers', 'query', 'body', 'output']) s.field(key);
  },
  event: (s) => s.service('event_type'),
  delay(s) {
    s.service('delay_seconds');
    s.service('event_type');
  },
  approval(s) {
    s.service('approval_title');
    s.service('approval_content');
    s.service('approvers', true);
    s.service('escalation_approvers', true);
  },
  http_callback(s) {
    s.service('callback_path');
    s.service('auth_token');
  },
  redis_queue(s) {
    for (const key of ['redis_host', 'redis_port', 'redis_db', 'redis_password', 'queue_name'])
      s.service(key);
  },
  kafka_queue(s) {
    for (const key of ['bootstrap_servers', 'sasl_username', 'sasl_password', 'topic', 'group_id'])
      s.service(key);
  },
};

/**
 * The evaluated sites of a node of a built-in type, or null for a type we do not know (a
 * plugin): we cannot tell which of its fields it evaluates, so we check none of them.
 */
export function evaluatedSites(
  type: string,
  raw: Record<string, unknown>,
  path: string,
): EvaluatedSite[] | null {
  const reader = Object.hasOwn(SITE_READERS, type) ? SITE_READERS[type] : undefined;
  if (reader === undefined) return null;
  const list = new SiteList(raw, path);
  reader(list);
  return list.sites;
}
