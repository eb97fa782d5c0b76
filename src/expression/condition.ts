import { evaluateValue } from './evaluate.js';
import { deepUnits, defaultMeter, type EvaluationMeter } from './meter.js';
import { editDistance } from './edit-distance.js';
import type { EvaluationScope } from './scope.js';
import { isRecord, valueKind } from './value-kind.js';
import { compareValues, deepEqual, isMember, isTruthy } from './values.js';
import { whenReady } from '../util/maybe-promise.js';
import type { MaybePromise } from '../util/maybe-promise.js';

export type ConditionOperator =
  'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'notIn' | 'contains' | 'notContains';

export type Condition =
  | { kind: 'leaf'; field: unknown; operator: ConditionOperator; value: unknown }
  | { kind: 'group'; relation: 'and' | 'or'; conditions: Condition[] };

/** A definition error inside a condition; `path` is relative to it, e.g. `conditions[1].operator`. */
export interface ConditionIssue {
  path: string;
  message: string;
}

export interface ConditionReport {
  warn(message: string): void;
  issue(issue: ConditionIssue): void;
}

/** Exactly the original's spellings (a pydantic `Literal`): it accepts no aliases such as `not_in` or `==`. */
const OPERATORS: ReadonlySet<string> = new Set<ConditionOperator>([
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'notIn',
  'contains',
  'notContains',
]);

/**
 * §4 parsing. Accepts an object or a JSON string of one. Returns null for "no condition": an
 * empty value silently, anything else that is neither a group nor a full leaf with a warning
 * (the branch can never match). A bad operator or relation, or a string that is not JSON, is
 * reported through `issue` and the whole condition is null.
 */
export function parseCondition(raw: unknown, report: ConditionReport): Condition | null {
  let failed = false;
  const parsed = parseAt(raw, '', {
    warn: (message) => report.warn(message),
    issue: (issue) => {
      failed = true;
      report.issue(issue);
    },
  });
  return failed ? null : parsed;
}

function parseAt(raw: unknown, path: string, report: ConditionReport): Condition | null {
  // Python-falsy values ({} and "" included) mean "no condition" in the original, without a word.
  if (!isTruthy(raw)) return null;
  let content = raw;
  if (typeof content === 'string') {
    try {
      content = JSON.parse(content) as unknown;
    } catch (error) {
      report.issue({ path, message: `condition is not valid JSON: ${(error as Error).message}` });
      return null;
    }
    if (!isTruthy(content)) return null;
  }
  if (isRecord(content)) {
    if (Object.hasOwn(content, 'relation') && Object.hasOwn(content, 'conditions'))
      return parseGroup(content, path, report);
    if (
      Object.hasOwn(content, 'field') &&
      Object.hasOwn(content, 'operator') &&
      Object.hasOwn(content, 'value')
    ) {
      return parseLeaf(content, path, report);
    }
  }
  report.warn(
    `${path === '' ? 'condition' : path} needs field/operator/value or relation/conditions ` +
      `(got ${describe(content)}); it is ignored, so it can never match`,
  );
  return null;
}

function parseGroup(
  content: Record<string, unknown>,
  path: string,
  report: ConditionReport,
): Condition | null {
  const relation = content.relation;
  const members = content.conditions;
  let valid = true;
  if (relation !== 'and' && relation !== 'or') {
    report.issue({
      path: join(path, 'relation'),
      message: `relation must be "and" or "or", got ${describe(relation)}`,
    });
    valid = false;
  }
  if (!Array.isArray(members)) {
    report.issue({
      path: join(path, 'conditions'),
      message: `conditions must be an array, got ${describe(members)}`,
    });
    return null;
  }
  const conditions: Condition[] = [];
  members.forEach((member, i) => {
    // Members that parse to "no condition" are dropped, as in the original.
    const parsed = parseAt(member, join(path, `conditions[${i}]`), report);
    if (parsed !== null) conditions.push(parsed);
  });
  return valid ? { kind: 'group', relation: relation as 'and' | 'or', conditions } : null;
}

function parseLeaf(
  content: Record<string, unknown>,
  path: string,
  report: ConditionReport,
): Condition | null {
  const operator = content.operator;
  if (typeof operator !== 'string' || !OPERATORS.has(operator)) {
    report.issue({ path: join(path, 'operator'), message: unknownOperator(operator) });
    return null;
  }
  return {
    kind: 'leaf',
    field: content.field,
    operator: operator as ConditionOperator,
    value: content.value,
  };
}

function unknownOperator(operator: unknown): string {
  const close =
    typeof operator === 'string'
      ? [...OPERATORS].filter(
          (candidate) => editDistance(candidate.toLowerCase(), operator.toLowerCase()) <= 2,
        )
      : [];
  const hint =
    close.length > 0 ? ` (did you mean ${close.map((c) => `"${c}"`).join(' or ')}?)` : '';
  return `unknown operator ${describe(operator)}${hint}; valid operators: ${[...OPERATORS].join(', ')}`;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : valueKind(value);
}

/**
 * §4 evaluation: both sides are evaluated with no parent fallback; groups evaluate every member
 * (no short-circuit, so an error in any member raises) and an empty group is true.
 */
export function matchCondition(
  condition: Condition,
  scope: EvaluationScope,
  meter: EvaluationMeter = defaultMeter(),
): MaybePromise<boolean> {
  if (condition.kind === 'leaf') {
    return whenReady(evaluateValue(condition.field, scope, { meter }), (left) =>
      whenReady(evaluateValue(condition.value, scope, { meter }), (right) => {
        const limit = meter.remaining + 1;
        meter.charge(
          1 + deepUnits(left, limit) + deepUnits(right, limit),
          `the "${condition.operator}" operator`,
        );
        return applyOperator(condition.operator, left, right);
      }),
    );
  }
  const { relation, conditions } = condition;
  return whenReady(matchAll(conditions, 0, [], scope, meter), (results) =>
    relation === 'and' ? results.every(Boolean) : results.length === 0 || results.some(Boolean),
  );
}

function matchAll(
  conditions: readonly Condition[],
  from: number,
  results: boolean[],
  scope: EvaluationScope,
  meter: EvaluationMeter,
): MaybePromise<boolean[]> {
  for (let i = from; i < conditions.length; i++) {
    const result = matchCondition(conditions[i] as Condition, scope, meter);
    if (typeof result !== 'boolean') {
      return result.then((resolved) => {
        results.push(resolved);
        return matchAll(conditions, i + 1, results, scope, meter);
      });
    }
    results.push(result);
  }
  return results;
}

/** The operator table of §4. Null on either side: only `eq` (both null) and `ne` (one null) can hold. */
export function applyOperator(operator: ConditionOperator, left: unknown, right: unknown): boolean {
  if (left === null || left === undefined || right === null || right === undefined) {
    const leftNull = left === null || left === undefined;
    const rightNull = right === null || right === undefined;
    if (operator === 'eq') return leftNull && rightNull;
    if (operator === 'ne') return leftNull !== rightNull;
    return false;
  }
  switch (operator) {
    case 'eq':
      return deepEqual(left, right);
    case 'ne':
      return !deepEqual(left, right);
    case 'gt':
      return compareValues(left, right) > 0;
    case 'gte':
      return compareValues(left, right) >= 0;
    case 'lt':
      return compareValues(left, right) < 0;
    case 'lte':
      return compareValues(left, right) <= 0;
    case 'in':
      return isMember(left, right);
    case 'notIn':
      return !isMember(left, right);
    case 'contains':
      return isMember(right, left);
    case 'notContains':
      return !isMember(right, left);
  }
}
