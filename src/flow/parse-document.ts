import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseDocument, type ScalarTag, type SchemaOptions } from 'yaml';
import { FlowDefinitionError } from '../errors/flow-definition-errors.js';
import { InputRejectedError } from '../errors/execution-errors.js';
import { checkDepth, checkTextDepth } from '../util/value-depth.js';
import { DEFAULT_LIMITS } from './runtime-limits.js';

/**
 * docs/flow-format.md §1.1: JSON when the first non-blank character is `{` or `[` (falling back to YAML,
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
  // Parsers recurse: a hostile document thousands of levels deep must be refused before it
  // reaches one (flow-style YAML uses the same brackets, so this covers it too).
  checkDocumentDepth(() => checkTextDepth(text, MAX_DOCUMENT_DEPTH, 'the flow document'));
  const parsed = parseByFormat(text, format, looksJson);
  checkDocumentDepth(() => checkDepth(parsed, MAX_DOCUMENT_DEPTH, ''));
  return parsed;
}

function parseByFormat(
  text: string,
  format: 'json' | 'yaml' | 'auto',
  looksJson: boolean,
): unknown {
  if (format === 'json' || (format === 'auto' && looksJson)) {
    try {
      return JSON.parse(text) as unknown;
    } catch (jsonError) {
      if (format === 'json')
        throw syntaxError('JSON', new Error(jsonErrorMessage(jsonError, text)));
      try {
        return parseYaml(text);
      } catch {
        throw syntaxError('JSON', new Error(jsonErrorMessage(jsonError, text)));
      }
    }
  }
  try {
    return parseYaml(text);
  } catch (yamlError) {
    throw syntaxError('YAML', yamlError);
  }
}

/** Deeper than any flow needs (a child flow inside a child flow costs four levels). */
export const MAX_DOCUMENT_DEPTH = DEFAULT_LIMITS.maxDepth;

/** A depth refusal becomes the document's definition error, naming where it went too deep. */
export function checkDocumentDepth(check: () => void): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof InputRejectedError)) throw error;
    throw new FlowDefinitionError([{ path: error.path, message: error.message }]);
  }
}

const BOOL_TAG = 'tag:yaml.org,2002:bool';
const FLOAT_TAG = 'tag:yaml.org,2002:float';
/**
 * PyYAML's YAML 1.1 floats: digits before the dot (or after a leading one), and an exponent
 * only after a dot and with its sign. The yaml package's 1.1 rules also take `e1`, `E5` and a
 * lone `.` (as NaN) and `1e2`, where PyYAML keeps the string: node ids such as `e1` vanished.
 */
const PY_FLOAT = /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)$/;
const PY_FLOAT_EXP = /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)[eE][-+][0-9]+$/;
/** PyYAML's YAML 1.1 booleans: unlike the yaml package's 1.1 schema, a lone y/Y/n/N is a string. */
const PY_TRUE = /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/;
const PY_FALSE = /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/;

type Tags = Extract<NonNullable<SchemaOptions['customTags']>, unknown[]>;

/**
 * The original's scalar rules: PyYAML's booleans (a key `y:` stays the string "y") and floats,
 * and date-like scalars kept as strings (the original makes date objects; docs/flow-format.md §10 #25).
 */
function originalScalarRules(tags: Tags): Tags {
  const out: Tags = [];
  for (const tag of tags) {
    if (typeof tag !== 'object') continue;
    if (tag.tag === 'tag:yaml.org,2002:timestamp') continue;
    const scalar = tag as ScalarTag;
    if (tag.tag === BOOL_TAG && scalar.test instanceof RegExp)
      out.push({ ...scalar, test: scalar.test.test('true') ? PY_TRUE : PY_FALSE });
    else if (tag.tag === FLOAT_TAG && scalar.test instanceof RegExp && !scalar.test.test('.inf'))
      out.push({ ...scalar, test: scalar.format === 'EXP' ? PY_FLOAT_EXP : PY_FLOAT });
    else out.push(tag);
  }
  return out;
}

function parseYaml(text: string): unknown {
  const doc = parseDocument(text, {
    version: '1.1',
    merge: true,
    uniqueKeys: false,
    customTags: originalScalarRules,
  });
  if (doc.errors.length > 0) throw doc.errors[0]!;
  try {
    return doc.toJS({ maxAliasCount: 1000 }) as unknown;
  } catch (error) {
    // Block-style YAML nests by indentation, which the bracket count cannot see.
    if (error instanceof RangeError)
      throw new Error(`the document nests too deeply (limit ${MAX_DOCUMENT_DEPTH} levels)`);
    throw error;
  }
}

/**
 * JSON.parse's message with the line and column where it stopped: it gives a character offset
 * ("at position 100"), and a person editing the file needs what the YAML parser gives.
 */
export function jsonErrorMessage(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(message)?.[1];
  // Node 21 and later say it themselves: "(line 3 column 33)".
  if (position === undefined || /\(line \d+ column \d+\)/.test(message)) return message;
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  const column = Number(position) - before.lastIndexOf('\n');
  return `${message} (line ${line}, column ${column})`;
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
    const { code, message } = error as NodeJS.ErrnoException;
    const reason =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EISDIR'
          ? 'it is a directory, not a file'
          : code === 'EACCES'
            ? 'permission denied'
            : message;
    throw new FlowDefinitionError([
      { path: '', message: `cannot read flow file ${path}: ${reason}` },
    ]);
  }
  const ext = extname(path).toLowerCase();
  const format = ext === '.json' ? 'json' : ext === '.yaml' || ext === '.yml' ? 'yaml' : 'auto';
  return parseDocumentText(text, format);
}
