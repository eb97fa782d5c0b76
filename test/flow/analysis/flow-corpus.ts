import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The real flows we hold: example documents and every conformance case's flow. */
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const sharedCases = resolve(root, '../shared/conformance/cases');
const casesDir = existsSync(sharedCases) ? sharedCases : join(root, 'test/conformance/cases');
const exampleDirs = [resolve(root, '../shared/examples'), join(root, 'examples')].filter((d) =>
  existsSync(d),
);

export interface ConformanceCase {
  readonly name: string;
  readonly flow: unknown;
  readonly expect: { result: unknown } | { error: unknown };
}

export const conformanceCases: ConformanceCase[] = readdirSync(casesDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(casesDir, f), 'utf8')) as ConformanceCase);

/** Example documents as text (JSON or YAML), named `<dir>/<file>`. */
export const exampleDocuments: Array<{ name: string; text: string }> = exampleDirs.flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => /\.(json|ya?ml)$/.test(f))
    .sort()
    .map((f) => ({ name: `${dir}/${f}`, text: readFileSync(join(dir, f), 'utf8') })),
);
