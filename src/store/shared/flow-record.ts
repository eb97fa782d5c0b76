import { canonicalJson, sha256Hex } from '../../util/canonical-json.js';
import { decodeValue, encodeValue } from '../../state/codec.js';
import { FlowDefinitionError } from '../../errors/flow-definition-errors.js';
import { StateCorruptError } from '../../errors/state-errors.js';
import { DEFAULT_TENANT, type TenantScope } from '../execution-store.js';
import type { StoredFlow } from '../flow-store.js';
import { isStorableText } from './stored-text.js';

/** A flow document ready to store: its identity and its text through the one codec. */
export interface FlowRecord {
  flowHash: string;
  flowId: string | null;
  version: string | null;
  text: string;
}

/**
 * Identity as the flow loader reads it (`flow_id` / `flowId` / `id`, `version` as a string), and
 * the content hash of docs/durable-contract.md §1 (`sha256Hex(canonicalJson(document))`).
 */
/** Where a document names its flow, first match wins (as the loader reads it). */
const ID_KEYS = ['flow_id', 'flowId', 'id'] as const;

export function flowRecord(document: Record<string, unknown>): FlowRecord {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new TypeError('a flow document is an object');
  }
  // The key the id is read from: also the path a refusal names.
  const idKey = ID_KEYS.find((key) => document[key] != null);
  const rawId = idKey === undefined ? undefined : document[idKey];
  const rawVersion = document.version;
  const flowId = typeof rawId === 'string' ? rawId : null;
  const version =
    typeof rawVersion === 'string' || typeof rawVersion === 'number' ? String(rawVersion) : null;
  // Written by the flow's author, so bad input (a typed definition error naming the field), not
  // a programming error: no backend can index such text (stored-text.ts).
  const unstorable = [
    { path: idKey ?? 'flow_id', text: flowId },
    { path: 'version', text: version },
  ].filter(({ text }) => text !== null && !isStorableText(text));
  if (unstorable.length > 0)
    throw new FlowDefinitionError(
      unstorable.map(({ path }) => ({ path, message: 'must not hold U+0000 or a lone surrogate' })),
    );
  return {
    flowHash: sha256Hex(canonicalJson(document)),
    flowId,
    version,
    text: encodeValue(document, 'flow'),
  };
}

/**
 * The tenant a flow read addresses (default `default`), or null when no flow can be stored under
 * it (empty, U+0000, a lone surrogate: see isStorableText): the store answers "absent" without
 * asking the backend.
 */
export function flowTenant(scope: TenantScope): string | null {
  const tenantId = scope.tenantId ?? DEFAULT_TENANT;
  return tenantId !== '' && isStorableText(tenantId) ? tenantId : null;
}

/**
 * The tenant a lookup (by flow id and version, or by hash) reads, or null when no stored flow
 * can match it: an id, hash, version or tenant no backend stores (UTF-8 would turn a lone surrogate into U+FFFD and could match
 * another flow). `version` null: the latest.
 */
export function lookupTenant(key: string, version: string | null, scope: TenantScope) {
  const tenantId = flowTenant(scope);
  if (tenantId === null || !isStorableText(key)) return null;
  return version !== null && !isStorableText(version) ? null : tenantId;
}

/** The tenant a put writes to; one that no backend can store is a programming error. */
export function putTenant(scope: TenantScope): string {
  const tenantId = flowTenant(scope);
  if (tenantId === null)
    throw new RangeError('a tenant id must be non-empty, without U+0000 or lone surrogates');
  return tenantId;
}

/** Rebuilds a stored flow from its columns. */
export function storedFlow(
  flowHash: string,
  flowId: string | null,
  version: string | null,
  text: string,
  createdAt: number,
): StoredFlow {
  const document = decodeValue(text);
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new StateCorruptError(`stored flow ${flowHash} is not an object`);
  return {
    flowHash,
    flowId,
    version,
    document: document as Record<string, unknown>,
    createdAt: new Date(createdAt).toISOString(),
  };
}
