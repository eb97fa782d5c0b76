import { MemoryFlowStore } from '../../../src/backends/memory/memory-flow-store.js';
import { describeFlowStore } from '../../contracts/flow-store.contract.js';

describeFlowStore('memory', (options) => new MemoryFlowStore(options), { sharesBackend: false });
