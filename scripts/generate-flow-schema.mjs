// Writes schema/flow.schema.json from the built zod schemas (run after tsc).
import { mkdirSync, writeFileSync } from 'node:fs';
import { flowDocumentJsonSchema } from '../dist/nodes/flow-json-schema.js';
import { defaultRegistry } from '../dist/nodes/default-registry.js';

mkdirSync('schema', { recursive: true });
writeFileSync(
  'schema/flow.schema.json',
  JSON.stringify(flowDocumentJsonSchema(defaultRegistry), null, 2) + '\n',
);
