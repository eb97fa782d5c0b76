// `plaita/postgres`: the PostgreSQL stores. Importing it loads pg (an optional peer dependency)
// at once: without it the import fails here with PeerDependencyMissingError naming the package.
import { pgDriver } from './backends/postgres/pg-driver.js';

pgDriver('plaita/postgres');

export type { PostgresSource } from './backends/postgres/postgres-connection.js';
export {
  PostgresExecutionStore,
  type PostgresStoreOptions,
} from './backends/postgres/postgres-execution-store.js';
export {
  PostgresFlowStore,
  type PostgresFlowStoreOptions,
} from './backends/postgres/postgres-flow-store.js';
export {
  PostgresControlStore,
  type PostgresControlStoreOptions,
} from './backends/postgres/postgres-control-store.js';
