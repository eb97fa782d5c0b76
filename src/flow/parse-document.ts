import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseDocument } from 'yaml';
import { FlowDefinitionError } from '../errors.js';

/**
 * flows.md §1.1: JSON when the first non-blank character is `{` or `[` (falling back to YAML,
 * reporting the JSON error if both fail), YAML otherwise. YAML follows the 1.1 scalar rules of
 * the original (yes/no/on/off booleans, merge keys) but date-like scalars stay strings.
 */
export function parseDocumentText(
  text: string,
  format: 'json' | 'yaml' | 'auto' = 'auto',
): unknown {
  const trimmed = text.trimStart();
  if (trimmed === '')
    throw new FlowDefinitionError([{ path: '', message: 'the flow document is empty' }]);
  const looksJson = trimmed.startsWith('{') || trimmed.startsWith('[');
  if (format === 'json' || (format === 'auto' && looksJson)) {
    try {
      return JSON.parse(text) as unknown;
    } catch (jsonError) {
      if (format === 'json') throw syntaxError('JSON', jsonError);
      try {
        return parseYaml(text);
      } catch {
        throw syntaxError('JSON', jsonError);
      }
    }
  }
  try {
    return parseYaml(text);
  } catch (yamlError) {
    throw syntaxError('YAML', yamlError);
  }
}

function parseYaml(text: string): unknown {
  const doc = parseDocument(text, {
    version: '1.1',
    merge: true,
    uniqueKeys: false,
    // The original turns date-like scalars into date objects; we keep them as strings (§10 #25).
    customTags: (tags) =>
      tags.filter((tag) => typeof tag === 'object' && tag.tag !== 'tag:yaml.org,2002:timestamp'),
  });
  if (doc.errors.length > 0) throw doc.errors[0]!;
  return doc.toJS({ maxAliasCount: 1000 }) as unknown;
}

function syntaxError(format: string, error: unknown): FlowDefinitionError {
  const message = error instanceof Error ? error.message : String(error);
  return new FlowDefinitionError([{ path: '', message: `not valid ${format}: ${message}` }]);
}

/** Reads a flow file: `.json` → JSON, `.yaml`/`.yml` → YAML, anything else by content. */
export async function readDocumentFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(error);
    throw new FlowDefinitionError([
      { path: '', message: `cannot read flow file ${path}: ${reason}` },
    ]);
  }
  const ext = extname(path).toLowerCase();
  const format = ext === '.json' ? 'json' : ext === '.yaml' || ext === '.yml' ? 'yaml' : 'auto';
  return parseDocumentText(text, format);
}
