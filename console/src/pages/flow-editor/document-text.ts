import { messageOf } from '../../api/client';
import type { FlowDocument } from '../../api/types';

/** What a new flow starts from. */
export const TEMPLATE = `{
  "nodes": [
    { "type": "start", "id": "start", "next": "greet" },
    { "type": "assignment", "id": "greet", "output": { "message": "Hello {% $INPUT.name %}" }, "next": "end" },
    { "type": "end", "id": "end", "output": { "message": "$NODE.greet.message" } }
  ]
}
`;

/** The editor's text as a document, or why it is not one (shown under the text). */
export function parseDocument(text: string): { doc: FlowDocument | null; error: string | null } {
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value))
      return { doc: null, error: 'The document must be a JSON object' };
    return { doc: value as FlowDocument, error: null };
  } catch (e) {
    return { doc: null, error: `Not JSON: ${messageOf(e)}` };
  }
}

/** The `flow_id` and `version` a document names ('' when it names none). */
export function idsOf(doc: FlowDocument | null): { docId: string; docVersion: string } {
  return {
    docId: typeof doc?.flow_id === 'string' ? doc.flow_id : '',
    docVersion: typeof doc?.version === 'string' ? doc.version : '',
  };
}

/** The JSON document with its `version` set to `version` when it names another; else as is. */
export function withVersion(text: string, version: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text; // YAML, or not parsable: the server says what is wrong
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return text;
  const document = value as Record<string, unknown>;
  const named = document.version;
  if (named === undefined) return text;
  if ((typeof named === 'string' || typeof named === 'number') && String(named) === version)
    return text;
  return JSON.stringify({ ...document, version }, null, 2);
}

/** A form field's JSON object ('' is {}); throws a readable error naming the field. */
export function jsonObject(text: string, what: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${what}: not JSON (${messageOf(e)})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${what}: a JSON object is needed`);
  return value as Record<string, unknown>;
}
