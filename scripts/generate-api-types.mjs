// Writes the console's API types from the built server's OpenAPI document (run after tsc): the
// app is built with memory stores, asked for /openapi.json in process, and closed. No server.
import { writeFileSync } from 'node:fs';
import { createApiApp } from '../dist/server/api-app.js';
import { LocalQueue } from '../dist/backends/sqlite/queue/local-queue.js';
import { MemoryControlStore } from '../dist/backends/memory/memory-control-store.js';
import { MemoryExecutionStore } from '../dist/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../dist/backends/memory/memory-flow-store.js';
import { silentLogger } from '../dist/util/logger.js';
import { API_TYPES_PATH, apiTypesSource } from './api-types.mjs';

const queue = new LocalQueue({ path: ':memory:' });
try {
  const app = createApiApp({
    store: new MemoryExecutionStore(),
    flows: new MemoryFlowStore(),
    control: new MemoryControlStore(),
    queue,
    logger: silentLogger,
  });
  const answer = await app.request('/openapi.json');
  if (answer.status !== 200) throw new Error(`/openapi.json answered ${answer.status}`);
  writeFileSync(API_TYPES_PATH, await apiTypesSource(await answer.json()));
} finally {
  await queue.close();
}
