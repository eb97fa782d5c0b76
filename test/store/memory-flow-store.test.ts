import { MemoryFlowStore } from '../../src/store/memory/memory-flow-store.js';
import { describeFlowStore } from '../contracts/flow-store.contract.js';

describeFlowStore('memory', () => new MemoryFlowStore(), { sharesBackend: false });
