import { MemoryExecutionStore } from '../../../src/backends/memory/memory-execution-store.js';
import { describeExecutionStore } from '../../contracts/execution-store.contract.js';

describeExecutionStore('memory', (options) => new MemoryExecutionStore(options), {
  propertyRuns: 150,
  persistent: false,
});
