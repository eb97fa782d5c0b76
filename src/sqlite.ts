// `plaita/sqlite`: the embedded tier — the stores and the task queue in one SQLite file.
// Importing it loads better-sqlite3 (an optional peer dependency) at once: without it the import
// fails here with PeerDependencyMissingError naming the package, not at the first operation.
import { sqliteDriver } from './backends/sqlite/sqlite-driver.js';

sqliteDriver('plaita/sqlite');

export {
  SqliteExecutionStore,
  type SqliteExecutionStoreOptions,
} from './backends/sqlite/sqlite-execution-store.js';
export {
  SqliteFlowStore,
  type SqliteFlowStoreOptions,
} from './backends/sqlite/sqlite-flow-store.js';
export {
  LocalQueue,
  type LocalQueueConnection,
  type LocalQueueOptions,
} from './backends/sqlite/queue/local-queue.js';
export {
  SqliteControlStore,
  type SqliteControlStoreOptions,
} from './backends/sqlite/sqlite-control-store.js';
