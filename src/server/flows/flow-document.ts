import { FlowDefinitionError } from '../../errors/flow-definition-errors.js';
import { isRecord } from '../../expression/value-kind.js';
import {
  checkDocumentDepth,
  jsonErrorMessage,
  MAX_DOCUMENT_DEPTH,
  parseDocumentText,
} from '../../flow/parse-document.js';
import { canonicalJson, sha256Hex } from '../../util/canonical-json.js';
import { checkDepth } from '../../util/value-depth.js';
import { ApiProblem } from '../problem.js';

/** A flow document as the API receives and stores it: a parsed JSON object. */
export type FlowDocument = Record<string, unknown>;

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);

/**
 * The body of `PUT /v1/flows/{flowId}/versions/{version}`: JSON (the default, also without a
 * content type) or YAML (`application/yaml`, `text/yaml`), read by the project's parser with its
 * depth limits. Text that does not parse is the document's fault: FlowDefinitionError (422).
 */
export function documentFromBody(text: string, contentType: string | undefined): FlowDocument {
  const format = bodyFormat(contentType);
  if (format === 'json') requireJson(text);
  return asDocument(parseDocumentText(text, format));
}

/**
 * A JSON body that does not parse is a bad request (400, docs/http-api.md §3 "bad JSON"), not a
 * flow with issues; YAML's syntax errors stay 422, as `validate` reports them for a flow file.
 * (V8's JSON.parse does not recurse, so a hostile depth reaches parseDocumentText's guard.)
 */
function requireJson(text: string): void {
  if (text.trim() === '') return; // "the flow document is empty": a flow issue
  try {
    JSON.parse(text);
  } catch (error) {
    const message = jsonErrorMessage(error, text);
    throw new ApiProblem('invalid_request', `the body is not valid JSON: ${message}`, {
      errors: [{ path: 'body', message }],
    });
  }
}

/** `{flow}` of validate and dry-run: a JSON object, or JSON/YAML text. */
export function documentFromField(flow: unknown): FlowDocument {
  if (typeof flow === 'string') return asDocument(parseDocumentText(flow));
  checkDocumentDepth(() => checkDepth(flow, MAX_DOCUMENT_DEPTH, ''));
  return asDocument(flow);
}

/**
 * The document with the identity the URL gives it: `flow_id` (or the `flowId`/`id` the loader
 * also reads) and `version` are filled in when absent and must agree when present — a
 * disagreement is 422 naming the field.
 */
export function withIdentity(
  document: FlowDocument,
  flowId: string,
  version: string,
): FlowDocument {
  const idKey = (['flow_id', 'flowId', 'id'] as const).find((key) => document[key] != null);
  const ownVersion = document.version;
  const errors: { path: string; message: string }[] = [];
  if (idKey !== undefined && document[idKey] !== flowId)
    errors.push({
      path: idKey,
      message: `is ${JSON.stringify(document[idKey])}, but the URL names flow '${flowId}'`,
    });
  const versionText =
    typeof ownVersion === 'string' || typeof ownVersion === 'number' ? String(ownVersion) : null;
  if (ownVersion != null && versionText !== version)
    errors.push({
      path: 'version',
      message: `is ${JSON.stringify(ownVersion)}, but the URL names version '${version}'`,
    });
  if (errors.length > 0)
    throw new ApiProblem(
      'invalid_flow',
      'the document names another flow or version than the URL',
      {
        errors,
      },
    );
  const head: FlowDocument = {};
  if (idKey === undefined) head.flow_id = flowId;
  if (ownVersion == null) head.version = version;
  const rest = Object.entries(document).filter(([key]) => !Object.hasOwn(head, key));
  return { ...head, ...Object.fromEntries(rest) };
}

/**
 * The content hash FlowStore gives a document (store/shared/flow-record.ts, docs/durable-contract.md §1), so
 * a version's hash is the `flowHash` its executions pin.
 */
export function flowHash(document: FlowDocument): string {
  return sha256Hex(canonicalJson(document));
}

function asDocument(value: unknown): FlowDocument {
  if (isRecord(value)) return value;
  throw new FlowDefinitionError([
    { path: '', message: 'a flow document is an object (a mapping with `nodes`)' },
  ]);
}

function bodyFormat(contentType: string | undefined): 'json' | 'yaml' {
  const essence = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (YAML_TYPES.has(essence)) return 'yaml';
  if (essence === '' || essence === 'application/json' || essence.endsWith('+json')) return 'json';
  throw new ApiProblem('invalid_request', `a flow document is JSON or YAML, not ${essence}`, {
    errors: [{ path: 'header.content-type', message: 'application/json or application/yaml' }],
  });
}
