/**
 * Type schemas (docs/flow-format.md §1.3): the `inputType`/`outputType` documents of a flow and the
 * `matches(schema, value)` check used by `assignment.outputType` and child input checks.
 */
import { TypeSchemaError } from '../errors/flow-definition-errors.js';

export const TYPE_NAMES = [
  'string',
  'boolean',
  'integer',
  'float',
  'number',
  'decimal',
  'array',
  'map',
  'object',
  'datetime',
  'date',
  'timestamp',
  'type',
  'union',
  'optional',
  'any',
  'null',
] as const;

export interface TypeSchema {
  dataType: string;
  name: string | null;
  label: string | null;
  desc: string | null;
  isRequired: boolean;
  defaultValue: unknown;
  itemType: TypeSchema | null;
  /** Object: name → schema. Array: a list = tuple positions. */
  children: Record<string, TypeSchema> | TypeSchema[] | null;
}

function first(raw: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const key of keys) if (raw[key] !== undefined) return raw[key];
  return undefined;
}

function optionalString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Normalises a raw type schema; throws TypeSchemaError with a path relative to it. */
export function parseTypeSchema(raw: unknown, path = ''): TypeSchema {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new TypeSchemaError(path, 'a type schema must be an object with a dataType');
  }
  const obj = raw as Record<string, unknown>;
  const dataType = first(obj, ['dataType', 'data_type', 'type']);
  if (typeof dataType !== 'string' || dataType === '') {
    throw new TypeSchemaError(
      join(path, 'dataType'),
      `dataType is required (one of ${TYPE_NAMES.join(', ')})`,
    );
  }
  const required = obj.required;
  let isRequired = Boolean(
    first(obj, ['isRequired', 'is_required']) ?? (typeof required === 'boolean' ? required : false),
  );
  const item = first(obj, ['itemType', 'item_type', 'items']);
  const rawChildren = first(obj, ['children', 'properties']);
  let children: TypeSchema['children'] = null;
  if (Array.isArray(rawChildren)) {
    children = rawChildren.map((c, i) => parseTypeSchema(c, `${join(path, 'children')}[${i}]`));
  } else if (rawChildren && typeof rawChildren === 'object') {
    children = {};
    for (const [name, child] of Object.entries(rawChildren)) {
      children[name] = parseTypeSchema(child, join(path, `children.${name}`));
    }
  }
  if (Array.isArray(required) && children && !Array.isArray(children)) {
    for (const name of required) {
      const child = typeof name === 'string' ? children[name] : undefined;
      if (child) child.isRequired = true;
    }
  }
  if (typeof required === 'boolean') isRequired = isRequired || required;
  return {
    dataType: dataType.toLowerCase(),
    name: optionalString(obj.name),
    label: optionalString(first(obj, ['label', 'title'])),
    desc: optionalString(first(obj, ['desc', 'description'])),
    isRequired,
    defaultValue: first(obj, ['defaultValue', 'default_value', 'default']) ?? null,
    itemType:
      item === undefined || item === null ? null : parseTypeSchema(item, join(path, 'itemType')),
    children,
  };
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** docs/flow-format.md §1.3 `matches(schema, value)`. */
export function matchesType(schema: TypeSchema, value: unknown): boolean {
  if (value === null || value === undefined) return !schema.isRequired;
  switch (schema.dataType) {
    case 'any':
      return true;
    case 'string':
      return typeof value === 'string' && value.length > 0;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'float':
    case 'number':
    case 'decimal':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return matchesArray(schema, value);
    case 'object':
      return matchesObject(schema, value);
    default:
      return false;
  }
}

function matchesArray(schema: TypeSchema, value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  if (Array.isArray(schema.children) && schema.children.length > 0) {
    const tuple = schema.children;
    return tuple.length === value.length && tuple.every((s, i) => matchesType(s, value[i]));
  }
  const item = schema.itemType;
  return item === null || value.every((v) => matchesType(item, v));
}

function matchesObject(schema: TypeSchema, value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (!schema.children || Array.isArray(schema.children)) return true;
  return Object.entries(schema.children).every(([name, child]) =>
    matchesType(child, Object.hasOwn(value, name) ? value[name] : null),
  );
}
