// The console's API types (console/src/api/openapi.generated.ts) from the server's OpenAPI
// document: openapi-typescript, then prettier with the repository's settings, so the file is
// the same byte for byte wherever it is made (test/console/api-types.test.ts compares them).
import openapiTS, { astToString } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';

export const API_TYPES_PATH = 'console/src/api/openapi.generated.ts';

const HEADER = `// Generated from the server's /openapi.json by scripts/generate-api-types.mjs (run by
// \`npm run build\`): do not edit. test/console/api-types.test.ts fails when it is stale.
`;

/** The TypeScript source of the types of `document` (an OpenAPI 3.1 object). */
export async function apiTypesSource(document) {
  const source = HEADER + astToString(await openapiTS(document, { silent: true }));
  const config = await resolveConfig(new URL(`../${API_TYPES_PATH}`, import.meta.url));
  return format(source, { ...config, parser: 'typescript' });
}
